package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestBackendTerminations: while every connection of roost's pool is
// terminated (pg_terminate_backend) again and again under paid load, no
// request answers 500: a read whose connection died runs again on a fresh
// one, else the answer is 503 with Retry-After; every 200 is charged
// exactly once and nothing else is charged.
func TestBackendTerminations(t *testing.T) {
	base, err := url.Parse(storetest.FreshSchema(t, storetest.PostgresURL(t)))
	if err != nil {
		t.Fatal(err)
	}
	q := base.Query()
	app := "roost_terminated_" + q.Get("search_path")
	q.Set("application_name", app)
	base.RawQuery = q.Encode()
	ctx := context.Background()
	e := pgEnv(t, base.String())
	key, id := e.key(t, plenty, 0)

	killer, err := pgx.Connect(ctx, storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close(ctx)
	stop := make(chan struct{})
	var terminated atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			var n int64
			if err := killer.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name = $1`, app).Scan(&n); err != nil {
				t.Error(err)
				return
			}
			terminated.Add(n)
		}
	})
	requests := []call{
		{path: "/social/user/1/tweets", key: key},
		{path: "/social/search?query=hello", key: key},
		{path: "/social/user/1/followers", key: key},
		{method: http.MethodPost, path: "/social/tweets-by-ids", key: key, body: fmt.Sprintf(`{"ids":[%d,%d]}`, rootPost, replyPost)},
	}
	var mu sync.Mutex
	codes := map[int]int{}
	var paidItems int64
	deadline := time.Now().Add(3 * time.Second)
	for g := range 4 {
		wg.Go(func() {
			for i := g; time.Now().Before(deadline); i++ {
				w := e.do(requests[i%len(requests)])
				items := 0
				if w.Code == http.StatusOK {
					items = countItems(t, requests[i%len(requests)].path, w.Body.Bytes())
				}
				if w.Code == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After")
				}
				mu.Lock()
				codes[w.Code]++
				paidItems += int64(items)
				mu.Unlock()
			}
		})
	}
	time.Sleep(time.Until(deadline))
	close(stop)
	wg.Wait()
	t.Logf("answers %v; %d backends terminated", codes, terminated.Load())
	if terminated.Load() == 0 {
		t.Fatal("no backend was terminated")
	}
	if codes[http.StatusInternalServerError] != 0 {
		t.Errorf("%d answers were 500", codes[http.StatusInternalServerError])
	}
	for c := range codes {
		if c != http.StatusOK && c != http.StatusServiceUnavailable {
			t.Errorf("%d answers were %d", codes[c], c)
		}
	}
	if codes[http.StatusOK] == 0 {
		t.Errorf("no request was answered")
	}
	if spent, want := plenty-e.balance(t, id), billing.DefaultPrice*paidItems; spent != want {
		t.Errorf("charged %d micro-USD for %d items answered; want %d", spent, paidItems, want)
	}
}

// pgEnv is an env over a PostgreSQL store opened at u and filled with the
// fixture, without rate limits or the page cache; the store is closed
// when the test ends.
func pgEnv(t *testing.T, u string) *env {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Write(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	return &env{store: st, h: New(Config{Registry: reg, RateLimit: -1, PageCacheBytes: -1, Now: func() time.Time { return testNow }}, st, nil, nil), reg: reg}
}
