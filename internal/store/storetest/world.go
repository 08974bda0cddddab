package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/world"
)

// testUnfollows checks Batch.Unfollows: the edges go in the batch's
// transaction, readers stop listing them, and the counts are the users'
// as written with them.
func testUnfollows(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	u := func(id int64, followers, friends int64) social.User {
		return social.User{ID: id, ScreenName: "u" + string(rune('a'+id)), Name: "U", FollowersCount: followers,
			FriendsCount: friends, CreatedAt: at(0)}
	}
	mustWrite(t, s, &social.Batch{
		Users: []social.User{u(1, 0, 2), u(2, 1, 1), u(3, 2, 0)},
		Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: at(1)}, {FollowerID: 1, FolloweeID: 3, CreatedAt: at(2)},
			{FollowerID: 2, FolloweeID: 3, CreatedAt: at(3)}},
	})
	mustWrite(t, s, &social.Batch{
		Users:     []social.User{u(1, 0, 1), u(2, 0, 1)},
		Unfollows: []social.Follow{{FollowerID: 1, FolloweeID: 2}, {FollowerID: 3, FolloweeID: 1}},
	})
	follows := func(a, b int64) bool {
		t.Helper()
		ok, err := s.Follows(ctx, a, b)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if follows(1, 2) || !follows(1, 3) || !follows(2, 3) {
		t.Errorf("after unfollowing 1→2: follows 1→2 %v, 1→3 %v, 2→3 %v; want false, true, true", follows(1, 2), follows(1, 3), follows(2, 3))
	}
	pg, err := s.Followers(ctx, 2, social.PageReq{Limit: 10})
	if err != nil || len(pg.Items) != 0 {
		t.Errorf("followers of 2 = %v, %v; want none", userIDs(pg.Items), err)
	}
	pg, err = s.Following(ctx, 1, social.PageReq{Limit: 10})
	if err != nil || !slices.Equal(userIDs(pg.Items), []int64{3}) {
		t.Errorf("following of 1 = %v, %v; want [3]", userIDs(pg.Items), err)
	}
	if got := checkUser(t, s, 1, "ub", "U", false); got.FriendsCount != 1 {
		t.Errorf("user 1 friends %d, want 1 (as written)", got.FriendsCount)
	}
	if got := checkUser(t, s, 2, "uc", "U", false); got.FollowersCount != 0 {
		t.Errorf("user 2 followers %d, want 0 (as written)", got.FollowersCount)
	}
	// A pair unfollowed and followed in one batch ends followed.
	mustWrite(t, s, &social.Batch{
		Unfollows: []social.Follow{{FollowerID: 2, FolloweeID: 3}, {FollowerID: 3, FolloweeID: 2}},
		Follows:   []social.Follow{{FollowerID: 3, FolloweeID: 2, CreatedAt: at(4)}},
	})
	if follows(2, 3) || !follows(3, 2) {
		t.Errorf("follows 2→3 %v, 3→2 %v after one batch unfollowing both and following 3→2; want false, true", follows(2, 3), follows(3, 2))
	}
	counts, err := s.Counts(ctx)
	if err != nil || counts["follows"] != 2 {
		t.Errorf("follows counted %d, %v; want 2", counts["follows"], err)
	}
}

