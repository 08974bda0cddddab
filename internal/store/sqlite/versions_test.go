package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestVersionsReader: the counters read on the reader's own connection
// follow every write, and a read under an ended context fails.
func TestVersionsReader(t *testing.T) {
	s := openTuned(t)
	ctx := context.Background()
	v0, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, smallBatch()); err != nil {
		t.Fatal(err)
	}
	v1, err := s.Versions(ctx)
	if err != nil || v1.Content != v0.Content+1 || v1.Keys != v0.Keys {
		t.Fatalf("after a write: %+v, %v; want content %d, keys %d", v1, err, v0.Content+1, v0.Keys)
	}
	storetest.NewKey(t, s, "k", 10)
	v2, err := s.Versions(ctx)
	if err != nil || v2.Content != v1.Content || v2.Keys != v1.Keys+1 {
		t.Fatalf("after a key: %+v, %v; want content %d, keys %d", v2, err, v1.Content, v1.Keys+1)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Versions(done); err == nil {
		t.Error("read under an ended context: no error")
	}
}

// BenchmarkVersions: a read of the change counters right after a debit
// committed, by the store (its reader looks in the log indexes: the debit
// wrote no counter, so no query; 1.2 µs against 26 µs for its query on
// 2026-11-28) and through the read pool as the engine-neutral reader does
// (a query, whose connection finds its cache emptied by the commit).
func BenchmarkVersions(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "roost.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	key := storetest.NewKey(b, s, "k", 1<<60)
	for name, read := range map[string]func(context.Context) (social.Versions, error){
		"driver": s.Versions, "pool": s.Reader.Versions,
	} {
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				if _, err := s.Debit(ctx, social.Debit{KeyID: key, Amount: 1, Endpoint: "x", Items: 1}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := read(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
