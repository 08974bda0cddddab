package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestSearchFloorGathers checks that a word the planner's statistics do
// not know is gathered whatever gatherMin, and a word they list as common
// is walked: with gatherMin 0 only the floor can make a search gather.
func TestSearchFloorGathers(t *testing.T) {
	ctx := context.Background()
	rec := &queryLog{}
	s, err := OpenOptions(ctx, freshURL(t), Options{Tracer: rec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.gatherMin = 0

	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	b := social.Batch{Users: []social.User{{ID: 1, ScreenName: "ann", CreatedAt: t0}}}
	var rare []int64
	for i := range 3000 {
		at := t0.Add(time.Duration(i) * time.Minute)
		p := social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at,
			Text: fmt.Sprintf("common filler%d", i/2)}
		if i%1000 == 7 {
			p.Text += " scarceword"
			rare = append(rare, p.ID)
		}
		b.Posts = append(b.Posts, p)
	}
	if _, err := s.Write(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if err := s.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query  string
		gather bool
		want   []int64
	}{
		{"scarceword", true, rare},
		{"scarceword OR filler3", true, nil},
		{"common", false, nil},
	} {
		q, err := search.Parse(c.query, t0)
		if err != nil {
			t.Fatal(err)
		}
		rec.take()
		got := searchtest.FirstPageIDs(t, s, q, social.Latest)
		gathered := false
		for _, r := range rec.take() {
			gathered = gathered || strings.Contains(r.sql, "AS MATERIALIZED")
		}
		if gathered != c.gather {
			t.Errorf("%q: gathered %v, want %v", c.query, gathered, c.gather)
		}
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.query, got, c.want)
		}
	}
}

func TestAnchors(t *testing.T) {
	for _, c := range []struct {
		query string
		want  int
	}{
		{"a", 1},
		{"a b", 2},
		{`"a b"`, 1},
		{"a OR b OR c", 3},
		{"a -b", 1},
		{"#tag", 0},
		{"from:ann a", 1},
	} {
		q, err := search.Parse(c.query, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got := anchors(search.Lower(q).Root); got != c.want {
			t.Errorf("anchors(%q) = %d, want %d", c.query, got, c.want)
		}
	}
}
