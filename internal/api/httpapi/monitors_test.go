package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
)

// receiver is a webhook receiver in the test process: it keeps every
// request it accepts, and answers fail (a status) while fail is set.
type receiver struct {
	mu   sync.Mutex
	got  []delivered
	fail int
	srv  *httptest.Server
}

type delivered struct {
	path, id, event, sig string
	body                 []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if rc.fail != 0 {
			w.WriteHeader(rc.fail)
			return
		}
		rc.got = append(rc.got, delivered{path: r.URL.Path, id: r.Header.Get(monitor.HeaderEventID),
			event: r.Header.Get(monitor.HeaderEvent), sig: r.Header.Get(monitor.HeaderSignature), body: body})
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) failWith(status int) {
	rc.mu.Lock()
	rc.fail = status
	rc.mu.Unlock()
}

func (rc *receiver) all() []delivered {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivered(nil), rc.got...)
}

// monitorEnv is an env whose monitor service the test steps by hand.
func monitorEnv(t *testing.T, eng engine, opt monitor.Options) (*env, *monitor.Service) {
	t.Helper()
	return monitorEnvOf(t, eng, monitorWorld(0), opt)
}

// monitorEnvOf is an env over batch whose monitor service the test steps
// by hand.
func monitorEnvOf(t testing.TB, eng engine, batch *social.Batch, opt monitor.Options) (*env, *monitor.Service) {
	t.Helper()
	st := eng.open(t)
	if _, err := st.Write(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	opt.Registry = reg
	svc := newMonitors(st, opt)
	return &env{store: st, reg: reg, monitors: st.Monitors(),
		h: New(Config{Now: func() time.Time { return testNow }, Registry: reg, Monitors: svc}, st, nil, nil)}, svc
}

// newMonitors is a monitor service over st's monitors that allows private
// webhook targets and is not run: the test runs or steps it.
func newMonitors(st storeengines.Store, opt monitor.Options) *monitor.Service {
	opt.AllowPrivate = true
	return monitor.New(st.Monitors(), st, st, NewRenderer(st), opt, nil)
}

// Users of the monitor tests.
const (
	mAlice = 1001
	mBob   = 1002
	mCarol = 1003
)

// monitorWorld is three users (mAlice's location says which version) and
// one post each from step 0 on.
func monitorWorld(step int) *social.Batch {
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	b := &social.Batch{Users: []social.User{
		{ID: mAlice, ScreenName: "alice", Name: "Alice", Location: fmt.Sprint("city ", step), FollowersCount: 5, CreatedAt: t0},
		{ID: mBob, ScreenName: "bob", Name: "Bob", FollowersCount: 5000, CreatedAt: t0},
		{ID: mCarol, ScreenName: "carol", Name: "Carol", CreatedAt: t0},
	}}
	for i, u := range []int64{mAlice, mBob, mCarol} {
		id := int64(1_000_000*(step+1) + i)
		text := fmt.Sprintf("post %d of step %d https://t.co/x%d", i, step, step)
		link := social.URL{URL: fmt.Sprintf("https://t.co/x%d", step), ExpandedURL: fmt.Sprintf("https://pump.fun/coin%d", step),
			DisplayURL: "pump.fun/coin", Start: len(text) - 14, End: len(text)}
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: u, CreatedAt: t0.Add(time.Duration(step) * time.Hour),
			Text: text, Lang: "en", Entities: social.Entities{URLs: []social.URL{link}}})
	}
	return b
}

func mustCreate(t *testing.T, e *env, key, path, body string) string {
	t.Helper()
	w := e.do(call{method: http.MethodPost, path: path, key: key, body: body})
	if w.Code != http.StatusOK {
		t.Fatalf("POST %s %s: %d %s", path, body, w.Code, w.Body)
	}
	return decode[wire.MonitorBody](t, w).Data.ID
}

// step runs the service until nothing is left to dispatch or deliver.
func step(t *testing.T, svc *monitor.Service) {
	t.Helper()
	ctx := context.Background()
	for range 200 {
		n, err := svc.DispatchOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d, err := svc.DeliverDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && d == 0 {
			return
		}
	}
	t.Fatal("the service did not settle")
}

