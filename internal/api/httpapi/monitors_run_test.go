package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
)

// twoStores opens one database of eng twice, as two server processes do.
func twoStores(t *testing.T, eng string) (storeengines.Store, storeengines.Store) {
	t.Helper()
	ctx := context.Background()
	open := func(at string) storeengines.Store {
		if eng == "sqlite" {
			return storeengines.SQLite(t, at)
		}
		st, err := postgres.Open(ctx, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	at := filepath.Join(t.TempDir(), "two.db")
	if eng == "postgres" {
		at = storetest.FreshSchema(t, storetest.PostgresURL(t))
	}
	return open(at), open(at)
}

func runService(t *testing.T, st storeengines.Store, opt monitor.Options) *monitor.Service {
	t.Helper()
	svc := newMonitors(st, opt)
	runLoop(t, svc)
	return svc
}

// runLoop runs svc until the test ends.
func runLoop(t *testing.T, svc *monitor.Service) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); svc.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
}

// TestMonitorsTwoProcesses: two services on one database (two server
// processes) dispatch every change once and deliver every event, in order
// per monitor.
func TestMonitorsTwoProcesses(t *testing.T) {
	for _, eng := range []string{"sqlite", "postgres"} {
		t.Run(eng, func(t *testing.T) {
			a, b := twoStores(t, eng)
			ctx := context.Background()
			if _, err := a.Write(ctx, monitorWorld(0)); err != nil {
				t.Fatal(err)
			}
			e := &env{store: a}
			_, id := e.key(t, 1_000_000, 0)
			rc := newReceiver(t)
			svcA := runService(t, a, monitor.Options{Poll: 5 * time.Millisecond})
			runService(t, b, monitor.Options{Poll: 5 * time.Millisecond})
			for _, u := range []int64{mAlice, mBob} {
				hook := rc.srv.URL + "/" + map[int64]string{mAlice: "a", mBob: "b"}[u]
				if _, err := svcA.CreateUser(ctx, id, monitor.UserTweets, monitor.Target{UserID: u}, &hook); err != nil {
					t.Fatal(err)
				}
			}
			const steps = 30
			for s := 1; s <= steps; s++ {
				st := a
				if s%2 == 0 {
					st = b
				}
				if _, err := st.Write(ctx, monitorWorld(s)); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(30 * time.Second)
			for len(rc.all()) < 2*steps && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			time.Sleep(100 * time.Millisecond) // room for a duplicate to show
			seen := map[string]bool{}
			last := map[string]string{}
			for _, d := range rc.all() {
				if seen[d.id] {
					t.Errorf("event %s delivered twice without a crash", d.id)
				}
				seen[d.id] = true
				p := postOf(d.body)
				if len(p) < len(last[d.path]) || (len(p) == len(last[d.path]) && p <= last[d.path]) {
					t.Errorf("%s: post %s after %s", d.path, p, last[d.path])
				}
				last[d.path] = p
			}
			if len(seen) != 2*steps {
				t.Errorf("%d events delivered, want %d", len(seen), 2*steps)
			}
		})
	}
}

// TestMonitorsSlowReceiver: a receiver that does not answer holds one
// delivery slot; other monitors' events still arrive.
func TestMonitorsSlowReceiver(t *testing.T) {
	for _, eng := range []string{"sqlite", "postgres"} {
		t.Run(eng, func(t *testing.T) {
			st, _ := twoStores(t, eng)
			ctx := context.Background()
			if _, err := st.Write(ctx, monitorWorld(0)); err != nil {
				t.Fatal(err)
			}
			release := make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			defer free()
			slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				<-release
			}))
			defer slow.Close()
			defer free() // before slow.Close waits for its handler
			rc := newReceiver(t)
			svc := runService(t, st, monitor.Options{Workers: 2, Timeout: time.Minute})
			_, id := (&env{store: st}).key(t, 1_000_000, 0)
			if _, err := svc.CreateUser(ctx, id, monitor.UserTweets, monitor.Target{UserID: mAlice}, &slow.URL); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.CreateUser(ctx, id, monitor.UserTweets, monitor.Target{UserID: mBob}, &rc.srv.URL); err != nil {
				t.Fatal(err)
			}
			for s := 1; s <= 10; s++ {
				if _, err := st.Write(ctx, monitorWorld(s)); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(20 * time.Second)
			for len(rc.all()) < 10 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := len(rc.all()); n != 10 {
				t.Errorf("%d of bob's 10 events arrived while alice's receiver hung", n)
			}
		})
	}
}

// TestSearchMonitorOnTime: the service wakes when a search monitor is
// due, not at its next poll (an hour here, so that nothing else wakes
// it), and the runs keep the monitor's period: its next run stays a whole
// number of refreshes after its creation.
func TestSearchMonitorOnTime(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{Poll: time.Hour})
		rc := newReceiver(t)
		key, keyID := e.key(t, 1_000_000, 0)
		id := mustCreate(t, e, key, "/monitors/search-query", `{"query":"from:carol","refresh_frequency":1,"webhook_url":"`+rc.srv.URL+`/q"}`)
		runLoop(t, svc) // after the monitor is made: the first poll finds it
		for s := 1; s <= 2; s++ {
			if _, err := e.store.Write(context.Background(), monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(rc.all()) < s && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := len(rc.all()); n != s {
				t.Fatalf("after step %d: %d deliveries, want %d", s, n, s)
			}
		}
		m, err := svc.Get(context.Background(), keyID, id)
		if err != nil {
			t.Fatal(err)
		}
		if since := m.NextRunAt.Sub(m.CreatedAt); since < 2*time.Second || since%time.Second != 0 {
			t.Errorf("next run %v after creation, want a whole number of seconds, at least 2", since)
		}
	})
}

