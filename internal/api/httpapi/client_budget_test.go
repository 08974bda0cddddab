package httpapi

import (
	"errors"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/billing"
)

// TestClientBudgetConcurrent: 32 goroutines walk searches and timelines
// through one client with a spend budget against roost, until the budget
// refuses: the client never spends more than its budget, and what roost
// charged the key is exactly what the client counted.
func TestClientBudgetConcurrent(t *testing.T) { eachEngine(t, testClientBudgetConcurrent) }

func testClientBudgetConcurrent(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	key, keyID := e.key(t, plenty, 0)
	before := e.balance(t, keyID)
	const limit = 150 * 20 * billing.DefaultPrice // 150 full pages
	c, err := client.New(srv.URL, key, client.WithBudget(limit, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			for {
				var walk func(yield func(client.Tweet, error) bool)
				switch i % 3 {
				case 0:
					walk = c.SearchAll(ctx, "the", client.Latest)
				case 1:
					walk = c.UserTweetsAndRepliesAll(ctx, sum.Examples.UserID)
				default:
					walk = c.SearchAll(ctx, "include:nativeretweets the", client.Top)
				}
				for _, err := range walk {
					if errors.Is(err, client.ErrBudget) {
						return
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	charged := before - e.balance(t, keyID)
	if spent := c.Spent(); spent > limit || charged != spent {
		t.Fatalf("budget %d micro-USD: the client counted %d, roost charged %d", limit, spent, charged)
	}
	if charged < limit/2 {
		t.Fatalf("roost charged %d of a budget of %d: the walks stopped early, the test no longer tells", charged, limit)
	}
}
