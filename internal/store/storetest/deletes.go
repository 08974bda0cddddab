package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// testDeletes: Batch.DeletePosts and DeleteUsers delete physically, with
// everything keyed by what they delete, move the counts of the posts that
// stay, tombstone every id named (stored or not) so that later writes
// leave out whatever names one, log a change each while a monitor exists
// and move the deletions counter.
func testDeletes(t *testing.T, open Opener) {
	t.Run("Post", func(t *testing.T) { testDeletePost(t, open) })
	t.Run("User", func(t *testing.T) { testDeleteUser(t, open) })
	t.Run("Counts", func(t *testing.T) { testDeleteCounts(t, open) })
	t.Run("Tombstones", func(t *testing.T) { testTombstones(t, open) })
	t.Run("ChangeLog", func(t *testing.T) { testDeleteChanges(t, open) })
}

func testDeletePost(t *testing.T, open Opener) {
	s, ctx := withFixture(t, open)
	// 101: a root with two replies, a native repost (105), likes, reposts,
	// a highlight, a hashtag.
	st, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{101, 101}})
	if err != nil {
		t.Fatal(err)
	}
	if want := (social.WriteStats{PostsDeleted: 1, PostsDeletedWith: 1}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	for _, id := range []int64{101, 105} {
		if _, err := s.Post(ctx, id); err == nil {
			t.Errorf("post %d is still stored", id)
		}
	}
	if ps, err := s.Posts(ctx, []int64{101, 102, 105}); err != nil || !slices.Equal(sorted(postIDs(ps)), []int64{102}) {
		t.Errorf("posts by ids: %v %v", postIDs(ps), err)
	}
	// Its replies stay, in the conversation and naming it.
	thread := all(t, "thread", 10, func(p social.PageReq) (social.Page[social.Post], error) { return s.Thread(ctx, 101, p) }, postID)
	wantIDs(t, "thread of the deleted root", thread, []int64{102, 103})
	if p, err := s.Post(ctx, 102); err != nil || p.InReplyToID != 101 {
		t.Errorf("reply: %+v %v", p, err)
	}
	wantIDs(t, "highlights", all(t, "highlights", 10, func(p social.PageReq) (social.Page[social.Post], error) {
		return s.Highlights(ctx, alice, p)
	}, postID), []int64{106, 110})
	wantIDs(t, "likes of bob", all(t, "likes", 10, func(p social.PageReq) (social.Page[social.Post], error) {
		return s.Likes(ctx, bob, p)
	}, postID), []int64{106})
	for what, read := range map[string]func(social.PageReq) (social.Page[social.User], error){
		"reposters": func(p social.PageReq) (social.Page[social.User], error) { return s.Reposters(ctx, 101, p) },
		"likers":    func(p social.PageReq) (social.Page[social.User], error) { return s.LikingUsers(ctx, 101, p) },
	} {
		wantIDs(t, what, all(t, what, 10, read, userID), nil)
	}
	if ok, err := s.Reposted(ctx, 101, bob); ok || err != nil {
		t.Errorf("reposted: %v %v", ok, err)
	}
	wantIDs(t, "timeline of bob", all(t, "timeline", 10, func(p social.PageReq) (social.Page[social.Post], error) {
		return s.UserPosts(ctx, bob, true, p)
	}, postID), []int64{111, 107, 102})
	for _, q := range []string{"café", "#go", "hello", "url:example.com"} {
		got := searchAll(t, s, q, social.Latest)
		if slices.Contains(got, 101) || slices.Contains(got, 105) {
			t.Errorf("search %q finds a deleted post: %v", q, got)
		}
		if top := searchAll(t, s, q, social.Top); !slices.Equal(sorted(top), sorted(got)) {
			t.Errorf("search %q: Top %v, Latest %v", q, top, got)
		}
	}
	if n := countMatches(t, s, "hello"); n != 2 {
		t.Errorf("counts of hello: %d, want 2 (102, 104)", n)
	}
	// A pinned post deleted is pinned no more.
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{110}}); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Community(ctx, 900); err != nil || c.PinnedPostID != 0 {
		t.Errorf("community after its pinned post went: %+v %v", c, err)
	}
}

