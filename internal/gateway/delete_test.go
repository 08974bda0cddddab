package gateway

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// TestDeletionForgetsPages: a deletion, made by another process on the
// same database, makes no gateway serve a page it fetched before it (from
// memory or from the table): the next request goes upstream, and the
// deleted post is not stored again from the page.
func TestDeletionForgetsPages(t *testing.T) {
	up := sharedUpstream(t)
	path := filepath.Join(t.TempDir(), "gw.db")
	a := newFront(t, up, openSQLite(t, path))
	defer a.store.Close()
	b := newFront(t, up, openSQLite(t, path)) // another replica
	defer b.store.Close()
	key, _ := newKey(a.store, 1000*1_000_000)
	page := userPath(up.sum.Examples.UserID, "tweets")
	code, first := get(b.h, key, page)
	if code != http.StatusOK || len(tweetIDs(t, first)) == 0 {
		t.Fatalf("%d %s", code, first)
	}
	before := up.calls.Load()
	if code, again := get(b.h, key, page); code != http.StatusOK || again != first || up.calls.Load() != before {
		t.Fatalf("the page is not kept: %d, %d upstream calls", code, up.calls.Load()-before)
	}
	ctx := context.Background()
	// A post of the page is deleted by the other replica, then the other
	// way round: each time the one holding the page fetches it again.
	for i, f := range []*front{b, a} {
		other := map[*front]*front{a: b, b: a}[f]
		if code, _ := get(f.h, key, page); code != http.StatusOK { // held in memory now
			t.Fatal(code)
		}
		id, err := strconv.ParseInt(tweetIDs(t, first)[i], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.store.Write(ctx, &social.Batch{DeletePosts: []int64{id}}); err != nil {
			t.Fatal(err)
		}
		before := up.calls.Load()
		if code, _ := get(f.h, key, page); code != http.StatusOK || up.calls.Load() != before+1 {
			t.Fatalf("after a deletion: %d, %d upstream calls, want 1", code, up.calls.Load()-before)
		}
		if _, err := f.store.Post(ctx, id); err == nil {
			t.Fatal("the deleted post was stored again from an upstream page")
		}
	}
}
