package storetest

import (
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world"
)

// testRemovals checks Batch.Unlikes, ListRemovals, ListUnsubscribes and
// CommunityLeaves: the pairs go in the batch's transaction, a pair not
// stored is no error, no count moves, and a pair removed and added in one
// batch ends added; the world's Related and MaxUserID read what is left.
func testRemovals(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	users := []social.User{{ID: 1, ScreenName: "ua", Name: "A", CreatedAt: at(0)},
		{ID: 2, ScreenName: "ub", Name: "B", CreatedAt: at(0)}, {ID: 3, ScreenName: "uc", Name: "C", CreatedAt: at(0)}}
	post := social.Post{ID: 100, AuthorID: 1, CreatedAt: at(1), Text: "hi", ConversationID: 100, FavoriteCount: 2}
	mustWrite(t, s, &social.Batch{
		Users: users, Posts: []social.Post{post},
		Likes:       []social.Like{{PostID: 100, UserID: 2, CreatedAt: at(2)}, {PostID: 100, UserID: 3, CreatedAt: at(3)}},
		Lists:       []social.List{{ID: 7, OwnerID: 1, Name: "l", Mode: "Public", CreatedAt: at(1), MemberCount: 2, SubscriberCount: 2}},
		ListMembers: []social.ListMember{{ListID: 7, UserID: 2, CreatedAt: at(2)}, {ListID: 7, UserID: 3, CreatedAt: at(3)}},
		ListSubscribers: []social.ListSubscriber{{ListID: 7, UserID: 2, CreatedAt: at(2)},
			{ListID: 7, UserID: 3, CreatedAt: at(3)}},
		Communities: []social.Community{{ID: 9, Name: "c", CreatorID: 1, CreatedAt: at(1), MemberCount: 3}},
		CommunityMembers: []social.CommunityMember{{CommunityID: 9, UserID: 1, Role: social.RoleAdmin, JoinedAt: at(1)},
			{CommunityID: 9, UserID: 2, Role: social.RoleMember, JoinedAt: at(2)},
			{CommunityID: 9, UserID: 3, Role: social.RoleMember, JoinedAt: at(3)}},
	})
	mustWrite(t, s, &social.Batch{
		Unlikes:          []social.Like{{PostID: 100, UserID: 2}, {PostID: 100, UserID: 1}},
		ListRemovals:     []social.ListMember{{ListID: 7, UserID: 3}, {ListID: 8, UserID: 3}},
		ListUnsubscribes: []social.ListSubscriber{{ListID: 7, UserID: 2}},
		CommunityLeaves:  []social.CommunityMember{{CommunityID: 9, UserID: 2}},
		// Removed and added again in one batch: it stays.
		CommunityMembers: []social.CommunityMember{{CommunityID: 9, UserID: 3, Role: social.RoleModerator, JoinedAt: at(4)}},
	})
	mustWrite(t, s, &social.Batch{CommunityLeaves: []social.CommunityMember{{CommunityID: 9, UserID: 3}},
		CommunityMembers: []social.CommunityMember{{CommunityID: 9, UserID: 3, Role: social.RoleModerator, JoinedAt: at(4)}}})
	req := social.PageReq{Limit: 10}
	likers, err := s.LikingUsers(ctx, 100, req)
	if err != nil || !slices.Equal(userIDs(likers.Items), []int64{3}) {
		t.Errorf("likers of 100 = %v, %v; want [3]", userIDs(likers.Items), err)
	}
	liked, err := s.Likes(ctx, 2, req)
	if err != nil || len(liked.Items) != 0 {
		t.Errorf("likes of 2 = %v, %v; want none", postIDs(liked.Items), err)
	}
	members, err := s.ListMembers(ctx, 7, req)
	if err != nil || !slices.Equal(userIDs(members.Items), []int64{2}) {
		t.Errorf("members of list 7 = %v, %v; want [2]", userIDs(members.Items), err)
	}
	for _, c := range []struct {
		user  int64
		lists int
	}{{2, 0}, {3, 1}} {
		ls, err := s.UserLists(ctx, c.user, req)
		if err != nil || len(ls.Items) != c.lists {
			t.Errorf("lists of %d = %d, %v; want %d", c.user, len(ls.Items), err, c.lists)
		}
	}
	cm, err := s.CommunityMembers(ctx, 9, req)
	var got []int64
	for _, m := range cm.Items {
		got = append(got, m.User.ID)
	}
	if err != nil || !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("members of community 9 = %v, %v; want [1 3] (admin, then moderator)", got, err)
	}
	p, err := s.Post(ctx, 100)
	if err != nil || p.FavoriteCount != 2 {
		t.Errorf("post 100 favorites %d, %v; want 2 (as written: removals move no count)", p.FavoriteCount, err)
	}
	w := s.World()
	if max, err := w.MaxUserID(ctx); err != nil || max != 3 {
		t.Errorf("MaxUserID = %d, %v; want 3", max, err)
	}
	for _, c := range []struct {
		r    world.Relation
		a, b int64
		want bool
	}{{world.Like, 100, 3, true}, {world.Like, 100, 2, false}, {world.ListMember, 7, 2, true}, {world.ListMember, 7, 3, false},
		{world.ListSubscriber, 7, 3, true}, {world.ListSubscriber, 7, 2, false}, {world.CommunityMember, 9, 3, true},
		{world.CommunityMember, 9, 2, false}, {world.Follow, 1, 2, false}, {world.Repost, 100, 2, false}} {
		if got, err := w.Related(ctx, c.r, c.a, c.b); err != nil || got != c.want {
			t.Errorf("Related(%d, %d, %d) = %v, %v; want %v", c.r, c.a, c.b, got, err, c.want)
		}
	}
	l, err := s.List(ctx, 7)
	if err != nil || l.MemberCount != 2 || l.SubscriberCount != 2 {
		t.Errorf("list 7 counts %d, %d, %v; want 2, 2 (as written)", l.MemberCount, l.SubscriberCount, err)
	}
}
