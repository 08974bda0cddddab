// Package httpapi is the HTTP face of roost: every endpoint of the social
// data API under both /social and /twitter, GET /user/balance, /healthz and
// /metrics. A request goes route → auth → rate limit → validate → store →
// shape → debit → JSON; routes.go is the table of endpoints and handler.go
// that pipeline.
//
// Decisions a client can see, where the hosted service does not say
// (docs/api.md holds them all, for clients):
//   - /healthz and /metrics need no key; /user/balance needs one and is free.
//   - A POST without Content-Type is accepted when its body is JSON; any
//     other Content-Type than application/json (parameters allowed) is 415.
//   - 422 bodies name the first bad parameter: message "Invalid <param>"
//     ("Invalid cursor" for cursors), errors {"<param>": ["<problem>"]};
//     a body that is not one JSON object reports the parameter "body".
//   - Unknown JSON fields in POST bodies are ignored; duplicate ids or
//     usernames are served once; an empty `type=` means Latest.
//   - Cursors are bound to endpoint, path id (as a number: 007 = 7),
//     search text (with runs of spaces collapsed) and order.
//   - Community posts: on a page requested with a cursor the pinned post
//     comes first (billed as an item) unless that page holds it already.
//   - Thread: a thread_id that is a reply serves its whole conversation
//     from the root, as the root's id would.
//   - Nested quoted_status / retweeted_status have the outer post's shape,
//     two levels deep (a repost's retweeted_status carries its quote), null
//     beyond; they are not billed.
//   - A mention whose user id is unknown has "id_str": "".
//   - Page envelopes put next_cursor first.
//   - A path ServeMux would clean (//, /./, ..) or with a trailing / is 404
//     Unknown endpoint, not a redirect.
package httpapi
