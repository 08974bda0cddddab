package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
)

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]Limit{"10/day": {10_000_000, true}, "100": {100_000_000, false}, "0.5": {500_000, false}} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "10/week", "ten", "10/"} {
		if _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q): no error", bad)
		}
	}
}

func TestParseFresh(t *testing.T) {
	m := map[string]time.Duration{}
	if err := ParseFresh("search=90s, profile=2h", m); err != nil || m[ClassSearch].Seconds() != 90 || m[ClassProfile].Hours() != 2 {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"nope=1s", "search", "search=soon", "search=-1s"} {
		if err := ParseFresh(bad, m); err == nil {
			t.Errorf("ParseFresh(%q): no error", bad)
		}
	}
}

func TestBudgetSQLite(t *testing.T) {
	up := sharedUpstream(t)
	for _, tc := range budgetCases(t, up) {
		t.Run(tc.name, func(t *testing.T) {
			st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
			defer st.Close()
			testBudget(t, up, []*front{newFront(t, up, st, Limit{Micros: tc.limit})}, tc.limit, "total", tc.reqs)
		})
	}
}

// TestBudgetPostgres runs two replicas on one PostgreSQL schema under a
// total and a (smaller) daily budget.
func TestBudgetPostgres(t *testing.T) {
	up := sharedUpstream(t)
	base := storetest.PostgresURL(t)
	for _, tc := range budgetCases(t, up) {
		t.Run(tc.name, func(t *testing.T) {
			dsn := storetest.FreshSchema(t, base)
			var fronts []*front
			for range 2 {
				st, err := postgres.Open(context.Background(), dsn, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				fronts = append(fronts, newFront(t, up, st, Limit{Micros: 4 * tc.limit}, Limit{Micros: tc.limit, Daily: true}))
			}
			testBudget(t, up, fronts, tc.limit, "day:"+testNow.Format("2006-01-02"), tc.reqs)
		})
	}
}

// budgetReq is one request of testBudget.
type budgetReq struct{ method, path, body string }

// budgetCase is a budget and the requests sent against it.
type budgetCase struct {
	name  string
	limit int64
	reqs  []budgetReq
}

// budgetCases are one-id tweets-by-ids batches, each for a post no other
// asks for, and community pages asked for by cursor, each led by the
// community's pinned post: 21 items, one more than the route's page size
// (upstream bills them all). The second budget is two such pages' worth
// at the page size, so a gateway reserving only the page size lets
// upstream bill past it.
func budgetCases(t *testing.T, up *upstream) []budgetCase {
	t.Helper()
	var ids []string
	for _, page := range walk(t, up.h, up.key, userPath(up.sum.Examples.UserID, "tweets-and-replies")) {
		ids = append(ids, tweetIDs(t, page)...)
	}
	byIDs := budgetCase{name: "tweets by ids", limit: 6_000}
	for _, id := range ids {
		byIDs.reqs = append(byIDs.reqs, budgetReq{http.MethodPost, "/social/tweets-by-ids", fmt.Sprintf(`{"ids":["%s"]}`, id)})
	}
	pinned := budgetCase{name: "community pages with a pinned post", limit: 2 * 20 * DefaultPrice}
	for _, order := range []string{"Latest", "Top"} {
		path := fmt.Sprintf("/social/community/%d/tweets?type=%s", up.sum.Examples.CommunityID, order)
		pages := walk(t, up.h, up.key, path)
		for i := 1; i < len(pages); i++ {
			if len(tweetIDs(t, pages[i])) == 21 {
				pinned.reqs = append(pinned.reqs, budgetReq{http.MethodGet, path + "&cursor=" + url.QueryEscape(nextCursor(t, pages[i-1])), ""})
			}
		}
	}
	if len(byIDs.reqs) < budgetUsers*budgetPerUser || len(pinned.reqs) < 3 {
		t.Fatalf("%d posts and %d community pages of 21 posts; the test needs %d and 3", len(byIDs.reqs), len(pinned.reqs),
			budgetUsers*budgetPerUser)
	}
	return []budgetCase{byIDs, pinned}
}

// nextCursor is a page's next_cursor.
func nextCursor(t *testing.T, body string) string {
	t.Helper()
	var env struct {
		NextCursor string `json:"next_cursor"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil || env.NextCursor == "" {
		t.Fatalf("no next_cursor (%v) in %.200s", err, body)
	}
	return env.NextCursor
}

// How many users testBudget runs at once, and how many requests each sends.
const budgetUsers, budgetPerUser = 32, 3

// testBudget sends budgetUsers users' requests at once, request i of them
// all being reqs[i % len(reqs)], and checks that upstream billed no more
// than limit, exactly what the budget and the upstream ledger say, and
// that the rest were refused with the shared budget's 402.
func testBudget(t *testing.T, up *upstream, fronts []*front, limit int64, period string, reqs []budgetReq) {
	ctx := context.Background()
	const users, perUser = budgetUsers, budgetPerUser
	keys := make([]string, users)
	for i := range keys {
		keys[i], _ = newKey(fronts[0].store, 1_000_000)
	}
	upBefore := balance(t, up.store, up.keyID)
	var mu sync.Mutex
	codes := map[int]int{}
	served := map[int]budgetReq{} // user → a request that was answered 200
	var wg sync.WaitGroup
	for u := range users {
		wg.Go(func() {
			f := fronts[u%len(fronts)]
			for r := range perUser {
				req := reqs[(u*perUser+r)%len(reqs)]
				code, resp := do(f.h, keys[u], req.method, req.path, req.body)
				if code == http.StatusUnprocessableEntity {
					t.Errorf("%s %s: %s", req.path, req.body, resp)
				}
				if code == http.StatusPaymentRequired && !strings.Contains(resp, MsgBudgetSpent) {
					t.Errorf("402 without the shared budget's message: %s", resp)
				}
				mu.Lock()
				codes[code]++
				if code == http.StatusOK {
					served[u] = req
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	billed := upBefore - balance(t, up.store, up.keyID)
	if codes[http.StatusOK] == 0 || codes[http.StatusPaymentRequired] == 0 || codes[200]+codes[402] != users*perUser {
		t.Fatalf("answers %v; want some 200s and the rest 402", codes)
	}
	if billed > limit || billed == 0 {
		t.Fatalf("upstream billed %d micro-USD under a budget of %d", billed, limit)
	}
	g := fronts[0].store.Gateway()
	spent, reserved, err := g.Spent(ctx, period)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := g.UpstreamLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var logged int64
	for _, e := range entries {
		logged += e.Micros
	}
	for _, f := range fronts {
		if l := f.logs.String(); l != "" {
			t.Errorf("the gateway logged errors:\n%s", l)
		}
	}
	if spent != billed || reserved != 0 || logged != billed || len(entries) != users*perUser {
		t.Fatalf("budget %s: spent %d reserved %d, ledger %d in %d rows; upstream billed %d", period, spent, reserved, logged, len(entries), billed)
	}
	// Past the budget, cached pages still serve, with no upstream call.
	calls := up.calls.Load()
	for u, req := range served {
		if code, resp := do(fronts[u%len(fronts)].h, keys[u], req.method, req.path, req.body); code != http.StatusOK {
			t.Fatalf("a cached page past the budget: %d %s", code, resp)
		}
	}
	if n := up.calls.Load() - calls; n != 0 {
		t.Fatalf("%d upstream calls for cached pages", n)
	}
	for _, q := range []string{`UPDATE upstream_ledger SET upstream_micro_usd = 0`, `DELETE FROM upstream_ledger`} {
		if err := g.Write.Query(ctx, q, nil, func(sqlstore.Rows) error { return nil }); err == nil {
			t.Fatalf("%s: no error; the upstream ledger is append-only", q)
		}
	}
	t.Logf("answers %v, upstream billed %d of %d micro-USD", codes, billed, limit)
}

// TestBudgets: the smallest limit of each kind applies; a daily budget is
// its UTC day's own.
func TestBudgets(t *testing.T) {
	limits := []Limit{{Micros: 9, Daily: true}, {Micros: 100}, {Micros: 5, Daily: true}, {Micros: 70}}
	got := budgets(limits, time.Date(2026, 11, 25, 23, 30, 0, 0, time.FixedZone("", -3600)))
	want := []ledger.Budget{{Period: "total", Limit: 70}, {Period: "day:2026-11-26", Limit: 5}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("budgets %v, want %v", got, want)
	}
	if b := budgets(nil, testNow); len(b) != 0 {
		t.Fatalf("no limits: %v", b)
	}
}

// TestCountsWhatUpstreamBilled: an upstream page larger than the route's
// largest (upstream's doing: 25 posts on a page of 20) is counted in full
// in the budget and the upstream ledger, as upstream billed it.
func TestCountsWhatUpstreamBilled(t *testing.T) {
	const items = 25
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts := make([]string, items)
		for i := range posts {
			posts[i] = fmt.Sprintf(`{"id_str":"%d"}`, i+1)
		}
		fmt.Fprintf(w, `{"next_cursor":null,"tweets":[%s]}`, strings.Join(posts, ","))
	}))
	defer srv.Close()
	c, err := client.New(srv.URL, "upstream-key")
	if err != nil {
		t.Fatal(err)
	}
	st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
	defer st.Close()
	clock := func() time.Time { return testNow }
	gw := New(Config{Client: c, Store: st.Gateway(), Writer: st, Limits: []Limit{{Micros: 1_000_000}}, Now: clock})
	h := httpapi.New(httpapi.Config{RateLimit: -1, Now: clock, Upstream: gw}, st, nil, nil)
	key, _ := newKey(st, 1_000_000)
	if code, body := get(h, key, userPath(42, "tweets")); code != http.StatusOK {
		t.Fatalf("%d %s", code, body)
	}
	ctx := context.Background()
	spent, reserved, err := st.Gateway().Spent(ctx, "total")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := st.Gateway().UpstreamLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const want = items * DefaultPrice
	if spent != want || reserved != 0 || len(entries) != 1 || entries[0].Micros != want {
		t.Fatalf("spent %d reserved %d, ledger %+v; upstream billed %d", spent, reserved, entries, want)
	}
}
