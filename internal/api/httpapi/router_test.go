package httpapi

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestRouterBuilds: the route table registers without overlapping
// patterns (ServeMux panics on those), every route under both prefixes,
// and two handlers can share a registry.
func TestRouterBuilds(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := New(Config{Registry: reg}, nil, nil, nil)
	New(Config{Registry: reg}, nil, nil, nil)
	seen := map[string]bool{}
	n := 0
	for _, rt := range routes() {
		if seen[rt.name] {
			t.Errorf("route name %s twice", rt.name)
		}
		seen[rt.name] = true
		ownAnswers := map[string]bool{"search": true, "search_users": true, "commented_by": true,
			"retweeted_by_user": true, "following_user": true, "search_counts": true, "search_top": true,
			"search_export": true, "search_network": true}
		if (rt.serve == nil) == (rt.stream == nil) || (!rt.free && rt.notFound == "" && !ownAnswers[rt.name]) {
			t.Errorf("route %s lacks serve (or stream) or a 404 message", rt.name)
		}
		n += len(rt.patterns())
		for _, p := range rt.patterns() {
			method, path, _ := strings.Cut(p, " ")
			r := httptest.NewRequest(method, path, nil)
			if _, pattern := h.(*server).mux.Handler(r); pattern != path {
				t.Errorf("%s routes to %q", p, pattern)
			}
		}
	}
	// The hosted API's 17 (docs/api.md, "The seventeen endpoints"), the hosted service's 18 others and the 4 research
	// endpoints under both prefixes, the balance endpoint bare, the 9
	// monitoring routes under both prefixes and bare, and POST
	// /user/webhook bare.
	if len(seen) != 50 || n != 39*2+1+9*3+1 {
		t.Errorf("%d routes with %d patterns, want 50 with 107", len(seen), n)
	}
}

// failingStore fails or panics in chosen methods.
type failingStore struct {
	social.Store
	panicPosts bool
}

func (f *failingStore) UserPosts(ctx context.Context, id int64, withReplies bool, p social.PageReq) (social.Page[social.Post], error) {
	if f.panicPosts {
		panic("boom")
	}
	return social.Page[social.Post]{}, errors.New("disk on fire at /var/secret")
}

func (f *failingStore) Search(context.Context, *search.Query, social.Order, social.PageReq) (social.Page[social.Post], error) {
	return social.Page[social.Post]{}, errors.New("database is locked")
}

func TestInternalErrors(t *testing.T) { eachEngine(t, testInternalErrors) }

func testInternalErrors(t *testing.T, eng engine) {
	base := newEnv(t, eng, Config{}, fixture())
	key, id := base.key(t, plenty, 0)
	for _, panicky := range []bool{false, true} {
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		h := New(Config{Registry: prometheus.NewRegistry()}, &failingStore{Store: base.store, panicPosts: panicky}, nil, log)
		for _, path := range []string{"/social/user/1/tweets", "/social/search?query=x"} {
			r := httptest.NewRequest(http.MethodGet, path, nil)
			r.Header.Set("Authorization", "Bearer "+key)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			want := `{"status":"error","message":"Failed to fetch data from Twitter"}`
			if w.Code != 500 || strings.TrimSpace(w.Body.String()) != want {
				t.Errorf("%s (panic %v): %d %s", path, panicky, w.Code, w.Body)
			}
			rid := w.Header().Get("X-Request-Id")
			if rid == "" || !strings.Contains(logs.String(), "request_id="+rid) {
				t.Errorf("the log does not name request %q:\n%s", rid, logs.String())
			}
		}
		if panicky && !strings.Contains(logs.String(), "panic: boom") {
			t.Errorf("the panic is not logged:\n%s", logs.String())
		}
	}
	if base.balance(t, id) != plenty {
		t.Errorf("internal errors were charged")
	}
}