// TestRecordNext: recording a delivered event hands the deliverer the
// monitor's next event, due, on the lease it holds (another deliverer
// finds the monitor leased); a retry, a next event not due yet or none
// left releases the lease; events stay in order.
func TestRecordNext(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{})
		rc := newReceiver(t)
		key, _ := e.key(t, 1_000_000, 0)
		mustCreate(t, e, key, "/monitors/user-tweets", `{"user_id":1003,"webhook_url":"`+rc.srv.URL+`"}`)
		ctx := context.Background()
		for s := 1; s <= 3; s++ {
			if _, err := e.store.Write(ctx, monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.DispatchOnce(ctx); err != nil {
			t.Fatal(err)
		}
		ms := e.monitors
		now := time.Now().Add(time.Second)
		until := now.Add(time.Minute)
		due := func(at time.Time) []monitor.Outgoing {
			t.Helper()
			d, err := ms.Due(ctx, at, 10)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		first := due(now)
		if len(first) != 1 {
			t.Fatalf("%d events due, want the first of three", len(first))
		}
		if got, err := ms.Lease(ctx, &first[0], now, until); !got || err != nil {
			t.Fatalf("lease: %v %v", got, err)
		}
		attempt := func(o *monitor.Outgoing, state string, next time.Time, keep bool) *monitor.Outgoing {
			t.Helper()
			var u time.Time
			if keep {
				u = until
			}
			n, err := ms.RecordNext(ctx, monitor.Attempt{MonitorID: o.Monitor.ID, EventID: o.ID, Attempt: o.Attempts + 1,
				Status: 200, At: now}, state, next, now, u)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		second := attempt(&first[0], monitor.EventDelivered, now, true)
		if second == nil || second.ID <= first[0].ID {
			t.Fatalf("after the first: %+v, want the next event", second)
		}
		if d := due(now); len(d) != 0 {
			t.Errorf("another deliverer finds %d events of a leased monitor", len(d))
		}
		if got, _ := ms.Lease(ctx, &first[0], now, until); got {
			t.Error("a stale event leased the monitor again")
		}
		// A retry releases the monitor, and its later events wait for it.
		if n := attempt(second, monitor.EventPending, now.Add(time.Hour), true); n != nil {
			t.Errorf("a retry handed over event %d", n.ID)
		}
		if d := due(now); len(d) != 0 {
			t.Errorf("%d events due while the second waits for its retry", len(d))
		}
		retry := due(now.Add(2 * time.Hour))
		if len(retry) != 1 || retry[0].ID != second.ID {
			t.Fatalf("due after the backoff: %+v, want event %d", retry, second.ID)
		}
		if got, err := ms.Lease(ctx, &retry[0], now, until); !got || err != nil {
			t.Fatalf("lease after the backoff: %v %v", got, err)
		}
		third := attempt(&retry[0], monitor.EventDelivered, now, true)
		if third == nil || third.ID <= second.ID {
			t.Fatalf("after the second: %+v, want the third", third)
		}
		if n := attempt(third, monitor.EventDelivered, now, true); n != nil {
			t.Errorf("after the last: event %d", n.ID)
		}
		// Released: the monitor's next event (a new post) is due at once.
		if _, err := e.store.Write(ctx, monitorWorld(4)); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.DispatchOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if d := due(time.Now().Add(time.Second)); len(d) != 1 || d[0].ID <= third.ID {
			t.Errorf("after the last was recorded: %+v", d)
		}
	})
}

// gatedSearch holds each search until n are under way at once; a search
// still alone after a second fails.
type gatedSearch struct {
	social.Store
	n   int
	mu  sync.Mutex
	in  int
	all chan struct{}
}

func (g *gatedSearch) Search(ctx context.Context, q *search.Query, o social.Order, p social.PageReq) (social.Page[social.Post], error) {
	g.mu.Lock()
	if g.in++; g.in == g.n {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(time.Second):
		return social.Page[social.Post]{}, errors.New("the searches ran one at a time")
	}
	return g.Store.Search(ctx, q, o, p)
}

// TestSearchMonitorsAtOnce: search monitors due together run at once, not
// one after another.
func TestSearchMonitorsAtOnce(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, _ := monitorEnv(t, eng, monitor.Options{})
		_, keyID := e.key(t, 1_000_000, 0)
		gated := &gatedSearch{Store: e.store, n: 2, all: make(chan struct{})}
		svc := monitor.New(e.monitors, gated, e.store,
			NewRenderer(e.store), monitor.Options{AllowPrivate: true}, nil)
		ctx := context.Background()
		for _, q := range []string{"from:carol", "from:bob"} {
			if _, err := svc.CreateSearch(ctx, keyID, q, 1, nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.store.Write(ctx, monitorWorld(1)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // due a second after creation
		if n, err := svc.SearchOnce(ctx); n != 2 || err != nil {
			t.Errorf("%d of 2 search monitors ran (%v)", n, err)
		}
	})
}
