package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// testLikesSpacesBios checks likes, audio spaces and extended bios: each
// read back as written, a rewrite replaces (a like's time, a space and its
// whole roster, a profile's bio), and writing twice changes nothing.
func testLikesSpacesBios(t *testing.T, open Opener) {
	t.Run("RoundTrip", func(t *testing.T) {
		s, ctx := withFixture(t, open)
		for range 2 { // the second write of the fixture changes nothing
			checkLikes(t, s, 101, []int64{erin, bob})
			checkLikes(t, s, 106, []int64{carol, bob})
			checkLikes(t, s, 999, nil)
			checkLiked(t, s, bob, []int64{106, 101})
			checkLiked(t, s, alice, []int64{102})
			checkLiked(t, s, dave, nil)
			for _, want := range fixture().Spaces {
				checkSpace(t, s, want)
			}
			_, err := s.Space(ctx, "1nothingHere0")
			wantErr(t, "Space(unknown)", err, social.ErrNotFound)
			u, err := s.User(ctx, alice)
			if err != nil || u.ExtendedBio != fixture().Users[0].ExtendedBio {
				t.Errorf("alice's extended bio: %q, %v", u.ExtendedBio, err)
			}
			if u, err := s.User(ctx, bob); err != nil || u.ExtendedBio != "" {
				t.Errorf("bob's extended bio: %q, %v", u.ExtendedBio, err)
			}
			mustWrite(t, s, fixture())
		}
		c, err := s.Counts(ctx)
		if err != nil || c["likes"] != 5 || c["spaces"] != 2 {
			t.Errorf("counts after writing the fixture twice: %v, %v", c, err)
		}
	})

	t.Run("Rewrites", func(t *testing.T) {
		s, ctx := withFixture(t, open)
		// A later copy of a like replaces its time, also within a batch.
		mustWrite(t, s, &social.Batch{Likes: []social.Like{
			{PostID: 101, UserID: bob, CreatedAt: at(800)},
			{PostID: 101, UserID: bob, CreatedAt: at(900)},
			{PostID: 106, UserID: carol, CreatedAt: at(300)},
		}})
		checkLikes(t, s, 101, []int64{bob, erin})
		checkLikes(t, s, 106, []int64{bob, carol})
		checkLiked(t, s, bob, []int64{101, 106})

		// A space written again replaces its fields and its whole roster;
		// within a batch the last copy wins.
		sp := fixture().Spaces[0]
		first, last := sp, sp
		first.Title, first.Speakers = "first", []int64{alice, bob, carol, dave, erin}
		last.State, last.Title, last.Listeners, last.Replay = social.SpaceRunning, "again", 3, false
		last.EndedAt = time.Time{}
		last.Admins, last.Speakers = []int64{alice}, []int64{erin}
		mustWrite(t, s, &social.Batch{Spaces: []social.Space{first, last}})
		checkSpace(t, s, last)
		last.Speakers = nil
		mustWrite(t, s, &social.Batch{Spaces: []social.Space{last}})
		checkSpace(t, s, last)
		checkSpace(t, s, fixture().Spaces[1])

		// A stub never touches a bio; a full profile replaces it, and an
		// empty one erases it, as it erases any other profile field.
		mustWrite(t, s, &social.Batch{Users: []social.User{{ID: alice, ScreenName: "other", Stub: true}}})
		a := fixture().Users[0]
		checkBio(t, s, alice, a.ExtendedBio)
		a.ExtendedBio = "one paragraph\ntwo\n\nfour"
		mustWrite(t, s, &social.Batch{Users: []social.User{a}})
		checkBio(t, s, alice, a.ExtendedBio)
		a.ExtendedBio = ""
		mustWrite(t, s, &social.Batch{Users: []social.User{a}})
		checkBio(t, s, alice, "")
		_ = ctx
	})

	t.Run("LargeBatch", func(t *testing.T) {
		// Enough rows for the engines' bulk paths (COPY), with duplicates.
		s := open(t)
		ctx := ctxFor(t)
		b := &social.Batch{}
		for i := int64(1); i <= 100; i++ {
			b.Users = append(b.Users, social.User{ID: i, ScreenName: fmt.Sprintf("u%d", i), ExtendedBio: fmt.Sprintf("bio %d\nmore", i)})
			b.Posts = append(b.Posts, social.Post{ID: 1000 + i, AuthorID: i, CreatedAt: at(int(i)), Text: "p"})
		}
		// Post 1001+r is liked by users 1+(13k+r)%100, k = 0…5, at minute
		// 100k+r; the first 50 likes come again, later.
		for i := int64(0); i < 600; i++ {
			b.Likes = append(b.Likes, social.Like{PostID: 1001 + i%100, UserID: 1 + (i/100*13+i%100)%100, CreatedAt: at(int(i))})
		}
		for _, l := range b.Likes[:50] {
			l.CreatedAt = l.CreatedAt.Add(1000 * time.Minute)
			b.Likes = append(b.Likes, l)
		}
		for i := range 80 {
			b.Spaces = append(b.Spaces, social.Space{ID: fmt.Sprintf("1space%07d", i), CreatorID: int64(1 + i),
				State: social.SpaceEnded, CreatedAt: at(i), Admins: []int64{int64(1 + i), 100}, Speakers: []int64{50}})
		}
		b.Spaces = append(b.Spaces, social.Space{ID: "1space0000003", CreatorID: 9, State: social.SpaceRunning,
			Admins: []int64{9}, Speakers: []int64{1, 2}})
		for range 2 {
			mustWrite(t, s, b)
			c, err := s.Counts(ctx)
			if err != nil || c["likes"] != 600 || c["spaces"] != 80 || c["users"] != 100 {
				t.Errorf("counts %v, %v; want 600 likes, 80 spaces", c, err)
			}
			checkSpace(t, s, b.Spaces[80])
			checkSpace(t, s, b.Spaces[79])
			checkBio(t, s, 77, "bio 77\nmore")
			checkLikes(t, s, 1001, []int64{1, 66, 53, 40, 27, 14})
			checkLiked(t, s, 14, []int64{1014, 1049, 1062, 1075, 1088, 1001})
		}
	})
}

func checkLikes(t *testing.T, s social.Store, postID int64, want []int64) {
	t.Helper()
	got := all(t, fmt.Sprintf("LikingUsers(%d)", postID), 1, func(p social.PageReq) (social.Page[social.User], error) {
		return s.LikingUsers(ctxFor(t), postID, p)
	}, userID)
	wantIDs(t, fmt.Sprintf("LikingUsers(%d)", postID), got, want)
}

func checkLiked(t *testing.T, s social.Store, userID int64, want []int64) {
	t.Helper()
	got := all(t, fmt.Sprintf("Likes(%d)", userID), 1, func(p social.PageReq) (social.Page[social.Post], error) {
		return s.Likes(ctxFor(t), userID, p)
	}, postID)
	wantIDs(t, fmt.Sprintf("Likes(%d)", userID), got, want)
}

func checkSpace(t *testing.T, s social.Store, want social.Space) {
	t.Helper()
	got, err := s.Space(ctxFor(t), want.ID)
	if err != nil {
		t.Fatalf("Space(%s): %v", want.ID, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Space(%s) =\n%+v\nwant\n%+v", want.ID, got, want)
	}
}

func checkBio(t *testing.T, s social.Store, id int64, want string) {
	t.Helper()
	u, err := s.User(ctxFor(t), id)
	if err != nil || u.ExtendedBio != want {
		t.Errorf("User(%d).ExtendedBio = %q, %v; want %q", id, u.ExtendedBio, err, want)
	}
}