func testDeleteUser(t *testing.T, open Opener) {
	s, ctx := withFixture(t, open)
	st, err := s.Write(ctx, &social.Batch{DeleteUsers: []int64{bob}})
	if err != nil {
		t.Fatal(err)
	}
	// bob's posts: 102, 105, 107, 111.
	if want := (social.WriteStats{UsersDeleted: 1, PostsDeletedWith: 4}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	if _, err := s.User(ctx, bob); err == nil {
		t.Error("bob is still stored")
	}
	if _, err := s.UserByScreenName(ctx, "bob"); err == nil {
		t.Error("bob is still found by name")
	}
	users := func(what string, read func(social.PageReq) (social.Page[social.User], error), want []int64) {
		t.Helper()
		wantIDs(t, what, sorted(all(t, what, 10, read, userID)), want)
	}
	users("followers of alice", func(p social.PageReq) (social.Page[social.User], error) { return s.Followers(ctx, alice, p) }, []int64{carol, erin})
	users("following of alice", func(p social.PageReq) (social.Page[social.User], error) { return s.Following(ctx, alice, p) }, []int64{carol, erin})
	users("affiliates", func(p social.PageReq) (social.Page[social.User], error) { return s.Affiliates(ctx, alice, p) }, []int64{erin})
	users("list members", func(p social.PageReq) (social.Page[social.User], error) { return s.ListMembers(ctx, 700, p) }, []int64{erin})
	users("likers of 106", func(p social.PageReq) (social.Page[social.User], error) { return s.LikingUsers(ctx, 106, p) }, []int64{carol})
	users("reposters of 101", func(p social.PageReq) (social.Page[social.User], error) { return s.Reposters(ctx, 101, p) }, []int64{carol, erin})
	if _, err := s.List(ctx, 701); err == nil {
		t.Error("bob's list is still stored")
	}
	lists := all(t, "lists of alice", 10, func(p social.PageReq) (social.Page[social.List], error) { return s.UserLists(ctx, alice, p) },
		func(l social.List) int64 { return l.ID })
	wantIDs(t, "lists of alice", sorted(lists), []int64{700, 702})
	members := all(t, "members", 10, func(p social.PageReq) (social.Page[social.Member], error) {
		return s.CommunityMembers(ctx, 900, p)
	}, func(m social.Member) int64 { return m.User.ID })
	wantIDs(t, "community members", sorted(members), []int64{alice, carol, erin})
	if _, err := s.Space(ctx, scheduledSpace); err == nil {
		t.Error("bob's space is still stored")
	}
	for _, id := range []int64{102, 105, 107, 111} {
		if _, err := s.Post(ctx, id); err == nil {
			t.Errorf("bob's post %d is still stored", id)
		}
	}
	if got := searchAll(t, s, "from:bob", social.Latest); len(got) != 0 {
		t.Errorf("from:bob finds %v", got)
	}
	// Counts of the posts that stay: bob's like of 106 and his repost of
	// 101 are gone; his reply to 101 and quote of 106 too.
	if p, err := s.Post(ctx, 106); err != nil || p.FavoriteCount != 9 {
		t.Errorf("106 after its liker went: %+v %v", p, err)
	}
	if ok, err := s.Follows(ctx, alice, bob); ok || err != nil {
		t.Errorf("alice still follows bob: %v %v", ok, err)
	}
	c, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c["users"] != 4 || c["posts"] != 7 || c["tombstones"] != 1 || c["lists"] != 2 || c["spaces"] != 1 {
		t.Errorf("counts %v", c)
	}
}

func testDeleteCounts(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	b := &social.Batch{
		Users: []social.User{{ID: 1, ScreenName: "a"}, {ID: 2, ScreenName: "b"}, {ID: 3, ScreenName: "c"}},
		Posts: []social.Post{
			{ID: 201, AuthorID: 1, CreatedAt: at(1), Text: "counted", ReplyCount: 2, QuoteCount: 1, RetweetCount: 1, FavoriteCount: 1},
			{ID: 202, AuthorID: 2, CreatedAt: at(2), Text: "a reply", InReplyToID: 201, InReplyToUserID: 1, ConversationID: 201},
			{ID: 203, AuthorID: 3, CreatedAt: at(3), Text: "a quote", QuotedID: 201},
			{ID: 204, AuthorID: 3, CreatedAt: at(4), Text: "RT @a: counted", RepostOfID: 201},
			{ID: 205, AuthorID: 2, CreatedAt: at(5), Text: "a reply to the reply", InReplyToID: 202, InReplyToUserID: 2, ConversationID: 201},
		},
		Reposts: []social.Repost{{PostID: 201, UserID: 3, CreatedAt: at(4)}},
		Likes:   []social.Like{{PostID: 201, UserID: 2, CreatedAt: at(5)}},
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	before := searchAll(t, s, "filter:has_engagement", social.Latest)
	if !slices.Contains(before, 201) {
		t.Fatalf("201 has no engagement before: %v", before)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{202, 203, 204}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Post(ctx, 201)
	if err != nil {
		t.Fatal(err)
	}
	// The reply, the quote and the repost (post and row, once) went.
	if p.ReplyCount != 1 || p.QuoteCount != 0 || p.RetweetCount != 0 || p.FavoriteCount != 1 {
		t.Errorf("counts after deleting a reply, a quote and a repost: %+v", p)
	}
	if ok, err := s.Reposted(ctx, 201, 3); ok || err != nil {
		t.Errorf("the deleted repost's row stays: %v %v", ok, err)
	}
	// The reply to the deleted reply stays, naming it.
	if r, err := s.Post(ctx, 205); err != nil || r.InReplyToID != 202 {
		t.Errorf("reply to a deleted reply: %+v %v", r, err)
	}
	// The liker goes: no count above 0 is left, and nothing is below it.
	if _, err := s.Write(ctx, &social.Batch{DeleteUsers: []int64{2}, DeletePosts: []int64{201}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 206, AuthorID: 1, CreatedAt: at(6), Text: "x",
		ReplyCount: 1}, {ID: 207, AuthorID: 1, CreatedAt: at(7), Text: "reply", InReplyToID: 206}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{207}}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Post(ctx, 206); err != nil || p.ReplyCount != 0 {
		t.Errorf("206 after its reply went: %+v %v", p, err)
	}
	if got := searchAll(t, s, "filter:has_engagement", social.Latest); slices.Contains(got, 206) {
		t.Errorf("206 has engagement after its only reply went: %v", got)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{206}}); err != nil {
		t.Fatal(err)
	}
	// A count already 0 stays 0.
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 208, AuthorID: 1, CreatedAt: at(8), Text: "y"},
		{ID: 209, AuthorID: 1, CreatedAt: at(9), Text: "quote", QuotedID: 208}}, DeletePosts: nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{209}}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Post(ctx, 208); err != nil || p.QuoteCount != 0 {
		t.Errorf("208: %+v %v", p, err)
	}
}

