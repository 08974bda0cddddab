// Package storetest is the behaviour suite every social.Store engine must
// pass: writes and their counts, every reader's order and keyset paging,
// accounts and billing, and search over each node of the query AST. An
// engine's test calls Run with a function that opens a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Store is what an engine's store is: the data, with the storage of the
// monitors and of the world row, which the suite checks too.
type Store interface {
	social.Store
	social.Snapshots
	Monitors() sqlstore.Monitors
	World() sqlstore.World
}

// Opener opens a fresh, empty store for one test; the caller closes it with
// t.Cleanup.
type Opener func(t *testing.T) Store

// Run runs the whole suite against stores made by open.
func Run(t *testing.T, open Opener) {
	t.Run("Write", func(t *testing.T) { testWrite(t, open) })
	t.Run("Readers", func(t *testing.T) { testReaders(t, open) })
	t.Run("LikesSpacesBios", func(t *testing.T) { testLikesSpacesBios(t, open) })
	t.Run("Paging", func(t *testing.T) { testPaging(t, open) })
	t.Run("Accounts", func(t *testing.T) { testAccounts(t, open) })
	t.Run("Admin", func(t *testing.T) { testAdmin(t, open) })
	t.Run("StreamKeys", func(t *testing.T) { testStreamKeys(t, open) })
	t.Run("Search", func(t *testing.T) { testSearch(t, open) })
	t.Run("Unfollows", func(t *testing.T) { testUnfollows(t, open) })
	t.Run("Removals", func(t *testing.T) { testRemovals(t, open) })
	t.Run("Deletes", func(t *testing.T) { testDeletes(t, open) })
	t.Run("World", func(t *testing.T) { testWorld(t, open) })
	t.Run("ChangeLog", func(t *testing.T) { testChangeLog(t, open) })
	t.Run("Versions", func(t *testing.T) { testVersions(t, open) })
	t.Run("Snapshots", func(t *testing.T) { testSnapshots(t, open) })
	t.Run("SnapshotsStacked", func(t *testing.T) { testSnapshotsStacked(t, open) })
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// withFixture opens a store holding the fixture.
func withFixture(t *testing.T, open Opener) (social.Store, context.Context) {
	t.Helper()
	s := open(t)
	ctx := ctxFor(t)
	if _, err := s.Write(ctx, fixture()); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	return s, ctx
}

func postIDs(ps []social.Post) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func userIDs(us []social.User) []int64 {
	out := make([]int64, len(us))
	for i, u := range us {
		out[i] = u.ID
	}
	return out
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func wantIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: got ids %v, want %v", what, got, want)
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: got error %v, want %v", what, err, target)
	}
}

// all walks a paged reader to the end with pages of size n, failing on a
// repeated item or a page larger than n, and returns every key in order.
func all[T any](t *testing.T, what string, n int, read func(social.PageReq) (social.Page[T], error), id func(T) int64) []int64 {
	t.Helper()
	var out []int64
	seen := map[int64]bool{}
	req := social.PageReq{Limit: n}
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatalf("%s: paging does not end", what)
		}
		page, err := read(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(page.Items) > n {
			t.Fatalf("%s: page of %d items, limit %d", what, len(page.Items), n)
		}
		for _, it := range page.Items {
			k := id(it)
			if seen[k] {
				t.Fatalf("%s: item %d repeated", what, k)
			}
			seen[k] = true
			out = append(out, k)
		}
		if page.Next == nil {
			return out
		}
		if len(page.Items) < n {
			t.Errorf("%s: short page of %d items with a next key", what, len(page.Items))
		}
		req.After = page.Next
	}
}

func postID(p social.Post) int64 { return p.ID }
func userID(u social.User) int64 { return u.ID }
