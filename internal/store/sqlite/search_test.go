package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestSearch checks Search against the brute-force reference: the vector
// file, random operator combinations, and walks while writing.
func TestSearch(t *testing.T) {
	searchtest.Run(t, openTest(t))
}

// TestSearchPlans runs the same checks with the planner's caps lowered,
// so that the small test network takes the paths of big databases:
//   - buckets: every Top page found bucket by bucket (search_top.go), by
//     the driver's candidates sorted within buckets where the query has a
//     driver, else by score windows; every Latest query of several drivers
//     planned as a common one (commonDriver);
//   - windows: every Top page found by score windows, as for drivers too
//     dense to sort bucket by bucket.
//
// The paths are sequential, so the race run leaves them to the plain run,
// which CI runs too.
func TestSearchPlans(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes the whole search suite run again too slowly; the plain run covers it")
	}
	for _, c := range []struct {
		name                           string
		topSet, bucketDriver, estimate int
	}{
		{"buckets", 1, 0, 1},
		{"windows", 1, 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := openTest(t)
			s.topSetCap, s.bucketDriverCap, s.estimateCap = c.topSet, c.bucketDriver, c.estimate
			searchtest.Run(t, s)
		})
	}
}

func TestTokensMatch(t *testing.T) {
	for _, c := range []struct {
		index, pattern string
		want           bool
	}{
		{"the cat sat", "cat", true},
		{"the cats sat", "cat", false},
		{"concat cat", "cat", true},
		{"the cat sat", "the * sat", true},
		{"the cat sat", "the * cat", false},
		{"a b c d", "a * * d", true},
		{"", "a", false},
		{"a", "", false},
	} {
		if got := tokensMatch(c.index, c.pattern); got != c.want {
			t.Errorf("tokensMatch(%q, %q) = %v, want %v", c.index, c.pattern, got, c.want)
		}
	}
}

func TestURLContains(t *testing.T) {
	for _, c := range []struct {
		url, sub string
		want     bool
	}{
		{"https://GitHub.com/x", "github.com", true},
		{"https://x.com/sofia-dev", "sofia_dev", true},
		{"https://x.com/sofia_dev", "sofia_dev", true},
		{"https://x.com/sofia_dev", "sofia-dev", false},
		{"https://x.com/a", "b.com", false},
	} {
		if got := urlContains(c.url, c.sub); got != c.want {
			t.Errorf("urlContains(%q, %q) = %v, want %v", c.url, c.sub, got, c.want)
		}
	}
}

func TestFTSURL(t *testing.T) {
	for _, c := range []struct{ sub, want string }{
		{"github.com", `urls : "com" *`},
		{"/status/12", `urls : "status 12" *`},
		{"news.example.com/", `urls : "example com"`},
		{"github", ""},
		{"é.com", ""},
	} {
		got, ok := ftsURL(search.LowerURL(c.sub))
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("ftsURL(%q) = %q, want %q", c.sub, got, c.want)
		}
	}
}

// TestSearchMarksOnly: a token of combining marks only is no FTS5 term but
// still matches exactly.
func TestSearchMarksOnly(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	now := time.Now().UTC()
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "aa"}}, Posts: []social.Post{
		{ID: 10, AuthorID: 1, CreatedAt: now, Text: "abc \u0903 xyz"},
		{ID: 11, AuthorID: 1, CreatedAt: now, Text: "abc\u0903d xyz"},
	}}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []int64
	}{{"\u0903", []int64{10}}, {"abc", []int64{10}}, {"abc\u0903d", []int64{11}}, {`"abc * xyz"`, []int64{10}}} {
		q, err := search.Parse(c.query, now)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := s.Search(ctx, q, social.Latest, social.PageReq{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, p := range pg.Items {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.query, got, c.want)
		}
	}
}

// TestMayMatch checks that the quick condition of roost_match never rejects
// a match: for random ASCII texts (cases, entities, URLs, punctuation) and
// patterns of their own tokens, or of tokens they lack.
func TestMayMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"Go", "go", "GOLANG", "lang", "&amp;", "&lt;", "x", "https://Example.com/Go_Lang", " ", " ", "-", "'s", "#Go", "@Gopher", "42", "é", "\t"}
	misses := 0
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		toks := strings.Fields(search.IndexText(text))
		var pat []string
		for range 1 + rng.IntN(3) {
			switch {
			case len(toks) > 0 && rng.IntN(3) > 0:
				pat = append(pat, toks[rng.IntN(len(toks))])
			case rng.IntN(4) == 0:
				pat = append(pat, "*")
			default:
				pat = append(pat, []string{"go", "gopher", "example", "amp", "lt", "zz", "e"}[rng.IntN(7)])
			}
		}
		pattern := strings.Join(pat, " ")
		want := tokensMatch(search.IndexText(text), pattern)
		got := mayMatch(text, pattern)
		if want && !got {
			t.Fatalf("mayMatch(%q, %q) = false, but the text matches", text, pattern)
		}
		if !got {
			misses++
		}
	}
	if misses == 0 {
		t.Errorf("mayMatch never rejected a text: the quick condition does nothing")
	}
}

