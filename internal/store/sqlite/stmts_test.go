package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestRowChunks: the sizes cover n exactly, none is above chunk, and all
// sizes up to a chunk come in a handful of texts.
func TestRowChunks(t *testing.T) {
	sizes := map[int]bool{}
	for _, chunk := range []int{64, 500, 512, 2000} {
		for n := range 3 * chunk {
			sum := 0
			for _, k := range rowChunks(n, chunk) {
				if k <= 0 || k > chunk {
					t.Fatalf("rowChunks(%d, %d) has a statement of %d rows", n, chunk, k)
				}
				sum += k
				if chunk == 500 {
					sizes[k] = true
				}
			}
			if sum != n {
				t.Fatalf("rowChunks(%d, %d) covers %d rows", n, chunk, sum)
			}
		}
	}
	if len(sizes) > 10 {
		t.Fatalf("%d sizes of statements for chunks of 500", len(sizes))
	}
}

// TestWriteStatementsKept: writes of every size from 1 to 80 posts keep
// their statements prepared on the write connection, in a bounded number
// of texts, and another round of the same writes prepares none anew (and
// stores all).
func TestWriteStatementsKept(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	id := int64(1000)
	round := func() {
		for n := 1; n <= 80; n++ {
			b := &social.Batch{Users: []social.User{{ID: int64(n), ScreenName: fmt.Sprintf("u%d", n), CreatedAt: t0}}}
			for range n {
				id++
				b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: int64(n), CreatedAt: t0.Add(time.Duration(id) * time.Second),
					Text: fmt.Sprintf("post %d #tag%d @u%d https://example.com/%d", id, n%7, n, id), Lang: "en",
					Entities: social.Entities{
						Hashtags: []social.Tag{{Text: fmt.Sprintf("tag%d", n%7)}},
						Mentions: []social.Mention{{UserID: int64(n), ScreenName: fmt.Sprintf("u%d", n)}},
						URLs:     []social.URL{{URL: "https://t.co/x", ExpandedURL: fmt.Sprintf("https://example.com/%d", id)}},
					}})
			}
			if _, err := s.Write(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	kept := func() int {
		s.wstmts.mu.Lock()
		defer s.wstmts.mu.Unlock()
		return len(s.wstmts.stmts)
	}
	// The first round makes its users; the later ones update them.
	round()
	round()
	second := kept()
	if second == 0 || second > 120 {
		t.Fatalf("%d write statements kept after writes of 1 to 80 posts", second)
	}
	round()
	if n := kept(); n != second {
		t.Fatalf("a third round of the same writes kept %d statements, the second %d", n, second)
	}
	counts, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(3 * 80 * 81 / 2); counts["posts"] != want {
		t.Fatalf("%d posts stored, want %d", counts["posts"], want)
	}
	// #tag3 is in 3 × (3+10+…+80) posts; a page holds the newest 500.
	q := search.Query{Root: search.Hashtag{Tag: "tag3"}}
	page, err := s.Search(ctx, &q, social.Latest, social.PageReq{Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 500 || page.Items[0].ID != id {
		t.Fatalf("#tag3 finds %d posts, the first %d; want 500, the first %d", len(page.Items), page.Items[0].ID, id)
	}
}

// TestSearchStatementsKept: a cursor walk of a search prepares its
// statements once, not once a page; past maxReadStmts queries still
// answer, unprepared.
func TestSearchStatementsKept(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "a", CreatedAt: t0}}}
	for i := range 200 {
		b.Posts = append(b.Posts, social.Post{ID: int64(100 + i), AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Minute),
			Text: fmt.Sprintf("walk %d", i)})
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	kept := func() int {
		s.stmtMu.Lock()
		defer s.stmtMu.Unlock()
		return len(s.stmts)
	}
	q := search.Query{Root: search.Word{Text: "walk"}}
	walk := func() (pages, posts int) {
		req := social.PageReq{Limit: 10}
		for {
			page, err := s.Search(ctx, &q, social.Latest, req)
			if err != nil {
				t.Fatal(err)
			}
			pages, posts = pages+1, posts+len(page.Items)
			if page.Next == nil {
				return pages, posts
			}
			req.After = page.Next
		}
	}
	walk()
	before := kept()
	if pages, posts := walk(); posts != 200 || pages < 20 {
		t.Fatalf("walked %d posts in %d pages", posts, pages)
	}
	if n := kept(); n != before {
		t.Fatalf("a second walk prepared %d statements more", n-before)
	}
	s.stmtMu.Lock()
	for i := len(s.stmts); i < maxReadStmts; i++ {
		s.stmts[fmt.Sprintf("filler %d", i)] = nil
	}
	for k, v := range s.stmts {
		if v != nil {
			v.Close()
			delete(s.stmts, k)
			s.stmts["filler "+k] = nil
		}
	}
	s.stmtMu.Unlock()
	if _, posts := walk(); posts != 200 {
		t.Fatalf("past the bound, walked %d posts", posts)
	}
	s.stmtMu.Lock()
	clear(s.stmts)
	s.stmtMu.Unlock()
}
