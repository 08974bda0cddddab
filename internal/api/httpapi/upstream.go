package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// Upstream answers the data routes in gateway mode (roost serve
// --upstream): every route that is not free is fetched from it instead of
// the store, after the same authentication, rate limit and validation
// (except that cursors are upstream's and go to it verbatim), and billed
// to the caller per returned item as a local answer is.
type Upstream interface {
	// Fetch returns the JSON page for req exactly as upstream served it
	// (or as it was cached) and its number of billable items. An error
	// that is an *Answer is passed on as it is; any other is a 500.
	Fetch(ctx context.Context, req UpstreamRequest) (body []byte, items int, err error)
}

// UpstreamRequest is one validated data request in gateway mode.
type UpstreamRequest struct {
	Route string // the route's name (ledger, metrics)
	// Method and Path (below the prefix, escaped) and Query are the
	// request as the caller sent it; Body is its JSON body, if any.
	Method, Path string
	Query        url.Values
	Body         []byte
	PathValues   []string // the route's path parameters, as sent
	MaxItems     int      // the most items the answer can hold
	RequestID    string
	KeyID        int64
	// ID and Name are the route's path id and screen name, parsed (a
	// user path of digits has both); IDs and Names what a tweets-by-ids,
	// users-by-ids or users-by-usernames body asks for, distinct, in the
	// order asked.
	ID    int64
	Name  string
	IDs   []int64
	Names []string
	// Deletions is the store's deletions counter as the request read it
	// (social.Versions; negative: not known): a page held in memory
	// since before a deletion must not be served.
	Deletions int64
}

// Answer is an error answered with its own status and message (e.g. an
// upstream 404 passed on).
type Answer struct {
	Status  int
	Message string
	Errors  map[string][]string
}

func (a *Answer) Error() string { return a.Message }

// rawJSON is a response body already encoded.
type rawJSON []byte

// serveUpstream is the work of a route in gateway mode.
func (s *server) serveUpstream(rt *route, r *http.Request, deletions int64) func(ctx context.Context, s *server, a *args) (any, int, error) {
	return func(ctx context.Context, s *server, a *args) (any, int, error) {
		path := r.URL.EscapedPath()
		for _, p := range prefixes {
			if strings.HasPrefix(path, p+"/") {
				path = strings.TrimPrefix(path, p)
				break
			}
		}
		var values []string
		for _, p := range []string{rt.param, rt.param2} {
			if p != "" && !rt.inQuery {
				values = append(values, r.PathValue(p))
			}
		}
		maxItems := rt.maxPage()
		switch {
		case rt.body != bodyNone:
			maxItems = len(a.ids) + len(a.names)
		case maxItems == 0:
			maxItems = 1
		}
		info := infoFrom(ctx)
		body, items, err := s.upstream.Fetch(ctx, UpstreamRequest{
			Route: rt.name, Method: r.Method, Path: path, Query: r.URL.Query(), Body: a.body,
			PathValues: values, MaxItems: maxItems, RequestID: info.id, KeyID: a.key.ID, Deletions: deletions,
			ID: a.id, Name: a.name, IDs: a.ids, Names: a.names,
		})
		if err != nil {
			return nil, 0, err
		}
		return rawJSON(body), items, nil
	}
}

// By-id answers from stored entities (gateway mode): package gateway
// answers tweets-by-ids, users-by-ids, users-by-usernames, one post and
// one user from the posts and users it stored lately, rendered here as a
// local answer renders them, and merges them with upstream's answer for
// the rest.

// FullPosts renders views in the full post shape, one item each, as
// tweets-by-ids and one post answer them.
func FullPosts(views []social.PostView) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(views))
	for i := range views {
		item, err := encodeItem(newFullPost(&views[i]))
		if err != nil {
			return nil, err
		}
		out[i] = item
	}
	return out, nil
}

// Profiles renders users as profiles, one item each: with can_dm as one
// user (GET /user/{user}) answers it, or with it null as users-by-ids and
// users-by-usernames answer it.
func Profiles(users []social.User, canDM bool) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(users))
	for i := range users {
		item, err := encodeItem(newProfile(&users[i], canDM))
		if err != nil {
			return nil, err
		}
		out[i] = item
	}
	return out, nil
}

// encodeItem is v as a response encodes it, without the newline.
func encodeItem(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ByIDsBody is the answer of a by-id route made of its items, in order,
// encoded as a local answer is: a bare array (tweets_by_ids), an object
// of "users" (users_by_ids, users_by_usernames), or the one item (tweet,
// statuses_show, user).
func ByIDsBody(route string, items []json.RawMessage) ([]byte, error) {
	var v any
	switch route {
	case "tweets_by_ids":
		v = items
	case "users_by_ids", "users_by_usernames":
		v = struct {
			Users []json.RawMessage `json:"users"`
		}{items}
	case "tweet", "statuses_show", "user":
		if len(items) != 1 {
			return nil, fmt.Errorf("%s answers one item, not %d", route, len(items))
		}
		v = items[0]
	default:
		return nil, fmt.Errorf("%s is not a by-id route", route)
	}
	var buf bytes.Buffer
	if err := encodeJSON(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ByIDsItems are the items of a by-id route's answer, as ByIDsBody takes
// them.
func ByIDsItems(route string, body []byte) ([]json.RawMessage, error) {
	var items []json.RawMessage
	var err error
	switch route {
	case "tweets_by_ids":
		err = json.Unmarshal(body, &items)
	case "users_by_ids", "users_by_usernames":
		var v struct {
			Users []json.RawMessage `json:"users"`
		}
		err = json.Unmarshal(body, &v)
		items = v.Users
	case "tweet", "statuses_show", "user":
		var item json.RawMessage
		err = json.Unmarshal(body, &item)
		items = []json.RawMessage{item}
	default:
		return nil, fmt.Errorf("%s is not a by-id route", route)
	}
	if err != nil {
		return nil, fmt.Errorf("the answer of %s: %w", route, err)
	}
	return items, nil
}
