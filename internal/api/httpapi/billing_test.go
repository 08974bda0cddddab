package httpapi

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roostapi/roost/internal/billing"
)

// TestConcurrentBilling: many clients on one key with a small balance
// never overspend, and what was served is exactly what was charged.
func TestConcurrentBilling(t *testing.T) { eachEngine(t, testConcurrentBilling) }

func testConcurrentBilling(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{RateLimit: -1}, fixture())
	const clients, credit = 32, 100_000 // 500 items at 200
	key, id := e.key(t, credit, 0)
	paths := []string{
		"/social/user/1/tweets",          // 20 items
		"/twitter/thread/101",            // 3
		"/social/list/9/tweets",          // 13
		"/social/search?query=community", // 20
		"/social/user/6/tweets",          // 0: free
	}
	var served, ok200, refused atomic.Int64 // ok200: paid responses
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := range 10 {
				w := e.do(call{path: paths[(c+i)%len(paths)], key: key})
				switch w.Code {
				case 200:
					var p page
					if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
						t.Error(err)
						return
					}
					if n := len(p.items()); n > 0 { // empty pages are free: no ledger row
						served.Add(int64(n))
						ok200.Add(1)
					}
				case 402:
					refused.Add(1)
				default:
					t.Errorf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
	wg.Wait()
	bal := e.balance(t, id)
	if bal < 0 {
		t.Fatalf("balance went negative: %d", bal)
	}
	if drop := credit - bal; drop != served.Load()*billing.DefaultPrice {
		t.Errorf("served %d items (%d micro-USD) but the balance dropped %d", served.Load(), served.Load()*billing.DefaultPrice, drop)
	}
	ledger, err := e.store.Ledger(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var debits, items int64
	reqIDs := map[string]bool{}
	for _, l := range ledger {
		if l.Kind == "debit" {
			debits += l.Amount
			items += int64(l.Items)
			if reqIDs[l.RequestID] {
				t.Errorf("request id %s charged twice", l.RequestID)
			}
			reqIDs[l.RequestID] = true
		}
	}
	if debits != credit-bal || items != served.Load() || int64(len(reqIDs)) != ok200.Load() {
		t.Errorf("ledger: %d micro-USD for %d items in %d rows; balance drop %d, served %d in %d responses",
			debits, items, len(reqIDs), credit-bal, served.Load(), ok200.Load())
	}
	if refused.Load() == 0 {
		t.Errorf("no request was refused: the test did not exhaust the balance")
	}
	t.Logf("%d responses served %d items, %d refused with 402, balance left %s USD",
		ok200.Load(), served.Load(), refused.Load(), billing.FormatUSD(bal))
}
