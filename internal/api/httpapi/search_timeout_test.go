package httpapi

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// slowSearch is a store whose searches run until their context ends.
type slowSearch struct{ social.Store }

func (slowSearch) Search(ctx context.Context, _ *search.Query, _ social.Order, _ social.PageReq) (social.Page[social.Post], error) {
	<-ctx.Done()
	return social.Page[social.Post]{}, ctx.Err()
}

func TestSearchTimeout(t *testing.T) { eachEngine(t, testSearchTimeout) }

// testSearchTimeout: a search page that outlasts the search timeout is 422
// Query too expensive, charges nothing, and leaves the server serving; on
// the real engine, a search whose deadline has passed is the same 422,
// never a 500.
func testSearchTimeout(t *testing.T, eng engine) {
	for _, c := range []struct {
		name    string
		timeout time.Duration
		wrap    func(social.Store) social.Store
	}{
		{"slow store", 50 * time.Millisecond, func(s social.Store) social.Store { return slowSearch{s} }},
		{"deadline passed", time.Nanosecond, func(s social.Store) social.Store { return s }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, eng, Config{SearchTimeout: c.timeout}, fixture())
			e.h = New(Config{SearchTimeout: c.timeout, Now: func() time.Time { return testNow }}, c.wrap(e.store), nil, nil)
			key, id := e.key(t, plenty, 0)
			w := e.do(call{path: "/social/search?query=hello%20world", key: key})
			if w.Code != 422 {
				t.Fatalf("status %d, want 422: %s", w.Code, w.Body)
			}
			var body wire.ErrorBody
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Message != msgTooExpensive || len(body.Errors["query"]) != 1 {
				t.Errorf("body %s", w.Body)
			}
			if got := e.balance(t, id); got != plenty {
				t.Errorf("balance %d after a stopped search, want %d", got, plenty)
			}
			if w := e.do(call{path: "/social/thread/101", key: key}); w.Code != 200 {
				t.Errorf("after the stopped search: thread %d %s", w.Code, w.Body)
			}
		})
	}
}