// TestMonitorsDeliver: every change reaches exactly the monitors that
// match it, signed with the key's secret (one changed byte fails the
// check), each delivered event charged once; an unchanged profile makes
// no event; another key can neither read, change nor delete a monitor.
func TestMonitorsDeliver(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{})
		rc := newReceiver(t)
		keyA, idA := e.key(t, 1_000_000, 0)
		keyB, _ := e.key(t, 1_000_000, 0)
		w := e.do(call{method: http.MethodPost, path: "/user/webhook", key: keyA, body: `{"url":"` + rc.srv.URL + `/a"}`})
		if w.Code != http.StatusOK {
			t.Fatalf("webhook: %d %s", w.Code, w.Body)
		}
		secret := decode[wire.Webhook](t, w).SigningSecret
		tweets := mustCreate(t, e, keyA, "/monitors/user-tweets", `{"user_id":"1001"}`)
		follows := mustCreate(t, e, keyA, "/twitter/monitors/user-following", `{"user_screen_name":"alice"}`)
		profile := mustCreate(t, e, keyA, "/social/monitors/user-profile", `{"user_id":1001}`)
		other := mustCreate(t, e, keyB, "/monitors/user-tweets", `{"user_id":1002,"webhook_url":"`+rc.srv.URL+`/b"}`)

		for _, c := range []call{{path: "/monitors/" + tweets}, {method: http.MethodPatch, path: "/monitors/" + tweets,
			body: `{"webhook_url":null}`}, {method: http.MethodDelete, path: "/monitors/" + tweets}} {
			c.key = keyB
			if w := e.do(c); w.Code != http.StatusNotFound {
				t.Errorf("key B %s %s: %d %s", c.method, c.path, w.Code, w.Body)
			}
		}
		if w := e.do(call{path: "/monitors?page=1", key: keyA}); w.Code != http.StatusOK ||
			decode[wire.MonitorsPage](t, w).Meta.ItemsCount != 3 {
			t.Errorf("list: %d %s", w.Code, w.Body)
		}

		// Step 1: every user posts, mAlice follows mCarol and moves.
		b := monitorWorld(1)
		b.Follows = []social.Follow{{FollowerID: mAlice, FolloweeID: mCarol, CreatedAt: testNow}, {FollowerID: mBob, FolloweeID: mCarol, CreatedAt: testNow}}
		if _, err := e.store.Write(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		// The same again changes nothing a monitor sees.
		if _, err := e.store.Write(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		step(t, svc)
		got := rc.all()
		want := map[string]string{ // path + event → monitor
			"/a new_tweet": tweets, "/a new_following": follows, "/a profile_update": profile, "/b new_tweet": other,
		}
		if len(got) != len(want) {
			t.Fatalf("%d deliveries, want %d: %+v", len(got), len(want), got)
		}
		for _, d := range got {
			var p struct {
				Event   string `json:"event"`
				EventID string `json:"event_id"`
				Data    struct {
					IDStr      string `json:"id_str"`
					ScreenName string `json:"screen_name"`
				} `json:"data"`
				Meta struct {
					MonitorID string `json:"monitor_id"`
				} `json:"meta"`
				Changes map[string]struct{ Before, After string } `json:"changes"`
			}
			if err := json.Unmarshal(d.body, &p); err != nil {
				t.Fatal(err)
			}
			if want[d.path+" "+p.Event] != p.Meta.MonitorID || p.EventID != d.id || p.Event != d.event {
				t.Errorf("delivery %s %s: %s", d.path, d.event, d.body)
			}
			switch p.Event {
			case monitor.EventNewTweet:
				if wantID := map[string]string{"/a": "2000000", "/b": "2000001"}[d.path]; p.Data.IDStr != wantID {
					t.Errorf("%s got post %s, want %s", d.path, p.Data.IDStr, wantID)
				}
			case monitor.EventNewFollowing:
				if p.Data.ScreenName != "carol" {
					t.Errorf("new_following of %s", p.Data.ScreenName)
				}
			case monitor.EventProfileUpdate:
				if c := p.Changes["location"]; len(p.Changes) != 1 || c.Before != "city 0" || c.After != "city 1" {
					t.Errorf("profile changes %+v", p.Changes)
				}
			}
			if d.path == "/a" {
				if !monitor.Verify(secret, d.body, d.sig) {
					t.Errorf("signature of %s does not verify", d.id)
				}
				changed := append([]byte(nil), d.body...)
				changed[len(changed)/2] ^= 1
				if monitor.Verify(secret, changed, d.sig) {
					t.Error("a changed byte still verifies")
				}
			}
		}
		var charged int
		ledger, err := e.store.Ledger(context.Background(), idA)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ledger {
			if l.Endpoint == monitor.EndpointEvent {
				charged++
				if l.Amount != billing.DefaultPrice {
					t.Errorf("event charged %d", l.Amount)
				}
			}
		}
		if charged != 3 {
			t.Errorf("key A charged for %d events, want 3", charged)
		}
		metrics := e.do(call{path: "/metrics"}).Body.String()
		for _, want := range []string{`roost_webhook_deliveries_total{outcome="delivered"} 4`,
			`roost_monitor_events_total{event="new_tweet"} 2`, "roost_webhook_delivery_seconds_count 4"} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		w = e.do(call{path: "/monitors/" + profile, key: keyA})
		det := decode[wire.MonitorDetailsBody](t, w)
		if det.Data.Events[monitor.EventDelivered] != 1 || len(det.Data.Deliveries) != 1 || det.Data.Deliveries[0].Status != 200 {
			t.Errorf("details: %s", w.Body)
		}
		// Delivered events are pruned after KeepEvents; the log stays.
		if err := e.monitors.Prune(context.Background(),
			time.Now().Add(monitor.KeepEvents)); err != nil {
			t.Fatal(err)
		}
		det = decode[wire.MonitorDetailsBody](t, e.do(call{path: "/monitors/" + profile, key: keyA}))
		if det.Data.Events[monitor.EventDelivered] != 0 || len(det.Data.Deliveries) != 1 {
			t.Errorf("after pruning: %+v", det.Data)
		}
		if w := e.do(call{method: http.MethodDelete, path: "/monitors/" + tweets, key: keyA}); w.Code != http.StatusOK {
			t.Errorf("delete: %d %s", w.Code, w.Body)
		}
		if w := e.do(call{path: "/monitors/" + tweets, key: keyA}); w.Code != http.StatusNotFound {
			t.Errorf("deleted monitor: %d", w.Code)
		}
	})
}

