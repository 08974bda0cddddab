package storetest

import (
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// testPaging walks larger sets by small pages, with ties in the sort
// times, and checks every page walk against the single-page answer.
func testPaging(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "hub", Verified: true}}}
	const n = 57
	var want, wantFollowers []int64
	for i := int64(n); i >= 1; i-- {
		want = append(want, 1000+i)
	}
	for i := int64(1); i <= n; i++ {
		b.Users = append(b.Users, social.User{ID: 100 + i, ScreenName: "f", BlueVerified: true})
		b.Posts = append(b.Posts, social.Post{ID: 1000 + i, AuthorID: 1, CreatedAt: at(int(i)), Text: "page word",
			FavoriteCount: i % 4, ConversationID: 1001, CommunityID: 5})
		// Times tie in threes: order falls back to the id.
		b.Follows = append(b.Follows, social.Follow{FollowerID: 100 + i, FolloweeID: 1, CreatedAt: at(int(i / 3))})
		b.Follows = append(b.Follows, social.Follow{FollowerID: 1, FolloweeID: 100 + i, CreatedAt: at(int(i / 3))})
		b.Reposts = append(b.Reposts, social.Repost{PostID: 1001, UserID: 100 + i, CreatedAt: at(int(i / 3))})
		b.ListMembers = append(b.ListMembers, social.ListMember{ListID: 9, UserID: 100 + i, CreatedAt: at(int(i / 3))})
		b.CommunityMembers = append(b.CommunityMembers, social.CommunityMember{CommunityID: 5, UserID: 100 + i,
			Role: []string{social.RoleMember, social.RoleModerator}[i%2], JoinedAt: at(int(i / 3))})
	}
	for i := int64(n); i >= 1; i-- {
		wantFollowers = append(wantFollowers, 100+i)
	}
	b.Lists = []social.List{{ID: 9, OwnerID: 1, Name: "l", CreatedAt: at(0)}}
	mustWrite(t, s, b)

	type postReader = func(social.PageReq) (social.Page[social.Post], error)
	posts := map[string]postReader{
		"UserPosts": func(p social.PageReq) (social.Page[social.Post], error) { return s.UserPosts(ctx, 1, true, p) },
		"CommunityPosts": func(p social.PageReq) (social.Page[social.Post], error) {
			return s.CommunityPosts(ctx, 5, social.Latest, p)
		},
		"Search": func(p social.PageReq) (social.Page[social.Post], error) {
			return s.Search(ctx, &search.Query{Root: search.Word{Text: "page"}}, social.Latest, p)
		},
	}
	for name, read := range posts {
		for _, size := range []int{1, 2, 7, 20, 57, 100} {
			wantIDs(t, name, all(t, name, size, read, postID), want)
		}
	}
	thread := func(p social.PageReq) (social.Page[social.Post], error) { return s.Thread(ctx, 1001, p) }
	asc := append([]int64(nil), want...)
	for i, j := 0, len(asc)-1; i < j; i, j = i+1, j-1 {
		asc[i], asc[j] = asc[j], asc[i]
	}
	wantIDs(t, "Thread", all(t, "Thread", 4, thread, postID), asc)

	// Top pages: score order with ties broken by id, the same by any page size.
	top := func(p social.PageReq) (social.Page[social.Post], error) {
		return s.CommunityPosts(ctx, 5, social.Top, p)
	}
	topSearch := func(p social.PageReq) (social.Page[social.Post], error) {
		return s.Search(ctx, &search.Query{Root: search.Word{Text: "word"}}, social.Top, p)
	}
	ref := all(t, "CommunityPosts(Top)", 100, top, postID)
	if len(ref) != n {
		t.Fatalf("CommunityPosts(Top): %d posts, want %d", len(ref), n)
	}
	wantIDs(t, "CommunityPosts(Top) by 3", all(t, "CommunityPosts(Top)", 3, top, postID), ref)
	wantIDs(t, "Search(Top) by 5", all(t, "Search(Top)", 5, topSearch, postID), ref)

	users := map[string]func(social.PageReq) (social.Page[social.User], error){
		"VerifiedFollowers": func(p social.PageReq) (social.Page[social.User], error) { return s.VerifiedFollowers(ctx, 1, p) },
		"Following":         func(p social.PageReq) (social.Page[social.User], error) { return s.Following(ctx, 1, p) },
		"Reposters":         func(p social.PageReq) (social.Page[social.User], error) { return s.Reposters(ctx, 1001, p) },
		"ListMembers":       func(p social.PageReq) (social.Page[social.User], error) { return s.ListMembers(ctx, 9, p) },
	}
	for name, read := range users {
		for _, size := range []int{1, 3, 20, 100} {
			wantIDs(t, name, all(t, name, size, read, userID), wantFollowers)
		}
	}
	members := func(p social.PageReq) (social.Page[social.Member], error) { return s.CommunityMembers(ctx, 5, p) }
	var wantMembers []int64
	for _, odd := range []int64{1, 0} { // moderators (odd i) first, then members
		for i := int64(n); i >= 1; i-- {
			if i%2 == odd {
				wantMembers = append(wantMembers, 100+i)
			}
		}
	}
	wantIDs(t, "CommunityMembers", all(t, "CommunityMembers", 4, members, func(m social.Member) int64 { return m.User.ID }), wantMembers)

	// A page exactly as long as the rest has no next key.
	page, err := s.UserPosts(ctx, 1, true, social.PageReq{Limit: n})
	if err != nil || len(page.Items) != n || page.Next != nil {
		t.Errorf("UserPosts with limit = count: %d items, next %v, err %v", len(page.Items), page.Next, err)
	}
	page, err = s.UserPosts(ctx, 1, true, social.PageReq{Limit: n - 1})
	if err != nil || len(page.Items) != n-1 || page.Next == nil || *page.Next != (social.Key{Sort: 1002, ID: 1002}) {
		t.Errorf("UserPosts with limit = count-1: %d items, next %v, err %v", len(page.Items), page.Next, err)
	}
}