func testTombstones(t *testing.T, open Opener) {
	s, ctx := withFixture(t, open)
	// 999 was never stored: it is tombstoned all the same.
	st, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{101, 999}, DeleteUsers: []int64{bob, 12345}})
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsDeleted != 1 || st.UsersDeleted != 1 {
		t.Errorf("stats %+v", st)
	}
	st, err = s.Write(ctx, fixture())
	if err != nil {
		t.Fatal(err)
	}
	// Left out: 101 and bob's posts (102, 105, 107, 111); bob; bob's
	// follows (2), reposts of 101 (3), affiliation, highlight of 101,
	// likes of and by bob or of 101 (4), list 701, list membership,
	// subscription to 701, community membership, space.
	if st.PostsSkipped != 5 || st.UsersSkipped != 1 || st.RelationsSkipped != 16 {
		t.Errorf("rewrite of the fixture: %+v", st)
	}
	if st.PostsUpdated != 6 || st.PostsInserted != 0 {
		t.Errorf("rewrite of the fixture: %+v", st)
	}
	for _, id := range []int64{101, 102} {
		if _, err := s.Post(ctx, id); err == nil {
			t.Errorf("post %d stored again", id)
		}
	}
	if _, err := s.User(ctx, bob); err == nil {
		t.Error("bob stored again")
	}
	st, err = s.Write(ctx, &social.Batch{Users: []social.User{{ID: 12345, ScreenName: "never"}},
		Posts: []social.Post{{ID: 999, AuthorID: alice, CreatedAt: at(999), Text: "never"},
			{ID: 1000, AuthorID: 12345, CreatedAt: at(1000), Text: "by a deleted user"},
			{ID: 1001, AuthorID: alice, CreatedAt: at(1001), Text: "RT", RepostOfID: 101},
			{ID: 1002, AuthorID: alice, CreatedAt: at(1002), Text: "a reply to a deleted post", InReplyToID: 101},
		}})
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsSkipped != 3 || st.UsersSkipped != 1 || st.PostsInserted != 1 {
		t.Errorf("stats %+v", st)
	}
	// A batch that deletes what it writes leaves it out.
	st, err = s.Write(ctx, &social.Batch{DeletePosts: []int64{2000}, Posts: []social.Post{{ID: 2000, AuthorID: alice,
		CreatedAt: at(2000), Text: "gone at once"}}})
	if err != nil || st.PostsSkipped != 1 {
		t.Errorf("delete and write in one batch: %+v %v", st, err)
	}
	if _, err := s.Post(ctx, 2000); err == nil {
		t.Error("a post deleted in its own batch is stored")
	}
}

