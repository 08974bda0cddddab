package gateway

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest/engines"
)

func TestReclaimSQLite(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
	defer st.Close()
	testReclaim(t, st)
}

func TestReclaimPostgres(t *testing.T) { testReclaim(t, engines.Postgres(t)) }

// testReclaim: a reservation left by a crash (taken, never settled) holds
// the whole budget, so requests that need upstream get 402 with no
// upstream call, until it is older than HoldExpiry: then the next request
// releases it and is answered, and the budget counts only what upstream
// billed. A call that settles after its reservation was released still
// has its cost counted.
func testReclaim(t *testing.T, st gatewayStore) {
	ctx := context.Background()
	up := sharedUpstream(t)
	limit := Limit{Micros: 20 * DefaultPrice} // one timeline page
	f := newFront(t, up, st, limit)
	g := st.Gateway()
	period := budgets([]Limit{limit}, testNow)[0]
	if err := g.Reserve(ctx, "crashed", []ledger.Budget{period}, limit.Micros, testNow); err != nil {
		t.Fatal(err)
	}
	key, _ := newKey(st, 1_000_000)
	path := userPath(up.sum.Examples.UserID, "tweets")
	calls := up.calls.Load()
	for _, after := range []time.Duration{0, DefaultHoldExpiry - time.Minute} {
		now := testNow.Add(after)
		f.now.Store(&now)
		if code, body := get(f.h, key, path); code != http.StatusPaymentRequired {
			t.Fatalf("%v after the crash: %d %s; want 402 (the budget is held)", after, code, body)
		}
	}
	if n := up.calls.Load() - calls; n != 0 {
		t.Fatalf("%d upstream calls under a held budget", n)
	}
	now := testNow.Add(DefaultHoldExpiry + time.Second)
	f.now.Store(&now)
	if code, body := get(f.h, key, path); code != http.StatusOK {
		t.Fatalf("after the reservation expired: %d %s", code, body)
	}
	spent, reserved, err := g.Spent(ctx, period.Period)
	entries, lerr := g.UpstreamLedger(ctx)
	if err != nil || lerr != nil || len(entries) == 0 {
		t.Fatal(err, lerr, len(entries))
	}
	if last := entries[len(entries)-1]; spent != last.Micros || spent == 0 || reserved != 0 {
		t.Fatalf("spent %d reserved %d; the call cost %d", spent, reserved, last.Micros)
	}

	// A call outliving its reservation: released by Maintain, then settled.
	later := now.Add(time.Hour)
	slow := []ledger.Budget{{Period: "total:slow", Limit: 10_000}}
	if err := g.Reserve(ctx, "slow", slow, 1_000, now); err != nil {
		t.Fatal(err)
	}
	f.now.Store(&later)
	if err := f.gw.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if _, r, _ := g.Spent(ctx, "total:slow"); r != 0 {
		t.Fatalf("reserved %d after Maintain", r)
	}
	if err := g.Settle(ctx, "slow", slow, 700); err != nil {
		t.Fatal(err)
	}
	if s, r, _ := g.Spent(ctx, "total:slow"); s != 700 || r != 0 {
		t.Fatalf("after a late settle: spent %d reserved %d, want 700 and 0", s, r)
	}
	// A budget refusing part of a reservation releases the rest.
	small := ledger.Budget{Period: "day:test", Limit: 10}
	if err := g.Reserve(ctx, "big", []ledger.Budget{{Period: "total:test", Limit: 1_000}, small}, 500, now); err == nil {
		t.Fatal("a reservation past a budget was taken")
	}
	if _, r, _ := g.Spent(ctx, "total:test"); r != 0 {
		t.Fatalf("a refused reservation still holds %d", r)
	}
}

func TestPruneSQLite(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "gw.db"))
	defer st.Close()
	testPrune(t, st)
}

func TestPrunePostgres(t *testing.T) { testPrune(t, engines.Postgres(t)) }

// testPrune: Maintain deletes the cached pages older than CacheMaxAge and
// keeps the others; with no maximum age nothing is deleted. Fetched marks
// older than the tweet and profile freshness (an hour) are deleted.
func testPrune(t *testing.T, st gatewayStore) {
	ctx := context.Background()
	up := sharedUpstream(t)
	f := newFront(t, up, st)
	key, _ := newKey(st, 1_000_000)
	id := up.sum.Examples.UserID
	for i, tail := range []string{"tweets", "followers"} {
		now := testNow.Add(time.Duration(i) * 30 * time.Minute)
		f.now.Store(&now)
		if code, body := get(f.h, key, userPath(id, tail)); code != http.StatusOK {
			t.Fatal(code, body)
		}
	}
	routes := func() []string {
		var out []string
		err := st.Gateway().Read.Query(ctx, `SELECT route FROM gateway_pages ORDER BY fetched_at`, nil, func(r sqlstore.Rows) error {
			var s string
			err := r.Scan(&s)
			out = append(out, s)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	half := testNow.Add(30 * time.Minute)
	if fetchedRows(t, st, testNow) == 0 || fetchedRows(t, st, half) == 0 {
		t.Fatal("the fetched pages' posts and users are not marked")
	}
	now := testNow.Add(61 * time.Minute)
	f.now.Store(&now)
	if err := f.gw.Maintain(ctx); err != nil || len(routes()) != 2 {
		t.Fatalf("without a maximum age: %v %v", routes(), err)
	}
	if old, young := fetchedRows(t, st, testNow), fetchedRows(t, st, half); old != 0 || young == 0 {
		t.Fatalf("fetched marks after Maintain: %d older than an hour, %d younger", old, young)
	}
	f.gw.cfg.CacheMaxAge = time.Hour
	if err := f.gw.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := routes(); len(got) != 1 || got[0] != "followers" {
		t.Fatalf("after pruning pages older than an hour: %v, want [followers]", got)
	}
}
