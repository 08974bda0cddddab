package searchtest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
)

// Network is the generated network Run writes: small enough for brute force,
// large enough that every operator meets matches and non-matches. The
// vector file's expected ids hold for exactly this configuration.
func Network() gen.Config { return gen.Config{Seed: 20260601, Users: 150, Posts: 3000} }

// Now is the time within_time: counts back from in Run's queries.
var Now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// pageSize is the page size of a walk over want matches: small, so that
// every walk crosses several pages, but at most about ten pages.
func pageSize(want int) int { return max(7, want/8+1) }

// Run checks s.Search against Eval. s must be an empty store; Run writes
// Network into it, then runs:
//   - "vectors": every query of search/testdata/search_vectors.txt gives
//     the recorded ids (Eval must agree too; set ROOST_UPDATE_SEARCH_VECTORS=1
//     to rewrite the file from Eval after a deliberate change);
//   - "property": random combinations of operators over values present in
//     the data; every returned post satisfies Eval, and walking all pages
//     (cursors, Latest and Top; max_id:, Latest) equals the brute force;
//   - "walk while writing": a cursor walk and a max_id: walk stay exact
//     while newer posts are written between pages.
//
// A store's test calls it with a fresh store, for example
//
//	func TestSearch(t *testing.T) { searchtest.Run(t, openEmptyStore(t)) }
func Run(t *testing.T, s social.Store) {
	t.Helper()
	ctx := context.Background()
	m := newModel()
	if _, err := gen.Generate(ctx, recorder{w: s, m: m}, Network(), nil); err != nil {
		t.Fatalf("generate network: %v", err)
	}
	t.Run("vectors", func(t *testing.T) { runVectors(ctx, t, s, m) })
	t.Run("property", func(t *testing.T) { runProperty(ctx, t, s, m) })
	t.Run("walk while writing", func(t *testing.T) { runWalkWhileWriting(ctx, t, s, m) })
}

// check compares the store's answer to q with the brute force, walking
// with cursors in both orders and with max_id: in Latest order.
func check(ctx context.Context, s social.Store, m *model, q *search.Query) error {
	for _, order := range []social.Order{social.Latest, social.Top} {
		want := m.match(q, order)
		got, err := walk(ctx, s, q, order, len(want))
		if err != nil {
			return err
		}
		if err := m.verify(q, got); err != nil {
			return err
		}
		if err := sameIDs(fmt.Sprintf("%s cursor walk", order), ids(got), want); err != nil {
			return err
		}
		if order == social.Latest {
			got, err := walkMaxID(ctx, s, q, len(want))
			if err != nil {
				return err
			}
			if err := sameIDs("Latest max_id: walk", got, want); err != nil {
				return err
			}
		}
	}
	return nil
}

// verify checks every returned post, as the store returned it, with Eval.
func (m *model) verify(q *search.Query, posts []social.Post) error {
	for i := range posts {
		p := &posts[i]
		if !Eval(q, p, m.users[p.AuthorID], m) {
			return fmt.Errorf("post %d returned but does not match", p.ID)
		}
	}
	return nil
}

// walk follows the cursors of q's pages; want bounds the pages it expects.
func walk(ctx context.Context, s social.Store, q *search.Query, order social.Order, want int) ([]social.Post, error) {
	var out []social.Post
	req := social.PageReq{Limit: pageSize(want)}
	for pages := 0; ; pages++ {
		if pages > want/req.Limit+2 {
			return out, fmt.Errorf("%s walk: more pages than the %d matches need", order, want)
		}
		page, err := s.Search(ctx, q, order, req)
		if err != nil {
			return out, fmt.Errorf("%s walk: %w", order, err)
		}
		out = append(out, page.Items...)
		if page.Next == nil {
			return out, nil
		}
		req.After = page.Next
	}
}

// walkMaxID repeats q with max_id: set to the lowest id received, as
// docs/search.md, "Reading past the cursors", tells researchers to; max_id: is inclusive, so the post at the
// boundary comes again first and is dropped.
func walkMaxID(ctx context.Context, s social.Store, q *search.Query, want int) ([]int64, error) {
	var out []int64
	cur := q
	for rounds := 0; ; rounds++ {
		if rounds > want/pageSize(want)+2 {
			return out, fmt.Errorf("max_id: walk: more rounds than the %d matches need", want)
		}
		page, err := s.Search(ctx, cur, social.Latest, social.PageReq{Limit: pageSize(want)})
		if err != nil {
			return out, fmt.Errorf("max_id: walk: %w", err)
		}
		got := ids(page.Items)
		if len(out) > 0 && len(got) > 0 && got[0] == out[len(out)-1] {
			got = got[1:]
		}
		if len(got) == 0 {
			return out, nil
		}
		out = append(out, got...)
		cur = withMaxID(q, out[len(out)-1])
	}
}

// withMaxID is q AND max_id:id, as appending the operator to the query text.
func withMaxID(q *search.Query, id int64) *search.Query {
	bound := search.IDBound{Max: true, ID: id}
	switch r := q.Root.(type) {
	case nil:
		return &search.Query{Root: bound, Reposts: q.Reposts}
	case search.And:
		return &search.Query{Root: search.And{Children: append(slices.Clone(r.Children), bound)}, Reposts: q.Reposts}
	}
	return &search.Query{Root: search.And{Children: []search.Node{q.Root, bound}}, Reposts: q.Reposts}
}

func ids(ps []social.Post) []int64 {
	out := make([]int64, len(ps))
	for i := range ps {
		out[i] = ps[i].ID
	}
	return out
}

func sameIDs(what string, got, want []int64) error {
	if slices.Equal(got, want) {
		return nil
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	g, w := "end", "end"
	if i < len(got) {
		g = fmt.Sprint(got[i])
	}
	if i < len(want) {
		w = fmt.Sprint(want[i])
	}
	return fmt.Errorf("%s: %d posts, want %d; first difference at %d: got %s, want %s", what, len(got), len(want), i, g, w)
}

// sampled says whether the i-th of a suite's sequential checks runs. The
// race detector sees races between goroutines, and these checks ask one
// query at a time (the store's own goroutines still run beside them), at
// a tenth of the speed: under it one check in raceSample runs, and the
// plain run, which CI runs too, runs them all. The checks of queries
// while writing run whole in both.
func sampled(i int) bool { return i%raceSample == 0 }
