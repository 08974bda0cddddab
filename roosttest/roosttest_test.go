package roosttest_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/roosttest"
)

// TestParallel: parallel tests each get a world of their own: the same
// screen name is free in each, and a search sees only its own world's
// posts.
func TestParallel(t *testing.T) {
	var mu sync.Mutex
	urls := map[string]bool{}
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			srv := roosttest.New(t)
			mu.Lock()
			if urls[srv.URL] || urls[srv.AdminURL] {
				t.Errorf("address %s or %s served twice", srv.URL, srv.AdminURL)
			}
			urls[srv.URL], urls[srv.AdminURL] = true, true
			mu.Unlock()
			srv.CreateUser(roosttest.Fields{"screen_name": "zed"})
			text := fmt.Sprintf("world %d #parallel", i)
			for range i + 1 {
				srv.Post(roosttest.Fields{"author": "zed", "full_text": text})
			}
			page, err := srv.Client().Search(context.Background(), "#parallel", client.Latest, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != i+1 {
				t.Fatalf("%d posts, want %d", len(page.Items), i+1)
			}
			for _, p := range page.Items {
				if p.FullText != text {
					t.Errorf("a post of another world: %q", p.FullText)
				}
			}
		})
	}
}

// TestWorldControl: every method of the world control changes the world
// as the public API then shows it.
func TestWorldControl(t *testing.T) {
	eachEngine(t, func(t *testing.T, engine ...roosttest.Option) {
		t.Parallel()
		srv := roosttest.New(t, append(engine, roosttest.Fixtures("testdata/world.json"), roosttest.Credit(1_000_000))...)
		ctx := context.Background()
		c := srv.Client()
		alice, bob := srv.IDs.Users["alice"], srv.IDs.Users["bob"]
		if alice == 0 || bob == 0 || len(srv.IDs.PostIDs) != 2 {
			t.Fatalf("fixture ids %+v", srv.IDs)
		}
		b, err := c.Balance(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := b.Micros(); err != nil || m != 1_000_000 {
			t.Errorf("balance %d micro-USD, %v; want 1 USD", m, err)
		}
		if u := srv.PatchUser(alice, roosttest.Fields{"name": "Alice B", "followers_count": 50}); u.Name != "Alice B" ||
			u.FollowersCount != 50 {
			t.Errorf("patched user %+v", u)
		}
		hello := srv.IDs.Posts["hello"]
		if p := srv.PatchPost(hello, roosttest.Fields{"full_text": "changed #text"}); p.FullText != "changed #text" {
			t.Errorf("patched post %q", p.FullText)
		}
		if !srv.Like("bob", hello) || srv.Like("bob", hello) || !srv.Unlike("bob", hello) || srv.Unlike("bob", hello) {
			t.Error("like, like again, unlike, unlike again: want true, false, true, false")
		}
		if srv.Follow("bob", "alice") || !srv.Unfollow("bob", "alice") {
			t.Error("bob follows alice in the fixture: want a follow unchanged and an unfollow changed")
		}
		ids := srv.LoadFixtureJSON([]byte(`{"users": [{"screen_name": "carol"}],
			"posts": [{"ref": "c1", "author": "carol", "full_text": "@alice from a loaded fixture"}]}`))
		if ids.Users["carol"] == 0 || ids.Posts["c1"] == 0 {
			t.Fatalf("loaded ids %+v", ids)
		}
		srv.DeleteUser(ids.Users["carol"])
		if _, err := c.Tweet(ctx, ids.Posts["c1"]); status(err) != 404 {
			t.Errorf("a deleted user's post: %v, want 404", err)
		}
		if code, body := srv.Admin("POST", "/admin/world/posts", roosttest.Fields{"author": "nobody", "full_text": "x"}); code != 422 ||
			!strings.Contains(string(body), "nobody") {
			t.Errorf("a post by no one: %d %s, want 422 naming the author", code, body)
		}
	})
}

// TestRefusal: a change the server refuses fails the test with the
// server's message (New), or panics with it (Start).
func TestRefusal(t *testing.T) {
	rec := &recorder{TB: t}
	srv := roosttest.New(rec)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Post(roosttest.Fields{"author": "nobody", "full_text": "x"})
		t.Error("Post by no one returned")
	}()
	<-done
	if !strings.Contains(rec.msg, "POST /admin/world/posts: 422") || !strings.Contains(rec.msg, `"nobody"`) {
		t.Errorf("failure %q, want the status and the server's message", rec.msg)
	}

	started, err := roosttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer started.Close()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "404 Snapshot not found: nope") {
			t.Errorf("panic %v, want the server's 404", r)
		}
	}()
	started.Restore("nope")
}

// recorder is a testing.TB whose Fatalf records its message and ends the
// goroutine, as t.Fatalf does.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestClose: a closed server answers no more, and Close may be called
// again.
func TestClose(t *testing.T) {
	srv, err := roosttest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(srv.URL + "/readyz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/readyz: %v", err)
	} else {
		resp.Body.Close()
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if resp, err := http.Get(srv.URL + "/readyz"); err == nil {
		resp.Body.Close()
		t.Errorf("a closed server answered %d", resp.StatusCode)
	}
}
