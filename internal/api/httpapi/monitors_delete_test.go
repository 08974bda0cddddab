package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// TestMonitorsDeletions: no monitor delivers a deleted post, also one
// deleted after its event was made (the event is dropped, not charged);
// a post deleted before its change is dispatched makes no event and holds
// nothing up; a user_profile monitor of a deleted account delivers one
// user_deleted event with the last profile it saw.
func TestMonitorsDeletions(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, svc := monitorEnv(t, eng, monitor.Options{})
		rc := newReceiver(t)
		key, id := e.key(t, 1_000_000, 0)
		hook := func(p string) string { return `"webhook_url":"` + rc.srv.URL + p + `"` }
		search := mustCreate(t, e, key, "/monitors/search-query", `{"query":"from:carol","refresh_frequency":1,`+hook("/q")+`}`)
		tweets := mustCreate(t, e, key, "/monitors/user-tweets", `{"user_id":"1001",`+hook("/t")+`}`)
		mustCreate(t, e, key, "/monitors/user-profile", `{"user_id":"1002",`+hook("/p")+`}`)
		ctx := context.Background()
		for s := 1; s <= 2; s++ {
			if _, err := e.store.Write(ctx, monitorWorld(s)); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(1100 * time.Millisecond) // the search monitor's first run is due a second after creation
		if n, err := svc.SearchOnce(ctx); n != 1 || err != nil {
			t.Fatalf("ran %d search monitors (%v)", n, err)
		}
		if _, err := svc.DispatchOnce(ctx); err != nil {
			t.Fatal(err)
		}
		// Events wait for carol's 2000002 and 3000002 and alice's 2000000
		// and 3000000; one of each goes, and bob.
		if _, err := e.store.Write(ctx, &social.Batch{DeletePosts: []int64{2000002, 3000000}, DeleteUsers: []int64{mBob}}); err != nil {
			t.Fatal(err)
		}
		// Alice's next post, deleted before its change is dispatched.
		if _, err := e.store.Write(ctx, monitorWorld(3)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.Write(ctx, &social.Batch{DeletePosts: []int64{4000000}}); err != nil {
			t.Fatal(err)
		}
		step(t, svc)
		got := map[string][]string{}
		var gone []byte
		for _, d := range rc.all() {
			if d.event == monitor.EventUserDeleted {
				gone = d.body
			}
			got[d.path] = append(got[d.path], d.event+" "+postOf(d.body))
		}
		if q := got["/q"]; !slices.Equal(q, []string{"new_tweet 3000002"}) {
			t.Errorf("search monitor delivered %v", q)
		}
		if tw := got["/t"]; !slices.Equal(tw, []string{"new_tweet 2000000"}) {
			t.Errorf("user_tweets monitor delivered %v", tw)
		}
		if p := got["/p"]; len(p) != 1 || gone == nil {
			t.Fatalf("user_profile monitor delivered %v", p)
		}
		var body struct {
			Event string            `json:"event"`
			Data  map[string]any    `json:"data"`
			Meta  map[string]string `json:"meta"`
		}
		if err := json.Unmarshal(gone, &body); err != nil {
			t.Fatal(err)
		}
		if body.Data["id_str"] != "1002" || body.Data["screen_name"] != "bob" || body.Meta["monitored_id_str"] != "1002" {
			t.Errorf("user_deleted body %s", gone)
		}
		for mid, want := range map[string]map[string]int64{search: {"delivered": 1, "dropped": 1}, tweets: {"delivered": 1, "dropped": 1}} {
			w := e.do(call{method: http.MethodGet, path: "/monitors/" + mid, key: key})
			det := decode[wire.MonitorDetailsBody](t, w)
			for st, n := range want {
				if det.Data.Events[st] != n {
					t.Errorf("monitor %s: events %v, want %v", mid, det.Data.Events, want)
				}
			}
			if d := det.Data.Deliveries; len(d) != 2 || d[0].Error == "" && d[1].Error == "" {
				t.Errorf("monitor %s: deliveries %+v", mid, d)
			}
		}
		// Three events delivered, three charged.
		if spent := 1_000_000 - e.balance(t, id); spent != 3*billing.DefaultPrice {
			t.Errorf("spent %d, want three events", spent)
		}
	})
}
