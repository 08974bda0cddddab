package importer

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// recorder is a social.Writer that keeps the latest copy of everything
// written, with the store's merge rules (a stub never replaces a profile).
type recorder struct {
	mu      sync.Mutex
	writes  int
	posts   map[int64]social.Post
	users   map[int64]social.User
	follows map[[2]int64]social.Follow
	reposts map[[2]int64]social.Repost
	lists   map[int64]social.List
	comms   map[int64]social.Community
	members map[[2]int64]social.ListMember
	likes   map[[2]int64]social.Like
	spaces  map[string]social.Space
	deleted map[int64]bool // posts deleted (Batch.DeletePosts)
}

func newRecorder() *recorder {
	return &recorder{posts: map[int64]social.Post{}, users: map[int64]social.User{},
		follows: map[[2]int64]social.Follow{}, reposts: map[[2]int64]social.Repost{},
		lists: map[int64]social.List{}, comms: map[int64]social.Community{},
		members: map[[2]int64]social.ListMember{}, likes: map[[2]int64]social.Like{},
		spaces: map[string]social.Space{}, deleted: map[int64]bool{}}
}

func (r *recorder) Write(_ context.Context, b *social.Batch) (social.WriteStats, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes++
	var st social.WriteStats
	for _, u := range b.Users {
		old, ok := r.users[u.ID]
		switch {
		case !ok:
			st.UsersInserted++
			r.users[u.ID] = u
		case u.Stub:
		default:
			if old != u {
				st.UsersUpdated++
			}
			r.users[u.ID] = u
		}
	}
	for _, p := range b.Posts {
		old, ok := r.posts[p.ID]
		if !ok {
			st.PostsInserted++
		} else {
			if p.Views == nil {
				p.Views = old.Views
			}
			st.PostsUpdated++
		}
		r.posts[p.ID] = p
	}
	for _, f := range b.Follows {
		r.follows[[2]int64{f.FollowerID, f.FolloweeID}] = f
	}
	for _, x := range b.Reposts {
		r.reposts[[2]int64{x.PostID, x.UserID}] = x
	}
	for _, l := range b.Lists {
		r.lists[l.ID] = l
	}
	for _, c := range b.Communities {
		r.comms[c.ID] = c
	}
	for _, m := range b.ListMembers {
		r.members[[2]int64{m.ListID, m.UserID}] = m
	}
	for _, l := range b.Likes {
		r.likes[[2]int64{l.PostID, l.UserID}] = l
	}
	for _, s := range b.Spaces {
		r.spaces[s.ID] = s
	}
	for _, id := range b.DeletePosts {
		r.deleted[id] = true
	}
	return st, nil
}

// shared returns the path of a file in the shared test data, skipping the
// test when it is absent (failing under CI=true).
func shared(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "..", "shared", "testdata", rel)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared test data missing under CI: %v", err)
		}
		t.Skipf("shared test data not present (%v); it sits beside the checkout in CI", err)
	}
	return p
}

// importInto imports files into rec and fails the test on an error.
func importInto(t testing.TB, rec *recorder, opt Options, files ...string) Summary {
	t.Helper()
	sum, err := Import(context.Background(), rec, files, opt)
	if err != nil {
		t.Fatalf("import %v: %v\n%s", files, err, sum)
	}
	return sum
}
