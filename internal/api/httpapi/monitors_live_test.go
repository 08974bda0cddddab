package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
	"github.com/roostapi/roost/internal/world/live"
)

// TestMonitorsLiveRun: every event of a living-world run reaches exactly
// the monitors that match it — a new post, reply, quote or repost of a
// watched author, a new follow of a watched follower, a real change of a
// watched profile — and nothing else does.
func TestMonitorsLiveRun(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		ctx := context.Background()
		st := eng.open(t)
		if _, err := gen.Generate(ctx, st, gen.Config{Seed: 5, Users: 40, Posts: 400}, nil); err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		svc := newMonitors(st, monitor.Options{Registry: reg})
		e := &env{store: st, reg: reg, h: New(Config{Now: func() time.Time { return testNow }, Registry: reg, Monitors: svc}, st, nil, nil)}
		rc := newReceiver(t)
		key, _ := e.key(t, 1_000_000_000, 0)
		if w := e.do(call{method: http.MethodPost, path: "/user/webhook", key: key, body: `{"url":"` + rc.srv.URL + `"}`}); w.Code != http.StatusOK {
			t.Fatalf("webhook: %d %s", w.Code, w.Body)
		}
		all := storedUsers(t, st)
		slices.SortFunc(all, func(a, b social.User) int { return cmp.Compare(a.ID, b.ID) })
		// Every user's posts are watched; every other user's follows and
		// profile.
		monitors := map[string]string{} // kind/user → monitor id
		for i, u := range all {
			id := strconv.FormatInt(u.ID, 10)
			monitors["tweets/"+id] = mustCreate(t, e, key, "/monitors/user-tweets", `{"user_id":"`+id+`"}`)
			if i%2 == 0 {
				monitors["following/"+id] = mustCreate(t, e, key, "/monitors/user-following", `{"user_id":"`+id+`"}`)
				monitors["profile/"+id] = mustCreate(t, e, key, "/monitors/user-profile", `{"user_id":"`+id+`"}`)
			}
		}
		lw, err := live.Open(ctx, st.World(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		watched := func(u social.User) string {
			return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s", u.Name, u.ScreenName, u.Location, u.URL, u.Description, u.BannerURL, u.ImageURL)
		}
		var want []string // monitor id, event, id in the data
		kinds := map[string]int{}
		for range 160 {
			before := map[int64]string{}
			for _, u := range all {
				cur, err := st.User(ctx, u.ID)
				if err != nil {
					t.Fatal(err)
				}
				before[u.ID] = watched(cur)
			}
			ev, err := lw.Step(ctx)
			if err != nil {
				t.Fatal(err)
			}
			kinds[ev.Kind]++
			uid := strconv.FormatInt(ev.UserID, 10)
			switch ev.Kind {
			case live.KindPost, live.KindReply, live.KindQuote, live.KindRepost:
				if m, ok := monitors["tweets/"+uid]; ok {
					want = append(want, m+" new_tweet "+strconv.FormatInt(ev.PostID, 10))
				}
			case live.KindFollow:
				if m, ok := monitors["following/"+uid]; ok {
					want = append(want, m+" new_following "+strconv.FormatInt(ev.Target, 10))
				}
			case live.KindProfile:
				after, err := st.User(ctx, ev.UserID)
				if err != nil {
					t.Fatal(err)
				}
				if m, ok := monitors["profile/"+uid]; ok && watched(after) != before[ev.UserID] {
					want = append(want, m+" profile_update "+uid)
				}
			}
			step(t, svc)
		}
		var got []string
		for _, d := range rc.all() {
			var p struct {
				Event string `json:"event"`
				Data  struct {
					IDStr string `json:"id_str"`
				} `json:"data"`
				Meta struct {
					MonitorID string `json:"monitor_id"`
				} `json:"meta"`
			}
			if err := json.Unmarshal(d.body, &p); err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Meta.MonitorID+" "+p.Event+" "+p.Data.IDStr)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("deliveries differ from the run's matching events:\n got %d %v\nwant %d %v", len(got), got, len(want), want)
		}
		for _, k := range []string{live.KindPost, live.KindRepost, live.KindFollow, live.KindProfile} {
			if kinds[k] == 0 {
				t.Errorf("the run made no %s event (%v): the test would not see that kind", k, kinds)
			}
		}
		t.Logf("%d deliveries over %v", len(want), kinds)
		if len(want) < 100 {
			t.Errorf("only %d events expected: %v", len(want), kinds)
		}
	})
}

// storedUsers are a store's public, full users, by id.
func storedUsers(t *testing.T, st social.Store) []social.User {
	t.Helper()
	var out []social.User
	errEnough := errors.New("enough")
	err := st.(interface {
		Export(context.Context, func(*social.Batch) error) error
	}).Export(context.Background(), func(b *social.Batch) error {
		if len(b.Users) == 0 {
			return errEnough // users come first
		}
		for _, u := range b.Users {
			if !u.Stub && !u.Protected {
				out = append(out, u)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	return out
}
