package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// TestWriteRefresh: a stored post or user written again with only its
// counts changed (what a like, reply or follow of the living world
// writes) leaves the index rows of its unchanged columns alone, so its
// commit writes fewer pages than one that moves them; copies of a post in
// one batch still end as the last one.
func TestWriteRefresh(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	const authors, perAuthor = 300, 10
	b := &social.Batch{}
	for a := int64(1); a <= authors; a++ {
		b.Users = append(b.Users, social.User{ID: a, ScreenName: fmt.Sprintf("user%d", a), CreatedAt: t0})
	}
	for i := int64(0); i < authors*perAuthor; i++ {
		id := 1000 + i
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1 + i%authors, CreatedAt: t0.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("post number %d", i), ConversationID: id})
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	stored := func(id int64) social.Post {
		t.Helper()
		ps, err := s.Posts(ctx, []int64{id})
		if err != nil || len(ps) != 1 {
			t.Fatal(ps, err)
		}
		return ps[0]
	}
	user := func(id int64) social.User {
		t.Helper()
		u, err := s.User(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	// pages writes one batch and counts the pages its commit wrote to
	// the log, started over before it.
	pages := func(b *social.Batch) int {
		t.Helper()
		restartLog(t, s)
		if _, err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		return logFrames(t, s)
	}
	// A like: the post's and the liker's counts, then the same on another
	// post and user, each moving a column of an index besides (the
	// conversation, the screen name). Moving those rewrites their own
	// index rows; a write that rewrote every index of the row besides
	// would add its author's rows, or write the screen name's page.
	p, q := stored(1000+authors*perAuthor/3), stored(1000+authors*perAuthor*2/3)
	p.FavoriteCount++
	q.FavoriteCount++
	q.ConversationID = 1000
	if counts, moved := pages(&social.Batch{Posts: []social.Post{p}}), pages(&social.Batch{Posts: []social.Post{q}}); counts+2 > moved {
		t.Errorf("a write of a post's counts wrote %d pages, one moving its conversation %d: "+
			"the counts rewrote index rows of columns they do not change", counts, moved)
	}
	u, v := user(7), user(211)
	u.FavouritesCount++
	v.FavouritesCount++
	v.ScreenName = "renamed"
	if counts, moved := pages(&social.Batch{Users: []social.User{u}}), pages(&social.Batch{Users: []social.User{v}}); counts+1 > moved {
		t.Errorf("a write of a user's counts wrote %d pages, one renaming the user %d: "+
			"the counts rewrote the screen name's index row", counts, moved)
	}
	if got := stored(p.ID); got.FavoriteCount != p.FavoriteCount || got.AuthorID != p.AuthorID || got.Text != p.Text {
		t.Fatalf("liked post %+v", got)
	}
	if got := stored(q.ID); got.ConversationID != 1000 || got.FavoriteCount != q.FavoriteCount {
		t.Fatalf("moved post %+v", got)
	}
	if got := user(v.ID); got.ScreenName != "renamed" || got.FavouritesCount != v.FavouritesCount {
		t.Fatalf("renamed user %+v", got)
	}
	if got, err := s.UserByScreenName(ctx, "renamed"); err != nil || got.ID != v.ID {
		t.Fatal(got, err)
	}

	// Copies of one post and one user in a batch, in both orders of a
	// refresh and a move: the last copy wins.
	for _, refreshFirst := range []bool{true, false} {
		p := stored(1000 + 5)
		a, c := p, p
		a.ReplyCount, c.ReplyCount = 40, 41
		u := user(9)
		x, y := u, u
		x.FollowersCount, y.FollowersCount = 50, 51
		if refreshFirst {
			c.ConversationID, y.ScreenName = 1001, "second"
		} else {
			a.ConversationID, x.ScreenName = 1002, "first"
			c.ConversationID, y.ScreenName = 1002, "first"
		}
		if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{a, c}, Users: []social.User{x, y}}); err != nil {
			t.Fatal(err)
		}
		if got := stored(p.ID); got.ReplyCount != 41 || got.ConversationID != c.ConversationID {
			t.Fatalf("refresh first %v: post %+v", refreshFirst, got)
		}
		if got := user(u.ID); got.FollowersCount != 51 || got.ScreenName != y.ScreenName {
			t.Fatalf("refresh first %v: user %+v", refreshFirst, got)
		}
		th, err := s.Thread(ctx, c.ConversationID, social.PageReq{Limit: 30})
		if err != nil || !hasPost(th.Items, p.ID) {
			t.Fatalf("refresh first %v: thread %d %+v %v", refreshFirst, c.ConversationID, th.Items, err)
		}
	}
}

// restartLog copies the store's write-ahead log into the database and
// makes the next write start it over.
func restartLog(t *testing.T, s *Store) {
	t.Helper()
	var busy, frames, copied int
	if err := s.write.QueryRow(`PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &frames, &copied); err != nil || busy != 0 {
		t.Fatalf("restart the log: busy %d, %v", busy, err)
	}
}

// logFrames is the number of frames in the store's write-ahead log.
func logFrames(t *testing.T, s *Store) int {
	t.Helper()
	var busy, frames, copied int
	if err := s.write.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	return frames
}

func hasPost(ps []social.Post, id int64) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}
