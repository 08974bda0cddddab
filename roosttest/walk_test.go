package roosttest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/roosttest"
)

// eachEngine runs test on each engine, given the options that pick it:
// SQLite (none), and PostgreSQL in a fresh schema of ROOST_TEST_POSTGRES
// (skipped when it is unset, failing under CI=true).
func eachEngine(t *testing.T, test func(t *testing.T, engine ...roosttest.Option)) {
	t.Run("sqlite", func(t *testing.T) { test(t) })
	t.Run("postgres", func(t *testing.T) { test(t, roosttest.Postgres(storetest.PostgresURL(t))) })
}

// TestWalk is docs/testing.md's walk: create a protected user and a post,
// see the post in search, delete it and see 404, receive a monitor's
// event for a new post, and restore the starting world.
func TestWalk(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine ...roosttest.Option) {
		t.Parallel()
		srv := roosttest.New(t, append(engine, roosttest.Fixtures("testdata/world.json"))...)
		ctx := context.Background()
		c := srv.Client()
		srv.Snapshot("start")

		zed := srv.CreateUser(roosttest.Fields{"screen_name": "zed", "protected": true})
		if !zed.Protected || zed.ScreenName != "zed" {
			t.Fatalf("created user: %+v", zed)
		}
		if _, err := c.UserTweets(ctx, zed.ID, ""); status(err) != 403 {
			t.Errorf("a protected user's posts: %v, want 403", err)
		}
		p := srv.Post(roosttest.Fields{"author": "alice", "full_text": "hello #fixture"})
		page, err := c.Search(ctx, "#fixture", client.Latest, "")
		if err != nil || len(page.Items) != 1 || page.Items[0].IDStr != p.IDStr {
			t.Fatalf("search #fixture: %d posts, %v; want post %d", len(page.Items), err, p.ID)
		}
		srv.DeletePost(p.ID)
		_, err = c.Tweet(ctx, p.ID)
		var ae *client.Error
		if !errors.As(err, &ae) || ae.Status != 404 || ae.Message != "Tweet not found" {
			t.Fatalf("the deleted post: %v, want 404 Tweet not found", err)
		}

		events := receiver(t)
		if _, err := c.CreateUserTweetsMonitor(ctx, client.UserMonitorRequest{UserScreenName: "alice",
			WebhookURL: &events.url}); err != nil {
			t.Fatal(err)
		}
		p2 := srv.Post(roosttest.Fields{"author": "alice", "full_text": "made after the monitor"})
		if ev := events.next(t); ev.Event != "new_tweet" || ev.Data.ID != p2.IDStr {
			t.Fatalf("event %+v, want new_tweet of %s", ev, p2.IDStr)
		}

		srv.Restore("start")
		if _, err := c.Tweet(ctx, p2.ID); status(err) != 404 {
			t.Errorf("a post made after the snapshot, after the restore: %v, want 404", err)
		}
		if _, err := c.Tweet(ctx, srv.IDs.Posts["hello"]); err != nil {
			t.Errorf("a fixture post after the restore: %v", err)
		}
		if _, err := c.User(ctx, "zed"); status(err) != 404 {
			t.Errorf("a user made after the snapshot, after the restore: %v, want 404", err)
		}
	})
}

// status is the HTTP status of a client's error (0: none).
func status(err error) int {
	var ae *client.Error
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// event is a webhook's body, as much as the tests read.
type event struct {
	Event string `json:"event"`
	Data  struct {
		ID string `json:"id_str"`
	} `json:"data"`
}

// hooks is a webhook receiver on a loopback port.
type hooks struct {
	url    string
	events chan event
}

// receiver starts a webhook receiver, stopped when t ends.
func receiver(t *testing.T) *hooks {
	h := &hooks{events: make(chan event, 16)}
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev event
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &ev); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		select {
		case h.events <- ev:
		default:
		}
	}))
	t.Cleanup(rs.Close)
	h.url = rs.URL + "/hook"
	return h
}

// next waits for the next event, at most 30 s.
func (h *hooks) next(t *testing.T) event {
	t.Helper()
	select {
	case ev := <-h.events:
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no webhook event within 30s")
		return event{}
	}
}