// testWorld checks the world row: the seed, the live tick advanced only in
// order and in the batch's transaction, the clock's start, and the reads
// a tick is made from.
func testWorld(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	w := s.World()
	st, err := w.State(ctx)
	if err != nil || st != (world.State{}) {
		t.Fatalf("a new database's world: %+v, %v; want zero", st, err)
	}
	if err := w.SetSeed(ctx, -42); err != nil {
		t.Fatal(err)
	}
	if base, err := w.StartClock(ctx, 1000); err != nil || base != 1000 {
		t.Errorf("StartClock(1000) = %d, %v; want 1000", base, err)
	}
	if base, err := w.StartClock(ctx, 2000); err != nil || base != 1000 {
		t.Errorf("StartClock(2000) after 1000 = %d, %v; want 1000 (started once)", base, err)
	}
	mustWrite(t, s, fixture())
	// Tick 1, then a tick out of order that must leave nothing behind.
	mustWrite(t, s, &social.Batch{LiveTick: 1, Follows: []social.Follow{{FollowerID: 10, FolloweeID: 20, CreatedAt: at(1)}}})
	for _, tick := range []int64{1, 3} {
		_, err := s.Write(ctx, &social.Batch{LiveTick: tick,
			Follows:   []social.Follow{{FollowerID: 30, FolloweeID: 20, CreatedAt: at(2)}},
			Unfollows: []social.Follow{{FollowerID: 10, FolloweeID: 20}}})
		if !errors.Is(err, social.ErrConflict) {
			t.Errorf("tick %d after tick 1: %v, want ErrConflict", tick, err)
		}
	}
	if ok, _ := s.Follows(ctx, 30, 20); ok {
		t.Error("a refused tick's follow was written")
	}
	if ok, _ := s.Follows(ctx, 10, 20); !ok {
		t.Error("a refused tick's unfollow was written")
	}
	mustWrite(t, s, &social.Batch{LiveTick: 2})
	st, err = w.State(ctx)
	if want := (world.State{Seed: -42, Seeded: true, Tick: 2, BaseMS: 1000}); err != nil || st != want {
		t.Errorf("world %+v, %v; want %+v", st, err, want)
	}

	// DeleteFollows says which edges it deleted (the write path's changes).
	gone, err := sqlstore.DeleteFollows(ctx, w.Write, []social.Follow{{FollowerID: bob, FolloweeID: alice}, {FollowerID: alice, FolloweeID: dave}})
	if err != nil || len(gone) != 1 || gone[0].FollowerID != bob || gone[0].FolloweeID != alice || !gone[0].CreatedAt.Equal(at(1)) {
		t.Errorf("DeleteFollows(bob→alice, alice→dave) = %+v, %v; want bob→alice of %v alone", gone, err, at(1))
	}

	put := world.State{Seed: 9, Seeded: true, Tick: 40, BaseMS: 5000}
	if err := w.Put(ctx, put); err != nil {
		t.Fatal(err)
	}
	if st, err = w.State(ctx); err != nil || st != put {
		t.Errorf("after Put(%+v): %+v, %v", put, st, err)
	}
	if err := w.Put(ctx, world.State{}); err != nil {
		t.Fatal(err)
	}
	if st, err = w.State(ctx); err != nil || st != (world.State{}) {
		t.Errorf("after Put of the zero state: %+v, %v", st, err)
	}

	ids, err := w.UserIDs(ctx)
	if err != nil || !slices.Equal(ids, []int64{alice, bob, carol, erin}) {
		t.Errorf("UserIDs = %v, %v; want the four full profiles [1 2 3 5] (the stub left out)", ids, err)
	}
	refs, err := w.RecentPosts(ctx, 3)
	if err != nil || len(refs) != 3 {
		t.Fatalf("RecentPosts(3) = %v, %v", refs, err)
	}
	all := fixture().Posts
	slices.SortFunc(all, func(a, b social.Post) int { return int(a.ID - b.ID) })
	for i, r := range refs {
		p := all[len(all)-3+i]
		if r != (world.PostRef{ID: p.ID, AuthorID: p.AuthorID, RepostOfID: p.RepostOfID}) {
			t.Errorf("RecentPosts[%d] = %+v, want post %d by %d (repost of %d)", i, r, p.ID, p.AuthorID, p.RepostOfID)
		}
	}
	l := fixture().Likes[0]
	if ok, err := w.Liked(ctx, l.PostID, l.UserID); err != nil || !ok {
		t.Errorf("Liked(%d, %d) = %v, %v; want true", l.PostID, l.UserID, ok, err)
	}
	if ok, err := w.Liked(ctx, l.PostID, 999); err != nil || ok {
		t.Errorf("Liked(%d, 999) = %v, %v; want false", l.PostID, ok, err)
	}
}
