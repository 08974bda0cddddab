package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// snapshotSchema counts the triggers and tables change tracking adds.
func snapshotSchema(t *testing.T, s *Store) (n int) {
	t.Helper()
	if err := s.Reader.DB.Query(context.Background(), `SELECT count(*) FROM main.sqlite_schema
		WHERE type IN ('trigger', 'table') AND name LIKE 'snapshot%'`, nil,
		func(r sqlstore.Rows) error { return r.Scan(&n) }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenForgetsLostSnapshots: a database opened without its
// snapshots' files (a copy, files deleted by hand) stops tracking the
// changes for them; with a file left, tracking stays.
func TestOpenForgetsLostSnapshots(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "roost.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 1, ScreenName: "a", Name: "A"}}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kept", "lost"} {
		if _, err := s.SaveSnapshot(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	tracked := snapshotSchema(t, s)
	if tracked == 0 {
		t.Fatal("no tracking with two snapshots")
	}
	s.Close()
	reopen := func() *Store {
		t.Helper()
		s, err := Open(ctx, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := os.Remove(s.snapshotFile("lost")); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	if n := snapshotSchema(t, s); n != tracked {
		t.Errorf("one snapshot file left: %d tracking triggers and tables, want %d", n, tracked)
	}
	if _, err := s.RestoreSnapshot(ctx, "kept"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Remove(s.snapshotFile("kept")); err != nil {
		t.Fatal(err)
	}
	s = reopen()
	defer s.Close()
	if n := snapshotSchema(t, s); n != 0 {
		t.Errorf("no snapshot file left: %d tracking triggers and tables, want none", n)
	}
}
