package postgres

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestSearchTimeIDs checks since:/until: as id bounds: used while every
// post's id agrees with its time, dropped once one does not, and the
// posts found the same either way.
func TestSearchTimeIDs(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	snow := func(at time.Time) int64 {
		return (at.UnixMilli() - social.SnowflakeEpochMS) << social.SnowflakeShift
	}
	var posts []social.Post
	for i := range 10 {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		posts = append(posts, social.Post{ID: snow(at) + int64(i), AuthorID: 1, CreatedAt: at, Text: "day post"})
	}
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: posts}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	query := "day since:2025-03-03 until:2025-03-06"
	check := func(wantBounds bool, want ...int64) {
		t.Helper()
		q, err := search.Parse(query, t0)
		if err != nil {
			t.Fatal(err)
		}
		c := &compiler{s: s, pool: s.pool, ctx: ctx}
		where, err := c.where(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(where, "p.id > ") && strings.Contains(where, "p.id <= "); got != wantBounds {
			t.Errorf("id bounds in %q: %v, want %v", where, got, wantBounds)
		}
		for _, o := range []social.Order{social.Latest, social.Top} {
			if got := searchtest.FirstPageIDs(t, s, q, o); !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", o, got, want)
			}
		}
	}
	check(true, posts[2].ID, posts[3].ID, posts[4].ID)
	// An imported post with a sequential id, created inside the range.
	odd := social.Post{ID: 7, AuthorID: 1, CreatedAt: t0.Add(72 * time.Hour), Text: "day post"}
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{odd}}); err != nil {
		t.Fatal(err)
	}
	check(false, 7, posts[2].ID, posts[3].ID, posts[4].ID)
	// Its time corrected to agree with its id: no outlier is left.
	odd.CreatedAt = time.UnixMilli(social.SnowflakeEpochMS)
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{odd}}); err != nil {
		t.Fatal(err)
	}
	check(true, posts[2].ID, posts[3].ID, posts[4].ID)
}