// TestSearchSortedFilter: a common Latest query driven by a sorted driver
// (min_faves:) requires the ids of its other small drivers (the word)
// before it reads a post, and still finds exactly the matches.
func TestSearchSortedFilter(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	s.estimateCap = 1 // every query of several drivers planned as a common one
	var posts []social.Post
	var want []int64
	for i := range 300 {
		p := social.Post{ID: int64(1000 + i), AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Minute), Text: "other text"}
		switch {
		case i >= 50:
			p.Text = "the word here"
		case i%5 == 0:
			p.Text, p.FavoriteCount = "the word here", 50
			want = append(want, p.ID)
		case i%5 == 1:
			p.FavoriteCount = 50
		}
		posts = append(posts, p)
	}
	slices.Reverse(want)
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	q, err := search.Parse("min_faves:10 word", t0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.searchStatement(ctx, q, social.Latest, social.PageReq{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if st.driver != "faves+sort&fts" {
		t.Errorf("driver %q, want faves+sort&fts", st.driver)
	}
	if got := searchtest.PagedIDs(t, s, q, social.Latest, 4); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestSearchNarrowed: when the smallest driver (the word, 154 posts) is
// not tiny and another (min_faves:, 600 posts) has fewer than filterRatio
// times its rows, the page requires the other's ids before it reads a
// post, in both orders, and still finds exactly the matches, page after
// page.
func TestSearchNarrowed(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var posts []social.Post
	var want []int64
	for i := range 2000 {
		p := social.Post{ID: int64(1000 + i), AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Minute), Text: "other text"}
		if i%2 == 0 && i < 1200 {
			p.FavoriteCount = 10 + int64(i%7)
		}
		if i%13 == 0 {
			p.Text = "the word here"
			if p.FavoriteCount >= 10 {
				want = append(want, p.ID)
			}
		}
		posts = append(posts, p)
	}
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	q, err := search.Parse("min_faves:10 word", t0)
	if err != nil {
		t.Fatal(err)
	}
	for o, driver := range map[social.Order]string{social.Latest: "fts&faves", social.Top: "fts+sort&faves"} {
		st, err := s.searchStatement(ctx, q, o, social.PageReq{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if st.driver != driver {
			t.Errorf("%v: driver %q, want %s", o, st.driver, driver)
		}
		got := searchtest.PagedIDs(t, s, q, o, 7)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%v: got %v, want %v", o, got, want)
		}
	}
	// Counted up to 200 rows each, min_faves: (600 posts) and from:alice
	// (2,000) read "at least 200": each is counted again, up to ten times
	// the word's rows, and only min_faves: narrows.
	s.estimateCap = 200
	q, err = search.Parse("min_faves:10 word from:alice", t0)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.searchStatement(ctx, q, social.Latest, social.PageReq{Limit: 20}); err != nil || st.driver != "fts&faves" {
		t.Errorf("counted up to 200: driver %q (%v), want fts&faves", st.driver, err)
	}
}

// TestSearchTo: to: is driven by the replies to the name (index posts_to),
// in any case, and finds exactly the replies to it.
func TestSearchTo(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	var posts []social.Post
	var want []int64
	for i := range 40 {
		p := social.Post{ID: int64(500 + i), AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Minute), Text: "hello"}
		switch i % 4 {
		case 0:
			p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName = 9, 2, "Bob"
			want = append(want, p.ID)
		case 1:
			p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName = 9, 3, "bobby"
		case 2:
			p.InReplyToScreenName = "Bob" // a name left without a reply: not a reply
		}
		posts = append(posts, p)
	}
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"to:bob", "to:BOB hello"} {
		checkDriven(t, s, text, "to", want)
	}
}

// latestDriven parses query and checks that the plan of its first Latest
// page is driven by driver.
func latestDriven(t *testing.T, s *Store, query, driver string) *search.Query {
	t.Helper()
	q, err := search.Parse(query, t0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.searchStatement(context.Background(), q, social.Latest, social.PageReq{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if st.driver != driver {
		t.Errorf("%q: driver %q, want %q", query, st.driver, driver)
	}
	return q
}

// checkDriven checks a query in both orders: its plan names driver first,
// and its first page holds exactly want (at most 20 ids).
func checkDriven(t *testing.T, s *Store, query, driver string, want []int64) {
	t.Helper()
	q, err := search.Parse(query, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []social.Order{social.Latest, social.Top} {
		st, err := s.searchStatement(context.Background(), q, o, social.PageReq{Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.driver, driver) {
			t.Errorf("%q %v: driver %q, want %s", query, o, st.driver, driver)
		}
		if got := searchtest.FirstPageIDs(t, s, q, o); !slices.Equal(got, want) {
			t.Errorf("%q %v: got %v, want %v", query, o, got, want)
		}
	}
}

// TestSearchList: list: is driven by its members' posts (sorted) and finds
// exactly them, in both orders and with another condition.
func TestSearchList(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	b := &social.Batch{
		Lists:       []social.List{{ID: 77, OwnerID: 1, Name: "l", Mode: "Public", CreatedAt: t0}},
		ListMembers: []social.ListMember{{ListID: 77, UserID: 1, CreatedAt: t0}, {ListID: 77, UserID: 2, CreatedAt: t0}},
	}
	var want, wantWord []int64
	for u := int64(1); u <= 3; u++ {
		b.Users = append(b.Users, social.User{ID: u, ScreenName: fmt.Sprintf("user%d", u), CreatedAt: t0})
	}
	for i := range 30 { // the members' 20 posts fit one page
		p := social.Post{ID: int64(900 + i), AuthorID: int64(1 + i%3), CreatedAt: t0.Add(time.Duration(i) * time.Minute), Text: "plain"}
		if i%2 == 0 {
			p.Text = "plain word"
		}
		if p.AuthorID != 3 {
			want = append(want, p.ID)
			if i%2 == 0 {
				wantWord = append(wantWord, p.ID)
			}
		}
		b.Posts = append(b.Posts, p)
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	checkDriven(t, s, "list:77", "list", want)
	checkDriven(t, s, "list:77 word", "list", wantWord)
	checkDriven(t, s, "list:78", "list", nil)
}
