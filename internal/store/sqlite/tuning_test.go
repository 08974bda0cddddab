package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// openTuned opens a fresh store with every tuning piece on, whatever
// ROOST_SQLITE_TUNING says: the tests of the pieces themselves.
func openTuned(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestParseTuning(t *testing.T) {
	for in, want := range map[string]Tuning{
		"":               TuningOn(),
		"on":             TuningOn(),
		"OFF":            TuningOff(),
		"shm":            {ShmIndex: true},
		"shm, ftslevels": {ShmIndex: true, FTSLevels: true},
		"on,-shm":        {FTSLevels: true},
		"shm,ftslevels":  {ShmIndex: true, FTSLevels: true},
		"on,-ftslevels ": {ShmIndex: true},
	} {
		got, err := ParseTuning(in)
		if err != nil || got != want {
			t.Errorf("ParseTuning(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseTuning(got.String()); err != nil || back != got {
			t.Errorf("%q: String %q reads back as %+v, %v", in, got.String(), back, err)
		}
	}
	if _, err := ParseTuning("shm,mmap"); err == nil || !strings.Contains(err.Error(), `"mmap"`) {
		t.Errorf("an unknown piece: %v", err)
	}
}

// TestTuningOff: a store opened with every piece off uses none of them.
// The counters are read from the files on every read (no log index is
// mapped), and the segment a load leaves stays on the level FTS5 put it
// on. The same steps
// on a tuned store show each piece at work.
func TestTuningOff(t *testing.T) {
	for _, tuned := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "on"}[tuned], func(t *testing.T) {
			ctx := context.Background()
			tuning := TuningOff()
			if tuned {
				tuning = TuningOn()
			}
			s, err := OpenOptions(ctx, filepath.Join(t.TempDir(), "roost.db"), Options{Tuning: tuning})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Tuning() != tuning {
				t.Fatalf("the store reports tuning %v", s.Tuning())
			}
			k, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: [32]byte{1}}, 100)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 1, RequestID: "r1", Endpoint: "x", Items: 1}); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				before := s.versions.reads
				if _, err := s.Versions(ctx); err != nil {
					t.Fatal(err)
				}
				read := s.versions.reads != before
				if i > 0 && read == tuned {
					t.Errorf("read %d with nothing written went to the files: %v", i+1, read)
				}
			}
			if mapped := s.versions.content.shm != nil || s.versions.keys.shm != nil; mapped != tuned {
				t.Errorf("log indexes mapped: %v", mapped)
			}
			err = s.Bulk(ctx, 5000, func(w social.Writer) error {
				_, err := w.Write(ctx, postsBatch(1000, 5000))
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := sqliteAutocheckpoint // the load's own setting put back
			for name, db := range map[string]interface {
				QueryRowContext(context.Context, string, ...any) *sql.Row
			}{"data": s.write, "billing": s.bill} {
				var n int
				if err := db.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != want {
					t.Errorf("%s write connection after a load: wal_autocheckpoint %d, want %d", name, n, want)
				}
			}
			rec := structureRecord(t, s, "posts_fts")
			lifted, _, err := liftStructure(rec)
			if err != nil {
				t.Fatal(err)
			}
			if moved := lifted == nil; moved != tuned {
				t.Errorf("the loaded segment on the level of its size: %v", moved)
			}
			q, err := search.Parse("common", t0)
			if err != nil {
				t.Fatal(err)
			}
			if pg, err := s.Search(ctx, q, social.Latest, social.PageReq{Limit: 20}); err != nil || len(pg.Items) != 20 {
				t.Fatalf("search after the load: %d posts, %v", len(pg.Items), err)
			}
		})
	}
}

// structureRecord is the structure record of full-text index table.
func structureRecord(t *testing.T, s *Store, table string) []byte {
	t.Helper()
	var rec []byte
	if err := s.write.QueryRowContext(context.Background(), `SELECT block FROM `+table+`_data WHERE id = ?`, ftsStructureID).Scan(&rec); err != nil {
		t.Fatal(err)
	}
	return rec
}