func testDeleteChanges(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	if _, err := s.Write(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	m := s.Monitors()
	before, err := s.(social.Versioned).Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Create(ctx, monitor.Monitor{ID: "01hx1r99s0nsqq1ffdhmyyqbfs", KeyID: 1, Kind: "user_profile", UserID: erin,
		Params: []byte("{}"), State: monitor.MonitorActive, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{101, 4242}, DeleteUsers: []int64{erin}}); err != nil {
		t.Fatal(err)
	}
	cs, err := m.Changes(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind            monitor.ChangeKind
		subject, object int64
	}
	var got []row
	for _, c := range cs {
		got = append(got, row{c.Kind, c.Subject, c.Object})
	}
	want := []row{{monitor.ChangePostDeleted, alice, 101}, {monitor.ChangePostDeleted, bob, 105},
		{monitor.ChangeUserDeleted, erin, 0}}
	if !equalRows(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	after, err := s.(social.Versioned).Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Deletions != before.Deletions+1 || after.Content != before.Content+1 {
		t.Errorf("versions %+v → %+v", before, after)
	}
	if _, err := s.Write(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	if v, err := s.(social.Versioned).Versions(ctx); err != nil || v.Deletions != after.Deletions {
		t.Errorf("a write without deletions moved the deletions counter: %+v %v", v, err)
	}
}

// searchAll runs a search to its end.
func searchAll(t *testing.T, s social.Store, query string, order social.Order) []int64 {
	t.Helper()
	q, err := search.Parse(query, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return all(t, "search "+query, 50, func(p social.PageReq) (social.Page[social.Post], error) {
		return s.Search(ctxFor(t), q, order, p)
	}, postID)
}

// countMatches is what /search/counts would sum for query.
func countMatches(t *testing.T, s social.Store, query string) int64 {
	t.Helper()
	q, err := search.Parse(query, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	bs, err := s.SearchCounts(ctxFor(t), q, social.Day)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range bs {
		n += b.Count
	}
	return n
}
