package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strings"
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
		})
		if err != nil {
			return nil, 0, err
		}
		return rawJSON(body), items, nil
	}
}
