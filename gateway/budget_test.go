package gateway

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/postgres"
	"github.com/roostapi/roost/sqlstore"
	"github.com/roostapi/roost/storetest"
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
	st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
	defer st.Close()
	testBudget(t, up, []*front{newFront(t, up, st, Limit{Micros: 6_000})}, 6_000, "total")
}

// TestBudgetPostgres runs two replicas on one PostgreSQL schema under a
// total and a (smaller) daily budget.
func TestBudgetPostgres(t *testing.T) {
	up := sharedUpstream(t)
	url := storetest.FreshSchema(t, storetest.PostgresURL(t))
	var fronts []*front
	for range 2 {
		st, err := postgres.Open(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		fronts = append(fronts, newFront(t, up, st, Limit{Micros: 20_000}, Limit{Micros: 5_000, Daily: true}))
	}
	testBudget(t, up, fronts, 5_000, "day:"+testNow.Format("2006-01-02"))
}

// testBudget sends 32 users' requests at once, each for posts no other
// asks for, and checks that upstream billed no more than limit, exactly
// what the budget and the upstream ledger say, and that the rest were
// refused with the shared budget's 402.
func testBudget(t *testing.T, up *upstream, fronts []*front, limit int64, period string) {
	ctx := context.Background()
	var ids []string
	for _, page := range walk(t, up.h, up.key, userPath(up.sum.Examples.UserID, "tweets-and-replies")) {
		ids = append(ids, tweetIDs(t, page)...)
	}
	const users, perUser, batch = 32, 3, 1
	if len(ids) < users*perUser*batch {
		t.Fatalf("%d posts; the test needs %d", len(ids), users*perUser*batch)
	}
	keys := make([]string, users)
	for i := range keys {
		keys[i], _ = newKey(fronts[0].store, 1_000_000)
	}
	upBefore := balance(t, up.store, up.keyID)
	var mu sync.Mutex
	codes := map[int]int{}
	served := map[int]string{} // user → a body that was answered 200
	var wg sync.WaitGroup
	for u := range users {
		wg.Go(func() {
			f := fronts[u%len(fronts)]
			for r := range perUser {
				n := (u*perUser + r) * batch
				body := fmt.Sprintf(`{"ids":["%s"]}`, strings.Join(ids[n:n+batch], `","`))
				code, resp := do(f.h, keys[u], http.MethodPost, "/social/tweets-by-ids", body)
				if code == http.StatusUnprocessableEntity {
					t.Errorf("%s: %s", body, resp)
				}
				if code == http.StatusPaymentRequired && !strings.Contains(resp, MsgBudgetSpent) {
					t.Errorf("402 without the shared budget's message: %s", resp)
				}
				mu.Lock()
				codes[code]++
				if code == http.StatusOK {
					served[u] = body
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
	for u, body := range served {
		if code, resp := do(fronts[u%len(fronts)].h, keys[u], http.MethodPost, "/social/tweets-by-ids", body); code != http.StatusOK {
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
	want := []sqlstore.Budget{{Period: "total", Limit: 70}, {Period: "day:2026-11-26", Limit: 5}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("budgets %v, want %v", got, want)
	}
	if b := budgets(nil, testNow); len(b) != 0 {
		t.Fatalf("no limits: %v", b)
	}
}