// TestMonitorsRetry: a receiver that is down for a while gets every event
// after it comes back, in order; one that keeps failing leaves the event
// dead after MaxAttempts (logged), and the monitor goes on with the next.
func TestMonitorsRetry(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{Backoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, MaxAttempts: 4})
		rc := newReceiver(t)
		key, _ := e.key(t, 1_000_000, 0)
		id := mustCreate(t, e, key, "/monitors/user-tweets", `{"user_screen_name":"@bob","webhook_url":"`+rc.srv.URL+`"}`)
		rc.failWith(http.StatusServiceUnavailable)
		for s := 1; s <= 3; s++ {
			if _, err := e.store.Write(context.Background(), monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		if _, err := svc.DispatchOnce(ctx); err != nil {
			t.Fatal(err)
		}
		for range 2 { // two failed attempts of the first event
			waitDeliver(t, svc)
		}
		rc.failWith(0)
		for range 20 {
			waitDeliver(t, svc)
		}
		var ids []string
		for _, d := range rc.all() {
			ids = append(ids, postOf(d.body))
		}
		if strings.Join(ids, ",") != "2000001,3000001,4000001" {
			t.Errorf("delivered %v, want the three posts in order", ids)
		}
		det := decode[wire.MonitorDetailsBody](t, e.do(call{path: "/monitors/" + id, key: key}))
		if len(det.Data.Deliveries) != 5 || det.Data.Deliveries[4].Status != 503 || det.Data.Deliveries[2].Attempt != 3 {
			t.Errorf("delivery log %+v", det.Data.Deliveries)
		}

		// Dead after MaxAttempts; the next event goes on.
		rc.failWith(http.StatusInternalServerError)
		for s := 4; s <= 5; s++ {
			if _, err := e.store.Write(ctx, monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
		}
		svc.DispatchOnce(ctx)
		for range 4 {
			waitDeliver(t, svc)
		}
		rc.failWith(0)
		for range 5 {
			waitDeliver(t, svc)
		}
		det = decode[wire.MonitorDetailsBody](t, e.do(call{path: "/monitors/" + id, key: key}))
		if ev := det.Data.Events; ev[monitor.EventDead] != 1 || ev[monitor.EventDelivered] != 4 || ev[monitor.EventPending] != 0 {
			t.Errorf("events %v, want 1 dead and 4 delivered", ev)
		}
	})
}

// postOf is the id_str of an event's data.
func postOf(body []byte) string {
	var p struct {
		Data struct {
			IDStr string `json:"id_str"`
		} `json:"data"`
	}
	json.Unmarshal(body, &p)
	return p.Data.IDStr
}

