package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

func testWrite(t *testing.T, open Opener) {
	t.Run("Stats", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		st, err := s.Write(ctx, fixture())
		if err != nil {
			t.Fatal(err)
		}
		want := social.WriteStats{PostsInserted: 11, UsersInserted: 5}
		if st != want {
			t.Errorf("first write: stats %+v, want %+v", st, want)
		}
		st, err = s.Write(ctx, fixture())
		if err != nil {
			t.Fatal(err)
		}
		// The stub (dave) is neither inserted nor updated the second time.
		want = social.WriteStats{PostsUpdated: 11, UsersUpdated: 4}
		if st != want {
			t.Errorf("second write: stats %+v, want %+v", st, want)
		}
		counts, err := s.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantCounts := map[string]int64{"users": 5, "posts": 11, "follows": 6, "reposts": 3, "affiliations": 2,
			"highlights": 3, "lists": 3, "list_members": 2, "list_subscribers": 2, "communities": 1,
			"community_members": 4, "likes": 5, "spaces": 2, "api_keys": 0, "ledger": 0}
		for k, v := range wantCounts {
			if counts[k] != v {
				t.Errorf("Counts[%s] = %d, want %d", k, counts[k], v)
			}
		}
	})

	t.Run("DuplicatesInBatch", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		b := &social.Batch{
			Users: []social.User{
				{ID: 1, ScreenName: "one"},
				{ID: 1, ScreenName: "uno"},
				{ID: 2, ScreenName: "", Stub: true},
				{ID: 2, ScreenName: "two", Name: "Two", Stub: true},
				{ID: 2, ScreenName: "deux", Stub: true},
				{ID: 3, ScreenName: "three", Stub: true},
				{ID: 3, ScreenName: "three-full", Name: "Full"},
				{ID: 1, ScreenName: "stub-after-full", Stub: true},
			},
			Posts: []social.Post{
				{ID: 10, AuthorID: 1, CreatedAt: at(1), Text: "first", Views: i64(7)},
				{ID: 10, AuthorID: 1, CreatedAt: at(1), Text: "second"},
				{ID: 11, AuthorID: 1, CreatedAt: at(2), Text: "other"},
			},
			Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: at(1)}, {FollowerID: 1, FolloweeID: 2, CreatedAt: at(9)}},
		}
		st, err := s.Write(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		want := social.WriteStats{UsersInserted: 3, UsersUpdated: 2, PostsInserted: 2, PostsUpdated: 1}
		if st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
		checkUser(t, s, 1, "uno", "", false)
		checkUser(t, s, 2, "two", "Two", true)
		checkUser(t, s, 3, "three-full", "Full", false)
		ps, err := s.Posts(ctx, []int64{10})
		if err != nil || len(ps) != 1 {
			t.Fatalf("Posts(10) = %v, %v", ps, err)
		}
		if ps[0].Text != "second" || ps[0].Views == nil || *ps[0].Views != 7 {
			t.Errorf("post 10 = %q views %v, want the last text and the known views 7", ps[0].Text, ps[0].Views)
		}
		f, err := s.Following(ctx, 1, social.PageReq{Limit: 10})
		if err != nil || len(f.Items) != 1 {
			t.Fatalf("Following(1) = %v, %v", f, err)
		}
	})

	t.Run("StubsNeverOverwrite", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 7, ScreenName: "full", Name: "Full", Verified: true, FollowersCount: 3}}})
		st := mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 7, ScreenName: "other", Name: "Other", Stub: true}}})
		if st != (social.WriteStats{}) {
			t.Errorf("stub over a full user: stats %+v, want none", st)
		}
		u := checkUser(t, s, 7, "full", "Full", false)
		if !u.Verified || u.FollowersCount != 3 {
			t.Errorf("stub changed the full user: %+v", u)
		}
		mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 8, Stub: true}}})
		mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 8, ScreenName: "named", Name: "N", Stub: true}}})
		checkUser(t, s, 8, "named", "N", true)
		mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 8, ScreenName: "renamed", Stub: true}}})
		checkUser(t, s, 8, "named", "N", true)
		st = mustWrite(t, s, &social.Batch{Users: []social.User{{ID: 8, ScreenName: "real", Name: "Real"}}})
		if st.UsersUpdated != 1 {
			t.Errorf("full over a stub: stats %+v, want one update", st)
		}
		checkUser(t, s, 8, "real", "Real", false)
		_ = ctx
	})

	t.Run("UpsertReindexes", func(t *testing.T) {
		s, ctx := withFixture(t, open)
		p := fixture().Posts[1] // 102: "@alice hello there, world!" mentioning alice
		p.Text = "goodbye moon #Fresh"
		p.Entities = social.Entities{Hashtags: []social.Tag{{Text: "Fresh", Start: 13, End: 19}}}
		p.Views = nil
		p.FavoriteCount = 4
		st := mustWrite(t, s, &social.Batch{Posts: []social.Post{p}})
		if st != (social.WriteStats{PostsUpdated: 1}) {
			t.Errorf("stats %+v, want one post updated", st)
		}
		searchIDs(t, s, "old word", search.Word{Text: "there"}, nil)
		searchIDs(t, s, "new word", search.Word{Text: "moon"}, []int64{102})
		searchIDs(t, s, "new tag", search.Hashtag{Tag: "fresh"}, []int64{102})
		searchIDs(t, s, "new flags", search.Filter{Kind: search.FilterHasEngagement}, []int64{110, 106, 102})
		m, err := s.Mentions(ctx, "alice", social.PageReq{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "mentions after the mention was edited out", postIDs(m.Items), nil)
		// A copy without views keeps the known ones.
		q := fixture().Posts[5] // 106, views 5000
		q.Views = nil
		mustWrite(t, s, &social.Batch{Posts: []social.Post{q}})
		ps, _ := s.Posts(ctx, []int64{106})
		if len(ps) != 1 || ps[0].Views == nil || *ps[0].Views != 5000 {
			t.Errorf("views after a copy without them: %+v", ps)
		}
	})

	t.Run("UpsertCountsKeepsIndex", func(t *testing.T) {
		s, ctx := withFixture(t, open)
		p := fixture().Posts[1]              // 102: "@alice hello there, world!" mentioning alice
		p.ReplyCount, p.FavoriteCount = 7, 9 // a reply and likes: the indexed text stays
		st := mustWrite(t, s, &social.Batch{Posts: []social.Post{p}})
		if st != (social.WriteStats{PostsUpdated: 1}) {
			t.Errorf("stats %+v, want one post updated", st)
		}
		searchIDs(t, s, "word after a count change", search.Word{Text: "there"}, []int64{102})
		m, err := s.Mentions(ctx, "alice", social.PageReq{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(postIDs(m.Items), 102) {
			t.Errorf("mentions of alice after a count change: %v, want 102 among them", postIDs(m.Items))
		}
		// In one batch: a count change, an edit, then the edit again with
		// other counts; the last copy's text is what is found.
		edited := p
		edited.Text, edited.Entities = "goodbye moon", social.Entities{}
		again := edited
		again.FavoriteCount++
		p.FavoriteCount++
		mustWrite(t, s, &social.Batch{Posts: []social.Post{p, edited, again}})
		searchIDs(t, s, "old word after the edit", search.Word{Text: "there"}, nil)
		searchIDs(t, s, "new word after the edit", search.Word{Text: "moon"}, []int64{102})
		// An edit, then the stored text back, in one batch.
		back := fixture().Posts[1]
		mustWrite(t, s, &social.Batch{Posts: []social.Post{edited, back}})
		searchIDs(t, s, "word of the text written back", search.Word{Text: "there"}, []int64{102})
		searchIDs(t, s, "edited word never kept", search.Word{Text: "moon"}, nil)
	})

	t.Run("Invalid", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		bad := []*social.Batch{
			{Users: []social.User{{ID: 1, ScreenName: "ok"}}, Posts: []social.Post{{ID: 0, AuthorID: 1}}},
			{Users: []social.User{{ID: 1, ScreenName: "ok"}, {ID: -4, ScreenName: "neg"}}},
			{Users: []social.User{{ID: 1, ScreenName: "ok"}}, Posts: []social.Post{{ID: 5, AuthorID: 0}}},
			{Users: []social.User{{ID: 1, ScreenName: "ok"}}, CommunityMembers: []social.CommunityMember{{CommunityID: 1, UserID: 1, Role: "King"}}},
			{Users: []social.User{{ID: 1, ScreenName: "ok"}}, Spaces: []social.Space{{CreatorID: 1, State: social.SpaceEnded}}},
		}
		for i, b := range bad {
			_, err := s.Write(ctx, b)
			wantErr(t, fmt.Sprintf("bad batch %d", i), err, social.ErrInvalid)
		}
		if _, err := s.User(ctx, 1); err == nil {
			t.Errorf("a refused batch left its valid user behind")
		}
	})

	t.Run("LargeBatch", func(t *testing.T) {
		// Large enough for bulk paths (COPY), with duplicates and stubs.
		s := open(t)
		ctx := ctxFor(t)
		b := &social.Batch{}
		for i := int64(1); i <= 300; i++ {
			b.Users = append(b.Users, social.User{ID: i, ScreenName: fmt.Sprintf("u%d", i), Stub: i%3 == 0})
		}
		b.Users = append(b.Users, social.User{ID: 3, ScreenName: "u3-full", Name: "Three"})
		for i := int64(1); i <= 500; i++ {
			b.Posts = append(b.Posts, social.Post{ID: 1000 + i, AuthorID: 1 + i%300, CreatedAt: at(int(i)),
				Text: fmt.Sprintf("bulk post number%d #t%d", i, i%7),
				Entities: social.Entities{Hashtags: []social.Tag{{Text: fmt.Sprintf("T%d", i%7)}},
					Mentions: []social.Mention{{ScreenName: fmt.Sprintf("U%d", i%5)}}}})
			b.Follows = append(b.Follows, social.Follow{FollowerID: 1 + i%300, FolloweeID: 1, CreatedAt: at(int(i))})
		}
		b.Posts = append(b.Posts, social.Post{ID: 1001, AuthorID: 2, CreatedAt: at(1), Text: "rewritten", Views: i64(3)})
		st := mustWrite(t, s, b)
		want := social.WriteStats{UsersInserted: 300, UsersUpdated: 1, PostsInserted: 500, PostsUpdated: 1}
		if st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
		checkUser(t, s, 3, "u3-full", "Three", false)
		checkUser(t, s, 6, "u6", "", true)
		searchIDs(t, s, "rewritten post", search.Word{Text: "rewritten"}, []int64{1001})
		searchIDs(t, s, "bulk word", search.Word{Text: "number250"}, []int64{1250})
		m, err := s.Mentions(ctx, "u0", social.PageReq{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Items) != 100 {
			t.Errorf("mentions of u0: %d posts, want 100", len(m.Items))
		}
		st = mustWrite(t, s, b)
		want = social.WriteStats{UsersUpdated: 201, PostsUpdated: 501}
		if st != want {
			t.Errorf("second write: stats %+v, want %+v", st, want)
		}
		c, _ := s.Counts(ctx)
		if c["users"] != 300 || c["posts"] != 500 || c["follows"] != 300 {
			t.Errorf("counts %v", c)
		}
	})
}

func mustWrite(t *testing.T, s social.Store, b *social.Batch) social.WriteStats {
	t.Helper()
	st, err := s.Write(ctxFor(t), b)
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	return st
}

func checkUser(t *testing.T, s social.Store, id int64, screen, name string, stub bool) social.User {
	t.Helper()
	u, err := s.User(ctxFor(t), id)
	if err != nil {
		t.Fatalf("User(%d): %v", id, err)
	}
	if u.ScreenName != screen || u.Name != name || u.Stub != stub {
		t.Errorf("User(%d) = %q %q stub=%v, want %q %q stub=%v", id, u.ScreenName, u.Name, u.Stub, screen, name, stub)
	}
	return u
}
