package sqlite

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestSearchScoreFloor checks the score floors of min_* Top pages read by
// buckets: a match is found while every count is non-negative, and still
// found, with the floor off, once a stored post has a negative count that
// puts its score below the floor.
func TestSearchScoreFloor(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.topSetCap, s.bucketDriverCap = 1, 1 // every Top page by score windows
	var posts []social.Post
	for i := range 60 {
		at := t0.Add(time.Duration(i) * 36 * time.Hour)
		posts = append(posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at, Text: "plain words", FavoriteCount: int64(i % 7)})
	}
	// The match: 150 faves, and more engagement than any other post.
	hit := &posts[40]
	hit.FavoriteCount, hit.RetweetCount = 150, 3
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	top := func(query string) []int64 {
		t.Helper()
		q, err := search.Parse(query, t0)
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.searchStatement(ctx, q, social.Top, social.PageReq{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if st.buckets == nil && query != "min_faves:151" { // none counted: sorted, not bucketed
			t.Fatalf("%q: driver %q, want buckets", query, st.driver)
		}
		return searchtest.FirstPageIDs(t, s, q, social.Top)
	}
	floorOn := func() bool {
		t.Helper()
		tx, err := s.read.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		f, err := bucketFloors(ctx, tx, &plan{minEngagement: 100})
		if err != nil {
			t.Fatal(err)
		}
		return f != nil
	}
	if !floorOn() {
		t.Fatal("no floor while every count is non-negative and every id agrees with its time")
	}
	for _, q := range []string{"min_faves:100", "min_faves:150 plain", "min_retweets:1 min_faves:100", "min_faves:5 -min_faves:6"} {
		if got := top(q); len(got) == 0 || (q != "min_faves:5 -min_faves:6" && !slices.Equal(got, []int64{hit.ID})) {
			t.Errorf("%q: got %v, want the match", q, got)
		}
	}
	if got := top("min_faves:151"); len(got) != 0 {
		t.Errorf("min_faves:151: got %v, want none", got)
	}
	// A negative count lowers the match's engagement below its faves: the
	// floor must go, and the match still be found.
	hit.RetweetCount = -74
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{*hit}}); err != nil {
		t.Fatal(err)
	}
	if floorOn() {
		t.Fatal("a floor while a post has a negative count")
	}
	if got := top("min_faves:100"); !slices.Equal(got, []int64{hit.ID}) {
		t.Errorf("min_faves:100 with a negative count stored: got %v, want the match", got)
	}
	hit.RetweetCount = 0
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{*hit}}); err != nil {
		t.Fatal(err)
	}
	if !floorOn() {
		t.Fatal("no floor once the negative count is gone")
	}
}

// TestTopWindowCovered checks that a Top page's score window tests the
// conditions on flags, lang and likes from posts_bucket_score alone
// (migration 0037): the walk reads no post rows for them, which matters
// most for -min_faves:, whose matches a walk by score reaches last.
func TestTopWindowCovered(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, query := range []string{"-min_faves:2 -filter:retweets", "min_faves:5 lang:en", "-min_faves:10 -lang:ja"} {
		q, err := search.Parse(query, t0)
		if err != nil {
			t.Fatal(err)
		}
		c := &compiler{s: s, ctx: ctx}
		pl, err := c.plan(q)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]any{int64(900), pl.lo, pl.hi, int64(0), sqlstore.MaxInt64, sqlstore.MaxInt64, sqlstore.MaxInt64, sqlstore.MaxInt64},
			pl.where.Args...)
		plan := strings.Join(queryPlan(t, s, windowSQL(&pl, true), append(args, 21)...), " | ")
		if !strings.Contains(plan, "USING COVERING INDEX posts_bucket_score") {
			t.Errorf("%q: the score window reads post rows: %s", query, plan)
		}
	}
}

// TestTopCountsCached checks the count cache of Top plans
// (search_counts.go): a query's next page plans without counting again, and
// a write moves the content version, so that the next page counts afresh
// and finds the new posts.
func TestTopCountsCached(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.topSetCap = 1 // every Top page with a driver by buckets, counted
	write := func(from, n int, faves int64) {
		t.Helper()
		var posts []social.Post
		for i := from; i < from+n; i++ {
			at := t0.Add(time.Duration(i) * time.Hour)
			posts = append(posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at, Text: "a plain word", FavoriteCount: faves})
		}
		b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
		if _, err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 40, 1)
	q, err := search.Parse("word", t0)
	if err != nil {
		t.Fatal(err)
	}
	page := func(after *social.Key) social.Page[social.Post] {
		t.Helper()
		pg, err := s.Search(ctx, q, social.Top, social.PageReq{Limit: 10, After: after})
		if err != nil {
			t.Fatal(err)
		}
		return pg
	}
	first := page(nil)
	if s.counts.misses == 0 || first.Next == nil {
		t.Fatalf("the first page counted nothing through the cache (%d misses) or has no next page", s.counts.misses)
	}
	misses, hits := s.counts.misses, s.counts.hits
	page(first.Next)
	if s.counts.misses != misses || s.counts.hits == hits {
		t.Errorf("the next page counted again: misses %d → %d, hits %d → %d", misses, s.counts.misses, hits, s.counts.hits)
	}
	write(40, 3, 500) // liked far more than the others: the top of the page
	misses = s.counts.misses
	got := page(nil)
	if s.counts.misses == misses {
		t.Error("after a write the page planned with the counts of the version before")
	}
	for i, p := range got.Items[:3] {
		if p.FavoriteCount != 500 {
			t.Errorf("item %d after the write: %d likes, want one of the new posts", i, p.FavoriteCount)
		}
	}
}

// TestSearchFloorWalk: a Latest query with a least engagement is walked by
// score floor (posts_id_score) when it has no other driver, or when every
// driver is common and few posts pass the floor; the walk finds exactly the
// matches, page after page, and gives way to the scan once a stored count
// is negative (the floor's premise).
func TestSearchFloorWalk(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.estimateCap = 1 // every query of several drivers planned as a common one
	var posts []social.Post
	var both, retweeted []int64
	views := int64(600) // engagement 6 for every post
	for i := range 6000 {
		at := t0.Add(time.Duration(i) * time.Minute)
		p := social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at, Text: "other text", Views: &views}
		if i%2 == 0 {
			p.Text = "the word here"
		}
		if i%9 == 0 { // few enough to pass the floor, too many to sort
			// The word's matches have exactly the engagement min_faves:10
			// asks, the floor's closest case.
			p.FavoriteCount, p.Views = 10, nil
			if i%2 == 0 {
				both = append(both, p.ID)
			} else {
				p.RetweetCount = 1
				retweeted = append(retweeted, p.ID)
			}
		}
		posts = append(posts, p)
	}
	slices.Reverse(both)
	slices.Reverse(retweeted)
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	check := func(query, driver string, want []int64) {
		t.Helper()
		q := latestDriven(t, s, query, driver)
		if got := searchtest.PagedIDs(t, s, q, social.Latest, 20); !slices.Equal(got, want) {
			t.Errorf("%q: %d matches, want %d", query, len(got), len(want))
		}
	}
	check("min_faves:10 word", "floor", both)
	check("min_retweets:1", "floor", retweeted)
	// A floor that every post passes (their views) leaves a common query
	// to its own drivers.
	check("min_faves:5 word", "fts&faves", both)
	hit := posts[0] // not one of retweeted
	hit.RetweetCount = -1
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{hit}}); err != nil {
		t.Fatal(err)
	}
	check("min_retweets:1", "scan", retweeted)
}
