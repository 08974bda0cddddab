package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"testing"
	"time"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	lib "modernc.org/sqlite/lib"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// pageStatus is SQLite's current value of a page cache status counter.
func pageStatus(t *testing.T, op int32) int64 {
	t.Helper()
	tls := libc.NewTLS()
	defer tls.Close()
	p := libc.Xcalloc(tls, 2, types.Size_t(8))
	defer libc.Xfree(tls, p)
	if rc := lib.Xsqlite3_status64(tls, op, p, p+8, 0); rc != lib.SQLITE_OK {
		t.Fatalf("sqlite3_status64(%d): code %d", op, rc)
	}
	return int64(binary.NativeEndian.Uint64(libc.GoBytes(p, 8)))
}

// TestPagePool: reads take their pages from the process's page pool.
// Each round commits a post (which empties the readers' caches) and then
// searches: the pages read come from the pool's slots, and no page is
// allocated outside it.
func TestPagePool(t *testing.T) {
	ctx := context.Background()
	if tuning, _ := TuningFromEnv(os.LookupEnv); !tuning.PagePool {
		// The pool is the process's, and this one's stores opened SQLite
		// without it: TestPagePoolOff checks it in a fresh process.
		t.Skip("ROOST_SQLITE_TUNING leaves the page pool out of this process")
	}
	s := openTuned(t)
	if pagePool.err != nil {
		t.Fatal(pagePool.err)
	}
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "pool", CreatedAt: t0}}}
	for i := range 2000 {
		b.Posts = append(b.Posts, social.Post{ID: int64(100 + i), AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("pooled page %d of a longer text that fills the pages of the table", i), Lang: "en"})
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	q, err := search.Parse("pooled", t0)
	if err != nil {
		t.Fatal(err)
	}
	overflow := pageStatus(t, lib.SQLITE_STATUS_PAGECACHE_OVERFLOW)
	for i := range 20 {
		one := &social.Batch{Posts: []social.Post{{ID: int64(10_000 + i), AuthorID: 1, CreatedAt: t0.Add(time.Hour),
			Text: "pooled again", Lang: "en"}}}
		if _, err := s.Write(ctx, one); err != nil {
			t.Fatal(err)
		}
		req := social.PageReq{Limit: 20}
		for range 5 {
			pg, err := s.Search(ctx, q, social.Latest, req)
			if err != nil {
				t.Fatal(err)
			}
			if pg.Next == nil {
				break
			}
			req.After = pg.Next
		}
	}
	if used := pageStatus(t, lib.SQLITE_STATUS_PAGECACHE_USED); used == 0 {
		t.Fatal("no page of the pool is in use after reads")
	}
	if got := pageStatus(t, lib.SQLITE_STATUS_PAGECACHE_OVERFLOW); got > overflow {
		t.Fatalf("pages allocated outside the pool: %d bytes held, %d before the reads", got, overflow)
	}
}
