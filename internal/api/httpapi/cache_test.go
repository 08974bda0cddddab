package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
)

// firstID is the id of a page's first post.
func firstID(t *testing.T, body []byte) string {
	t.Helper()
	var p struct {
		Tweets []struct {
			ID string `json:"id_str"`
		} `json:"tweets"`
	}
	if err := json.Unmarshal(body, &p); err != nil || len(p.Tweets) == 0 {
		t.Fatalf("page %.200s: %v", body, err)
	}
	return p.Tweets[0].ID
}

// cacheCount is roost_page_cache_total{result} as /metrics shows it.
func cacheCount(t *testing.T, e *env, result string) int {
	t.Helper()
	m := e.do(call{path: "/metrics"}).Body.String()
	prefix := `roost_page_cache_total{result="` + result + `"} `
	for line := range strings.Lines(m) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			var n int
			fmt.Sscan(v, &n)
			return n
		}
	}
	return 0
}

// newPost is a post of alice's newer than every fixture post.
func newPost(id int64) social.Post {
	return social.Post{ID: id, AuthorID: alice, CreatedAt: at(100_000 + int(id)), Text: fmt.Sprintf("cached world %d", id),
		Lang: "en", ConversationID: id}
}

// TestPageCacheFollowsWrites: a page is served from the cache while the
// data is unchanged (and still paid for), and every kind of write (a
// plain one as imports and harvests make, a living-world tick, a bulk
// load) shows on the very next request, timeline and search alike.
func TestPageCacheFollowsWrites(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e := newEnv(t, eng, Config{}, fixture())
		key, id := e.key(t, 1_000_000, -1)
		ctx := context.Background()
		timeline := fmt.Sprintf("/social/user/%d/tweets", alice)
		search := "/social/search?type=Latest&query=cached"
		get := func(path string) []byte {
			t.Helper()
			w := e.do(call{path: path, key: key})
			if w.Code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
			}
			return w.Body.Bytes()
		}
		first := get(timeline)
		hits := cacheCount(t, e, "hit")
		if again := get(timeline); string(again) != string(first) {
			t.Fatalf("the same page twice differs:\n%s\n%s", first, again)
		}
		if h := cacheCount(t, e, "hit"); h != hits+1 {
			t.Fatalf("page cache hits %d after a repeated page, want %d", h, hits+1)
		}
		if n := e.debits(t, id); n != 2 {
			t.Fatalf("%d debits for two pages, the second from the cache; want 2", n)
		}
		if w := e.do(call{path: search, key: key}); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"tweets":[]`) {
			t.Fatalf("search before any match: %d %s", w.Code, w.Body)
		}
		writes := []struct {
			name  string
			write func(p social.Post) error
		}{
			{"write", func(p social.Post) error {
				_, err := e.store.Write(ctx, &social.Batch{Posts: []social.Post{p}})
				return err
			}},
			{"live tick", func(p social.Post) error {
				_, err := e.store.Write(ctx, &social.Batch{Posts: []social.Post{p}, LiveTick: 1})
				return err
			}},
			{"bulk load", func(p social.Post) error {
				bl, ok := e.store.(social.BulkLoader)
				if !ok {
					t.Fatalf("%T has no bulk path", e.store)
				}
				return bl.Bulk(ctx, 1, func(w social.Writer) error {
					_, err := w.Write(ctx, &social.Batch{Posts: []social.Post{p}})
					return err
				})
			}},
		}
		for i, wr := range writes {
			p := newPost(int64(901 + i))
			get(timeline) // kept
			get(search)
			if err := wr.write(p); err != nil {
				t.Fatalf("%s: %v", wr.name, err)
			}
			want := fmt.Sprint(p.ID)
			if got := firstID(t, get(timeline)); got != want {
				t.Errorf("after a %s, the timeline starts with %s, want the new post %s", wr.name, got, want)
			}
			if got := firstID(t, get(search)); got != want {
				t.Errorf("after a %s, the search starts with %s, want the new post %s", wr.name, got, want)
			}
		}
	})
}

// TestKeyCacheFollowsChanges: a key is read from the cache while it is
// unchanged, and a top-up, a fault plan and a revocation hold from the
// very next request.
func TestKeyCacheFollowsChanges(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e := newEnv(t, eng, Config{}, fixture())
		ctx := context.Background()
		key, id := e.key(t, 0, -1)
		path := fmt.Sprintf("/social/tweets/%d", rootPost)
		status := func() int { return e.do(call{path: path, key: key}).Code }
		if c := status(); c != http.StatusPaymentRequired {
			t.Fatalf("no credit: %d, want 402", c)
		}
		if _, err := e.store.TopUp(ctx, id, 1_000_000); err != nil {
			t.Fatal(err)
		}
		if c := status(); c != http.StatusOK {
			t.Fatalf("after a top-up: %d, want 200", c)
		}
		if _, err := e.store.SetFault(ctx, id, "500=1"); err != nil {
			t.Fatal(err)
		}
		if c := status(); c != http.StatusInternalServerError {
			t.Fatalf("after a fault plan of 500=1: %d, want 500", c)
		}
		if _, err := e.store.SetFault(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
		if c := status(); c != http.StatusOK {
			t.Fatalf("after the plan was removed: %d, want 200", c)
		}
		if err := e.store.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
		if c := status(); c != http.StatusUnauthorized {
			t.Fatalf("after a revocation: %d, want 401", c)
		}
	})
}

// TestCachesFollowOtherProcesses: writes and key changes made through
// another connection to the same SQLite file (another roost process:
// roost import, roost keys) show on the next request too.
func TestCachesFollowOtherProcesses(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "roost.db")
	open := func() *sqlite.Store { return storeengines.SQLite(t, path) }
	e := newEnv(t, engine{"sqlite", func(testing.TB) storeengines.Store { return open() }}, Config{}, fixture())
	other := open()
	key, id := e.key(t, 1_000_000, -1)
	timeline := fmt.Sprintf("/social/user/%d/tweets", alice)
	for range 2 {
		if w := e.do(call{path: timeline, key: key}); w.Code != http.StatusOK {
			t.Fatalf("timeline: %d %s", w.Code, w.Body)
		}
	}
	p := newPost(950)
	if _, err := other.Write(ctx, &social.Batch{Posts: []social.Post{p}}); err != nil {
		t.Fatal(err)
	}
	if got := firstID(t, e.do(call{path: timeline, key: key}).Body.Bytes()); got != "950" {
		t.Errorf("after another process's write the timeline starts with %s, want 950", got)
	}
	if err := other.Revoke(ctx, id); err != nil {
		t.Fatal(err)
	}
	if c := e.do(call{path: timeline, key: key}).Code; c != http.StatusUnauthorized {
		t.Errorf("after another process revoked the key: %d, want 401", c)
	}
}

// countingUpstream answers every fetch with a page naming its number.
type countingUpstream struct{ n int }

func (u *countingUpstream) Fetch(context.Context, UpstreamRequest) ([]byte, int, error) {
	u.n++
	return fmt.Appendf(nil, `{"tweets":[{"id_str":"%d"}],"next_cursor":null}`, u.n), 1, nil
}

// TestGatewayPagesNotCached: in gateway mode every page comes from the
// upstream (whose own cache decides), never from the page cache: a
// gateway's fills are not data writes of the counters' kind it could
// follow.
func TestGatewayPagesNotCached(t *testing.T) {
	up := &countingUpstream{}
	e := newEnv(t, engine{"sqlite", openSQLite}, Config{Upstream: up}, nil)
	key, _ := e.key(t, 1_000_000, -1)
	for i := 1; i <= 3; i++ {
		// Not through e.do: the upstream's stand-in pages are not the
		// API's shapes, which e.do checks against the document.
		r := httptest.NewRequest(http.MethodGet, "/social/user/1/tweets", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("gateway page: %d %s", w.Code, w.Body)
		}
		if got := firstID(t, w.Body.Bytes()); got != fmt.Sprint(i) {
			t.Errorf("request %d got upstream page %s: a page was served from the cache", i, got)
		}
	}
}