// waitDeliver waits out the longest backoff and delivers what is due.
func waitDeliver(t *testing.T, svc *monitor.Service) {
	t.Helper()
	time.Sleep(5 * time.Millisecond)
	if _, err := svc.DeliverDue(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestMonitorsPause: a key whose balance does not cover an event gets its
// monitors paused (nothing delivered or charged, the monitor kept); a
// top-up resumes them and the waiting events arrive.
func TestMonitorsPause(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{})
		rc := newReceiver(t)
		key, id := e.key(t, billing.DefaultPrice-1, 0)
		mid := mustCreate(t, e, key, "/monitors/user-tweets", `{"user_id":1001,"webhook_url":"`+rc.srv.URL+`"}`)
		ctx := context.Background()
		if _, err := e.store.Write(ctx, monitorWorld(1)); err != nil {
			t.Fatal(err)
		}
		step(t, svc)
		if n := len(rc.all()); n != 0 {
			t.Fatalf("%d deliveries without balance", n)
		}
		det := decode[wire.MonitorDetailsBody](t, e.do(call{path: "/monitors/" + mid, key: key}))
		if det.Data.Status != monitor.MonitorPaused || det.Data.Events[monitor.EventPending] != 1 {
			t.Fatalf("after an unpaid event: %+v", det.Data)
		}
		if n, _ := svc.Resume(ctx); n != 0 {
			t.Errorf("resumed %d monitors without a top-up", n)
		}
		if _, err := e.store.TopUp(ctx, id, 10*billing.DefaultPrice); err != nil {
			t.Fatal(err)
		}
		if n, err := svc.Resume(ctx); n != 1 || err != nil {
			t.Fatalf("resumed %d monitors after a top-up (%v)", n, err)
		}
		step(t, svc)
		if n := len(rc.all()); n != 1 {
			t.Errorf("%d deliveries after the top-up, want 1", n)
		}
		if b := e.balance(t, id); b != 11*billing.DefaultPrice-1-billing.DefaultPrice {
			t.Errorf("balance %d", b)
		}
	})
}

// TestMonitorsInvalid: bad monitor requests are 422 naming the field.
func TestMonitorsInvalid(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, _ := monitorEnv(t, eng, monitor.Options{})
		key, _ := e.key(t, 1000, 0)
		for _, c := range []struct{ path, body, field string }{
			{"/monitors/user-tweets", `{}`, "user_id"},
			{"/monitors/user-tweets", `{"user_id":"x"}`, "user_id"},
			{"/monitors/user-tweets", `{"user_id":99}`, "user_id"},
			{"/monitors/user-tweets", `{"user_id":1001,"webhook_url":"ftp://x"}`, "webhook_url"},
			{"/monitors/search-query", `{"query":"a"}`, "refresh_frequency"},
			{"/monitors/search-query", `{"query":"a","refresh_frequency":0}`, "refresh_frequency"},
			{"/monitors/search-query", `{"query":"(a","refresh_frequency":5}`, "query"},
			{"/user/webhook", `{}`, "url"},
			{"/user/webhook", `{"url":"javascript:alert(1)"}`, "url"},
		} {
			w := e.do(call{method: http.MethodPost, path: c.path, key: key, body: c.body})
			if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), c.field) {
				t.Errorf("POST %s %s: %d %s", c.path, c.body, w.Code, w.Body)
			}
		}
		if w := e.do(call{path: "/monitors/nope", key: key}); w.Code != http.StatusNotFound {
			t.Errorf("malformed id: %d", w.Code)
		}
		if w := e.do(call{method: http.MethodPut, path: "/monitors/01hx1r99s0nsqq1ffdhmyyqbfr", key: key}); w.Code != http.StatusMethodNotAllowed ||
			w.Header().Get("Allow") != "GET, PATCH, DELETE" {
			t.Errorf("PUT: %d %q", w.Code, w.Header().Get("Allow"))
		}
	})
}

// TestMonitorsSearch: a search-query monitor delivers the new posts that
// match it, once each; the pump.fun monitor only those of authors with at
// least 1000 followers.
func TestMonitorsSearch(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{})
		rc := newReceiver(t)
		key, _ := e.key(t, 1_000_000, 0)
		mustCreate(t, e, key, "/monitors/search-query", `{"query":"from:carol","refresh_frequency":1,"webhook_url":"`+rc.srv.URL+`/q"}`)
		mustCreate(t, e, key, "/monitors/search-pump-fun", `{"webhook_url":"`+rc.srv.URL+`/p"}`)
		ctx := context.Background()
		for s := 1; s <= 2; s++ {
			if _, err := e.store.Write(ctx, monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(1100 * time.Millisecond) // the monitors' first run is due a second after creation
		if n, err := svc.SearchOnce(ctx); n != 2 || err != nil {
			t.Fatalf("ran %d search monitors (%v)", n, err)
		}
		if n, _ := svc.SearchOnce(ctx); n != 0 {
			t.Errorf("ran %d monitors again at once", n)
		}
		step(t, svc)
		got := map[string][]string{}
		for _, d := range rc.all() {
			got[d.path] = append(got[d.path], postOf(d.body))
		}
		if q, p := strings.Join(got["/q"], ","), strings.Join(got["/p"], ","); q != "2000002,3000002" || p != "2000001,3000001" {
			t.Errorf("search deliveries: query %s, pump.fun %s", q, p)
		}
	})
}
