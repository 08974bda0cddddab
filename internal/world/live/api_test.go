package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
)

// api is the API over a store, with a key.
type api struct {
	t   *testing.T
	srv *httptest.Server
	key string
	ctx context.Context
	s   store
	lw  *World
}

func newAPI(t *testing.T, s store) *api {
	ctx := context.Background()
	key, digest, prefix := billing.NewKey()
	if _, err := s.CreateKey(ctx, social.APIKey{Name: "live", Prefix: prefix, Digest: digest, CreatedAt: time.Now()}, 1000*billing.MicrosPerUSD); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{RateLimit: -1}, s, nil, nil))
	t.Cleanup(srv.Close)
	lw, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &api{t: t, srv: srv, key: key, ctx: ctx, s: s, lw: lw}
}

// get fetches path and decodes the JSON answer into v.
func (a *api) get(path string, v any) {
	a.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, a.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+a.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		a.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		a.t.Fatalf("GET %s: %v", path, err)
	}
}

type apiUser struct {
	ID             string `json:"id_str"`
	ScreenName     string `json:"screen_name"`
	FollowersCount int64  `json:"followers_count"`
	FriendsCount   int64  `json:"friends_count"`
}

type apiPage struct {
	Tweets []struct {
		ID string `json:"id_str"`
	} `json:"tweets"`
	Users []apiUser `json:"users"`
}

func (p apiPage) has(id int64) bool {
	s := strconv.FormatInt(id, 10)
	for _, t := range p.Tweets {
		if t.ID == s {
			return true
		}
	}
	for _, u := range p.Users {
		if u.ID == s {
			return true
		}
	}
	return false
}

func (a *api) user(id int64) apiUser {
	var u apiUser
	a.get(fmt.Sprintf("/twitter/user/%d", id), &u)
	return u
}

// next steps until a tick of kind whose actor (and target user) pass ok,
// and returns it with the users as the API served them before the tick.
func (a *api) next(kind string, ok func(Event) bool) (Event, apiUser, apiUser) {
	a.t.Helper()
	for range 2000 {
		_, ev, err := a.lw.make(a.ctx, a.lw.tick+1)
		if err != nil {
			a.t.Fatal(err)
		}
		var by, to apiUser
		if ev.Kind == kind && ok(ev) {
			by = a.user(ev.UserID)
			if kind == KindFollow || kind == KindUnfollow {
				to = a.user(ev.Target)
			}
		}
		got, err := a.lw.Step(a.ctx)
		if err != nil {
			a.t.Fatal(err)
		}
		if got != ev {
			a.t.Fatalf("tick %d made %+v, then %+v", ev.Tick, ev, got)
		}
		if by.ID != "" {
			return ev, by, to
		}
	}
	a.t.Fatalf("no %s event in 2000 ticks", kind)
	return Event{}, apiUser{}, apiUser{}
}

// public reports whether the user's timeline and from: search show them.
func (a *api) public(id int64) bool {
	u, err := a.s.User(a.ctx, id)
	return err == nil && !u.Protected && !u.ShadowBanned
}

// TestAPISeesTheLivingWorld: through the API, a user's timeline and search
// gain a new post, and the followers and counts move with follows and
// unfollows.
func TestAPISeesTheLivingWorld(t *testing.T) {
	s := openSQLite(t, generated(t))
	defer s.Close()
	a := newAPI(t, s)

	ev, by, _ := a.next(KindPost, func(ev Event) bool { return a.public(ev.UserID) })
	var pg apiPage
	a.get(fmt.Sprintf("/twitter/user/%d/tweets", ev.UserID), &pg)
	if !pg.has(ev.PostID) || pg.Tweets[0].ID != strconv.FormatInt(ev.PostID, 10) {
		t.Errorf("tick %d: the timeline of %d does not open with the new post %d: %+v", ev.Tick, ev.UserID, ev.PostID, pg.Tweets)
	}
	pg = apiPage{}
	a.get("/twitter/search?type=Latest&query="+url.QueryEscape("from:"+by.ScreenName), &pg)
	if !pg.has(ev.PostID) {
		t.Errorf("tick %d: search from:%s does not find the new post %d", ev.Tick, by.ScreenName, ev.PostID)
	}
	if a.user(ev.UserID).ID != by.ID {
		t.Fatal("user changed id")
	}

	for _, kind := range []string{KindFollow, KindUnfollow} {
		ev, by, to := a.next(kind, func(ev Event) bool { return a.public(ev.Target) })
		d := int64(1)
		if kind == KindUnfollow {
			d = -1
		}
		by2, to2 := a.user(ev.UserID), a.user(ev.Target)
		if by2.FriendsCount != by.FriendsCount+d || to2.FollowersCount != to.FollowersCount+d {
			t.Errorf("tick %d %s %d → %d: friends %d → %d, followers %d → %d", ev.Tick, kind, ev.UserID, ev.Target,
				by.FriendsCount, by2.FriendsCount, to.FollowersCount, to2.FollowersCount)
		}
		var check struct {
			Following bool `json:"is_following"`
		}
		a.get(fmt.Sprintf("/twitter/user/%d/following/%d", ev.UserID, ev.Target), &check)
		pg = apiPage{}
		a.get(fmt.Sprintf("/twitter/user/%d/followers", ev.Target), &pg)
		if check.Following != (d == 1) || pg.has(ev.UserID) != (d == 1) {
			t.Errorf("tick %d %s %d → %d: following check %v, listed among followers %v", ev.Tick, kind, ev.UserID, ev.Target,
				check.Following, pg.has(ev.UserID))
		}
	}
}
