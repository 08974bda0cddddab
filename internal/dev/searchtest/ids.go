package searchtest

import (
	"context"
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// FirstPageIDs runs a parsed query on s in one order and returns the ids of
// its first page of up to 20 posts, sorted ascending: the set a test
// compares, whatever the order.
func FirstPageIDs(t testing.TB, s social.Reader, q *search.Query, o social.Order) []int64 {
	t.Helper()
	pg, err := s.Search(context.Background(), q, o, social.PageReq{Limit: 20})
	if err != nil {
		t.Fatalf("search %v: %v", o, err)
	}
	var got []int64
	for _, p := range pg.Items {
		got = append(got, p.ID)
	}
	slices.Sort(got)
	return got
}

// PagedIDs runs a parsed query on s in one order, following its cursors
// with pages of limit posts, and returns the ids of every page in the
// order received.
func PagedIDs(t testing.TB, s social.Reader, q *search.Query, o social.Order, limit int) []int64 {
	t.Helper()
	var got []int64
	req := social.PageReq{Limit: limit}
	for {
		pg, err := s.Search(context.Background(), q, o, req)
		if err != nil {
			t.Fatalf("search %v: %v", o, err)
		}
		for _, p := range pg.Items {
			got = append(got, p.ID)
		}
		if pg.Next == nil {
			return got
		}
		req.After = pg.Next
	}
}
