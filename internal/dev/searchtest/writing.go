package searchtest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// runWalkWhileWriting walks a broad query, with cursors and with max_id:,
// writing a newer post between pages: the walk must give exactly the
// posts that matched when it started.
func runWalkWhileWriting(ctx context.Context, t *testing.T, s social.Store, m *model) {
	q, err := search.Parse("include:nativeretweets -filter:quote", Now)
	if err != nil {
		t.Fatal(err)
	}
	rec := recorder{w: s, m: m}
	ids := m.sortedIDs()
	next := ids[0]
	author := m.posts[ids[0]].AuthorID
	write := func() error {
		next += 1 << 22 // one millisecond later
		p := social.Post{ID: next, AuthorID: author, CreatedAt: time.UnixMilli((next >> 22) + 1288834974657).UTC(),
			Text: "written during a walk", Lang: "en"}
		_, err := rec.Write(ctx, &social.Batch{Posts: []social.Post{p}})
		return err
	}
	want := m.match(q, social.Latest)
	req := social.PageReq{Limit: pageSize(len(want))}
	var got []int64
	for pages := 0; ; pages++ {
		if pages > len(want)/req.Limit+2 {
			t.Fatal("cursor walk does not end")
		}
		page, err := s.Search(ctx, q, social.Latest, req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range page.Items {
			got = append(got, page.Items[i].ID)
		}
		if err := write(); err != nil {
			t.Fatal(err)
		}
		if page.Next == nil {
			break
		}
		req.After = page.Next
	}
	if err := sameIDs("cursor walk while writing", got, want); err != nil {
		t.Error(err)
	}
	// max_id: walk from the newest post at its start.
	start := m.match(q, social.Latest)
	cur := withMaxID(q, start[0])
	got = nil
	for rounds := 0; ; rounds++ {
		if rounds > len(start)/req.Limit+2 {
			t.Fatal("max_id: walk does not end")
		}
		page, err := s.Search(ctx, cur, social.Latest, social.PageReq{Limit: req.Limit})
		if err != nil {
			t.Fatal(err)
		}
		batch := make([]int64, 0, len(page.Items))
		for i := range page.Items {
			batch = append(batch, page.Items[i].ID)
		}
		if len(got) > 0 && len(batch) > 0 && batch[0] == got[len(got)-1] {
			batch = batch[1:]
		}
		if len(batch) == 0 {
			break
		}
		got = append(got, batch...)
		if err := write(); err != nil {
			t.Fatal(err)
		}
		cur = withMaxID(q, got[len(got)-1])
	}
	if !slices.Equal(got, start) {
		t.Error(fmt.Errorf("max_id: walk while writing: %w", sameIDs("max_id: walk", got, start)))
	}
}
