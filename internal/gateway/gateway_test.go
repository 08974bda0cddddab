package gateway

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/roostapi/roost/internal/api/httpapi"
)

// TestWalkMatchesUpstream walks timelines, a search and a relation through
// the gateway and directly, and finds the same pages; with upstream
// failing every other call (500s and 429s) the client's retries keep the
// walk exact.
func TestWalkMatchesUpstream(t *testing.T) {
	up := sharedUpstream(t)
	paths := []string{
		userPath(up.sum.Examples.UserID, "tweets"),
		userPath(up.sum.Examples.UserID, "followers"),
		"/social/search?query=" + url.QueryEscape("from:"+up.sum.Examples.Username),
	}
	for _, flaky := range []bool{false, true} {
		f := newFront(t, up, openSQLite(t, filepath.Join(t.TempDir(), "gw.db")))
		defer f.store.Close()
		key, _ := newKey(f.store, 1000*1_000_000)
		if flaky {
			fail := func(n int64) int {
				switch n % 4 {
				case 1:
					return http.StatusInternalServerError
				case 3:
					return http.StatusTooManyRequests
				}
				return 0
			}
			up.fail.Store(&fail)
		}
		for _, p := range paths {
			want := walk(t, up.h, up.key, p)
			got := walk(t, f.h, key, p)
			if len(want) < 2 && !strings.Contains(p, "search") {
				t.Fatalf("%s: %d pages; the walk needs more than one", p, len(want))
			}
			if len(got) != len(want) {
				t.Fatalf("flaky=%v %s: %d pages through the gateway, %d upstream", flaky, p, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("flaky=%v %s page %d differs:\n got %.300s\nwant %.300s", flaky, p, i, got[i], want[i])
				}
			}
		}
		up.fail.Store(nil)
	}
}

// TestOneUpstreamCall sends 50 identical requests at once while upstream
// holds its answer: one upstream call serves them all.
func TestOneUpstreamCall(t *testing.T) {
	up := sharedUpstream(t)
	f := newFront(t, up, openSQLite(t, filepath.Join(t.TempDir(), "gw.db")))
	defer f.store.Close()
	key, _ := newKey(f.store, 1000*1_000_000)
	release := make(chan struct{})
	hold := func(int64) int { <-release; return 0 }
	up.fail.Store(&hold)
	before := up.calls.Load()
	path := userPath(up.sum.Examples.UserID, "tweets")
	var wg sync.WaitGroup
	codes := make([]int, 50)
	for i := range codes {
		wg.Go(func() { codes[i], _ = get(f.h, key, path) })
	}
	// Every request has missed the cache (and so waits in the one call)
	// before upstream answers.
	for counter(t, f.reg, "roost_gateway_cache_total", map[string]string{"result": "miss"}) < 50 {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	up.fail.Store(nil)
	for i, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("request %d: %d", i, c)
		}
	}
	if n := up.calls.Load() - before; n != 1 {
		t.Fatalf("%d upstream calls for 50 identical requests, want 1", n)
	}
	entries, err := f.store.Gateway().UpstreamLedger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	charged := 0
	for _, e := range entries {
		if e.Micros > 0 {
			charged++
		}
	}
	if len(entries) != 50 || charged != 1 {
		t.Fatalf("upstream ledger: %d entries, %d with a cost; want 50 and 1", len(entries), charged)
	}
}

