package gen

import (
	"context"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// world is the final state of a recorded run: the last copy of each keyed
// value, and every relation.
type world struct {
	users       map[int64]social.User
	userOrder   []int64
	posts       map[int64]social.Post
	postOrder   []int64 // in write order
	follows     []social.Follow
	reposts     []social.Repost
	affs        []social.Affiliation
	highlights  []social.Highlight
	lists       map[int64]social.List
	listMembers []social.ListMember
	listSubs    []social.ListSubscriber
	comms       map[int64]social.Community
	commMembers []social.CommunityMember
	likes       []social.Like
	spaces      []social.Space
	batches     int
	dupPosts    int // posts written more than once
	bioChanges  int // later copies of a user with another extended bio
}

func buildWorld(t testing.TB, cfg Config) (*world, Summary) {
	t.Helper()
	w, sum, err := recordWorld(cfg)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	return w, sum
}

// recordWorld generates cfg into a recorder and merges the batches.
func recordWorld(cfg Config) (*world, Summary, error) {
	rec := newRecorder(true)
	sum, err := Generate(context.Background(), rec, cfg, nil)
	if err != nil {
		return nil, sum, err
	}
	w := &world{users: map[int64]social.User{}, posts: map[int64]social.Post{}, lists: map[int64]social.List{}, comms: map[int64]social.Community{}}
	for _, b := range rec.batches {
		w.batches++
		for _, u := range b.Users {
			if old, ok := w.users[u.ID]; !ok {
				w.userOrder = append(w.userOrder, u.ID)
			} else if old.ExtendedBio != u.ExtendedBio {
				w.bioChanges++
			}
			w.users[u.ID] = u
		}
		for _, p := range b.Posts {
			if _, ok := w.posts[p.ID]; ok {
				w.dupPosts++
			}
			w.posts[p.ID] = p
			w.postOrder = append(w.postOrder, p.ID)
		}
		for _, l := range b.Lists {
			w.lists[l.ID] = l
		}
		for _, c := range b.Communities {
			w.comms[c.ID] = c
		}
		w.follows = append(w.follows, b.Follows...)
		w.reposts = append(w.reposts, b.Reposts...)
		w.affs = append(w.affs, b.Affiliations...)
		w.highlights = append(w.highlights, b.Highlights...)
		w.listMembers = append(w.listMembers, b.ListMembers...)
		w.listSubs = append(w.listSubs, b.ListSubscribers...)
		w.commMembers = append(w.commMembers, b.CommunityMembers...)
		w.likes = append(w.likes, b.Likes...)
		w.spaces = append(w.spaces, b.Spaces...)
	}
	return w, sum, nil
}
