package storetest

import (
	"reflect"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func testReaders(t *testing.T, open Opener) {
	s, ctx := withFixture(t, open)
	page := social.PageReq{Limit: 50}

	t.Run("Users", func(t *testing.T) {
		u, err := s.User(ctx, alice)
		if err != nil {
			t.Fatal(err)
		}
		want := fixture().Users[0]
		if u != want {
			t.Errorf("User(alice) = %+v, want %+v", u, want)
		}
		_, err = s.User(ctx, 999)
		wantErr(t, "User(999)", err, social.ErrNotFound)
		u, err = s.UserByScreenName(ctx, "BOB")
		if err != nil || u.ID != bob {
			t.Errorf("UserByScreenName(BOB) = %d, %v", u.ID, err)
		}
		_, err = s.UserByScreenName(ctx, "nobody")
		wantErr(t, "UserByScreenName(nobody)", err, social.ErrNotFound)
		us, err := s.UsersByIDs(ctx, []int64{erin, 999, alice, dave})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "UsersByIDs", sorted(userIDs(us)), []int64{alice, dave, erin})
		for _, u := range us {
			if u.ID == dave && (!u.Stub || u.ScreenName != "dave") {
				t.Errorf("stub user: %+v", u)
			}
		}
		us, err = s.UsersByScreenNames(ctx, []string{"ALICE", "bob", "nobody"})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "UsersByScreenNames", sorted(userIDs(us)), []int64{alice, bob})
		us, err = s.UsersByIDs(ctx, nil)
		if err != nil || len(us) != 0 {
			t.Errorf("UsersByIDs(nil) = %v, %v", us, err)
		}
	})

	t.Run("Posts", func(t *testing.T) {
		ps, err := s.Posts(ctx, []int64{106, 999, 101})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "Posts", sorted(postIDs(ps)), []int64{101, 106})
		fx := fixture().Posts
		for _, p := range ps {
			var w social.Post
			for _, f := range fx {
				if f.ID == p.ID {
					w = f
				}
			}
			if w.ConversationID == 0 {
				w.ConversationID = w.ID
			}
			if !postEqual(p, w) {
				t.Errorf("post %d:\n got %+v\nwant %+v", p.ID, p, w)
			}
		}
	})

	t.Run("Timelines", func(t *testing.T) {
		cases := []struct {
			name string
			read func(social.PageReq) (social.Page[social.Post], error)
			want []int64
		}{
			{"UserPosts(alice)", func(p social.PageReq) (social.Page[social.Post], error) { return s.UserPosts(ctx, alice, false, p) }, []int64{110, 106, 101}},
			{"UserPosts(alice, replies)", func(p social.PageReq) (social.Page[social.Post], error) { return s.UserPosts(ctx, alice, true, p) }, []int64{110, 106, 103, 101}},
			{"UserPosts(bob)", func(p social.PageReq) (social.Page[social.Post], error) { return s.UserPosts(ctx, bob, false, p) }, []int64{111, 107, 105}},
			{"UserPosts(carol)", func(p social.PageReq) (social.Page[social.Post], error) { return s.UserPosts(ctx, carol, true, p) }, []int64{104}},
			{"Highlights(alice)", func(p social.PageReq) (social.Page[social.Post], error) { return s.Highlights(ctx, alice, p) }, []int64{106, 101, 110}},
			{"Mentions(ALICE)", func(p social.PageReq) (social.Page[social.Post], error) { return s.Mentions(ctx, "ALICE", p) }, []int64{102}},
			{"Mentions(carol)", func(p social.PageReq) (social.Page[social.Post], error) { return s.Mentions(ctx, "carol", p) }, []int64{111}},
			{"Thread(101)", func(p social.PageReq) (social.Page[social.Post], error) { return s.Thread(ctx, 101, p) }, []int64{101, 102, 103}},
			{"CommunityPosts(Latest)", func(p social.PageReq) (social.Page[social.Post], error) {
				return s.CommunityPosts(ctx, 900, social.Latest, p)
			}, []int64{111, 110}},
			{"CommunityPosts(Top)", func(p social.PageReq) (social.Page[social.Post], error) {
				return s.CommunityPosts(ctx, 900, social.Top, p)
			}, byScore(110, 111)},
			{"CommunityPosts(none)", func(p social.PageReq) (social.Page[social.Post], error) {
				return s.CommunityPosts(ctx, 0, social.Latest, p)
			}, nil},
			{"ListPosts(700)", func(p social.PageReq) (social.Page[social.Post], error) { return s.ListPosts(ctx, 700, p) }, []int64{111, 108, 107, 105, 102}},
		}
		for _, c := range cases {
			got, err := c.read(page)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			wantIDs(t, c.name, postIDs(got.Items), c.want)
			if got.Next != nil {
				t.Errorf("%s: a next key on the only page", c.name)
			}
			wantIDs(t, c.name+" by pages of 1", all(t, c.name, 1, c.read, postID), c.want)
		}
	})

	t.Run("People", func(t *testing.T) {
		cases := []struct {
			name string
			read func(social.PageReq) (social.Page[social.User], error)
			want []int64
		}{
			{"Reposters(101)", func(p social.PageReq) (social.Page[social.User], error) { return s.Reposters(ctx, 101, p) }, []int64{carol, bob, erin}},
			{"Affiliates(alice)", func(p social.PageReq) (social.Page[social.User], error) { return s.Affiliates(ctx, alice, p) }, []int64{erin, bob}},
			{"VerifiedFollowers(alice)", func(p social.PageReq) (social.Page[social.User], error) {
				return s.VerifiedFollowers(ctx, alice, p)
			}, []int64{bob}},
			{"Following(alice)", func(p social.PageReq) (social.Page[social.User], error) { return s.Following(ctx, alice, p) }, []int64{carol, erin, bob}},
			{"ListMembers(700)", func(p social.PageReq) (social.Page[social.User], error) { return s.ListMembers(ctx, 700, p) }, []int64{erin, bob}},
		}
		for _, c := range cases {
			got, err := c.read(page)
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				continue
			}
			wantIDs(t, c.name, userIDs(got.Items), c.want)
			wantIDs(t, c.name+" by pages of 1", all(t, c.name, 1, c.read, userID), c.want)
		}
	})

	t.Run("Groups", func(t *testing.T) {
		l, err := s.List(ctx, 701)
		if err != nil || l.Name != "Bobs" || l.Mode != "Private" || l.OwnerID != bob || !l.CreatedAt.Equal(at(40)) {
			t.Errorf("List(701) = %+v, %v", l, err)
		}
		l, err = s.List(ctx, 702)
		if err != nil || l.Mode != "Public" {
			t.Errorf("List(702) default mode: %+v, %v", l, err)
		}
		_, err = s.List(ctx, 1)
		wantErr(t, "List(1)", err, social.ErrNotFound)
		read := func(p social.PageReq) (social.Page[social.List], error) { return s.UserLists(ctx, alice, p) }
		lid := func(l social.List) int64 { return l.ID }
		wantIDs(t, "UserLists(alice)", all(t, "UserLists", 1, read, lid), []int64{702, 701, 700})
		c, err := s.Community(ctx, 900)
		want := fixture().Communities[0]
		if err != nil || c != want {
			t.Errorf("Community(900) = %+v, %v; want %+v", c, err, want)
		}
		_, err = s.Community(ctx, 1)
		wantErr(t, "Community(1)", err, social.ErrNotFound)
		readM := func(p social.PageReq) (social.Page[social.Member], error) { return s.CommunityMembers(ctx, 900, p) }
		mid := func(m social.Member) int64 { return m.User.ID }
		wantIDs(t, "CommunityMembers", all(t, "CommunityMembers", 1, readM, mid), []int64{alice, carol, erin, bob})
		m, err := readM(page)
		if err != nil || len(m.Items) != 4 || m.Items[0].Role != social.RoleAdmin || m.Items[1].Role != social.RoleModerator ||
			m.Items[3].Role != social.RoleMember || m.Items[0].User.ScreenName != "alice" {
			t.Errorf("CommunityMembers roles: %+v, %v", m.Items, err)
		}
	})
}

// byScore orders fixture posts as a Top page does: score descending, then
// id descending.
func byScore(ids ...int64) []int64 {
	score := map[int64]int64{}
	for _, p := range fixture().Posts {
		score[p.ID] = social.Score(&p)
	}
	out := append([]int64(nil), ids...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a, b := out[j-1], out[j]
			if score[a] > score[b] || (score[a] == score[b] && a > b) {
				break
			}
			out[j-1], out[j] = b, a
		}
	}
	return out
}

// postEqual compares posts field by field (Views by value, times by instant).
func postEqual(a, b social.Post) bool {
	av, bv := a.Views, b.Views
	if (av == nil) != (bv == nil) || (av != nil && *av != *bv) || !a.CreatedAt.Equal(b.CreatedAt) {
		return false
	}
	a.Views, b.Views = nil, nil
	a.CreatedAt = b.CreatedAt
	return reflect.DeepEqual(a, b)
}