// TestUpstreamFailures: an upstream that keeps failing is a 500 that
// costs the caller nothing and is in the upstream ledger; upstream's 404
// is passed on, free; its 402 is the shared budget running out.
func TestUpstreamFailures(t *testing.T) {
	up := sharedUpstream(t)
	f := newFront(t, up, openSQLite(t, filepath.Join(t.TempDir(), "gw.db")))
	defer f.store.Close()
	key, id := newKey(f.store, 1_000_000)
	fail := func(int64) int { return http.StatusBadGateway }
	up.fail.Store(&fail)
	code, body := get(f.h, key, userPath(up.sum.Examples.UserID, "tweets"))
	up.fail.Store(nil)
	if code != http.StatusInternalServerError || !strings.Contains(body, "Failed to fetch data from Twitter") {
		t.Fatalf("failing upstream: %d %s", code, body)
	}
	code, body = get(f.h, key, "/social/user/999999999/tweets")
	if code != http.StatusNotFound || !strings.Contains(body, `"Not found"`) {
		t.Fatalf("missing user: %d %s", code, body)
	}
	if b := balance(t, f.store, id); b != 1_000_000 {
		t.Fatalf("balance %d after failures, want 1000000", b)
	}
	entries, err := f.store.Gateway().UpstreamLedger(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Status != 500 || entries[0].Micros != 0 || entries[1].Status != 404 {
		t.Fatalf("upstream ledger %+v", entries)
	}
	// An upstream key without credit: upstream answers 402.
	poor, _ := newKey(up.store, 0)
	f2 := newFrontKey(t, up, poor, f.store)
	code, body = get(f2.h, key, userPath(up.sum.Examples.UserID, "tweets-and-replies"))
	if code != http.StatusPaymentRequired || !strings.Contains(body, MsgBudgetSpent) {
		t.Fatalf("upstream 402: %d %s", code, body)
	}
}

// TestRestartAndStale: a reopened store serves its cache with no upstream
// call; a page older than its class's freshness is fetched again; the
// fetched posts are found by local search.
func TestRestartAndStale(t *testing.T) {
	up := sharedUpstream(t)
	path := filepath.Join(t.TempDir(), "gw.db")
	f := newFront(t, up, openSQLite(t, path))
	key, _ := newKey(f.store, 1000*1_000_000)
	page := userPath(up.sum.Examples.UserID, "tweets")
	code, first := get(f.h, key, page)
	if code != http.StatusOK {
		t.Fatalf("%d %s", code, first)
	}
	f.store.Close()

	f = newFront(t, up, openSQLite(t, path))
	defer f.store.Close()
	before := up.calls.Load()
	if code, again := get(f.h, key, page); code != http.StatusOK || again != first {
		t.Fatalf("after a restart: %d, same page %v", code, again == first)
	}
	if n := up.calls.Load() - before; n != 0 {
		t.Fatalf("%d upstream calls after a restart, want 0", n)
	}
	later := testNow.Add(DefaultFresh[ClassTimeline] + 1)
	f.now.Store(&later)
	if code, _ := get(f.h, key, page); code != http.StatusOK {
		t.Fatal(code)
	}
	if n := up.calls.Load() - before; n != 1 {
		t.Fatalf("%d upstream calls for a stale page, want 1", n)
	}

	hits := counter(t, f.reg, "roost_gateway_cache_total", map[string]string{"route": "user_tweets", "result": "hit"})
	misses := counter(t, f.reg, "roost_gateway_cache_total", map[string]string{"route": "user_tweets", "result": "miss"})
	calls := counter(t, f.reg, "roost_gateway_upstream_calls_total", map[string]string{"route": "user_tweets", "outcome": "ok"})
	spend := counter(t, f.reg, "roost_gateway_upstream_micro_usd_total", map[string]string{"route": "user_tweets"})
	if hits != 1 || misses != 1 || calls != 1 || spend != float64(200*len(tweetIDs(t, first))) {
		t.Fatalf("metrics: %v hits, %v misses, %v calls, %v micro-USD", hits, misses, calls, spend)
	}

	// The research endpoints answer from the database in gateway mode:
	// the hosted service has none of them.
	before = up.calls.Load()
	code, counts := get(f.h, key, "/social/search/counts?granularity=day&query="+url.QueryEscape("from:"+up.sum.Examples.Username))
	if code != http.StatusOK || up.calls.Load() != before {
		t.Fatalf("counts through the gateway: %d %s, %d upstream calls", code, counts, up.calls.Load()-before)
	}

	local := httpapi.New(httpapi.Config{RateLimit: -1}, f.store, nil, nil)
	code, found := get(local, key, "/social/search?query="+url.QueryEscape("from:"+up.sum.Examples.Username))
	if code != http.StatusOK {
		t.Fatalf("local search: %d %s", code, found)
	}
	fetched := map[string]bool{}
	for _, id := range tweetIDs(t, first) {
		fetched[id] = true
	}
	got := tweetIDs(t, found)
	if len(got) == 0 {
		t.Fatalf("local search after a fetch found nothing: %s", found)
	}
	for _, id := range got {
		if !fetched[id] {
			t.Fatalf("local search found %s, not in the fetched page", id)
		}
	}
}

// TestValidation: a bad id is refused before upstream; a cursor is not
// checked but passed upstream verbatim (here upstream, a roost, refuses
// it and its 422 is passed on, free).
func TestValidation(t *testing.T) {
	up := sharedUpstream(t)
	f := newFront(t, up, openSQLite(t, filepath.Join(t.TempDir(), "gw.db")))
	defer f.store.Close()
	key, id := newKey(f.store, 1_000_000)
	before := up.calls.Load()
	if code, body := get(f.h, key, "/social/user/abc/tweets"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "user_id") {
		t.Fatalf("bad id: %d %s", code, body)
	}
	if code, body := do(f.h, key, http.MethodPost, "/social/tweets-by-ids", `{"ids":[]}`); code != http.StatusUnprocessableEntity {
		t.Fatalf("empty ids: %d %s", code, body)
	}
	if n := up.calls.Load() - before; n != 0 {
		t.Fatalf("%d upstream calls for invalid requests", n)
	}
	code, body := get(f.h, key, userPath(up.sum.Examples.UserID, "tweets")+"?cursor=upstreams-own")
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Invalid cursor") || up.calls.Load()-before != 1 {
		t.Fatalf("foreign cursor: %d %s after %d upstream calls", code, body, up.calls.Load()-before)
	}
	if b := balance(t, f.store, id); b != 1_000_000 {
		t.Fatalf("balance %d", b)
	}
}

// TestProfileStored: a profile fetched alone (GET /user/{id}) is stored,
// as the users of every other page are.
func TestProfileStored(t *testing.T) {
	up := sharedUpstream(t)
	f := newFront(t, up, openSQLite(t, filepath.Join(t.TempDir(), "gw.db")))
	defer f.store.Close()
	key, _ := newKey(f.store, 1_000_000)
	id := up.sum.Examples.UserID
	if code, body := get(f.h, key, "/social/user/"+strconv.FormatInt(id, 10)); code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	u, err := f.store.User(context.Background(), id)
	if err != nil || u.ScreenName != up.sum.Examples.Username || u.Stub {
		t.Fatalf("the fetched profile is not stored: %+v %v", u, err)
	}
}
