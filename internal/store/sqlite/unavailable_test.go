package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// TestBusyIsUnavailable: SQLITE_BUSY, as a second writer meets it while
// another connection holds the write lock past busy_timeout, is marked
// social.ErrUnavailable (503, nothing written); other errors are not.
func TestBusyIsUnavailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func() *sql.DB {
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)&_pragma=journal_mode(wal)")
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { db.Close() })
		return db
	}
	ctx := context.Background()
	a, b := open(), open()
	if _, err := a.Exec(`CREATE TABLE t (x)`); err != nil {
		t.Fatal(err)
	}
	tx, err := a.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	_, err = b.Exec(`INSERT INTO t VALUES (2)`)
	if err == nil {
		t.Fatal("a second writer was not refused")
	}
	if !errors.Is(unavailable(err), social.ErrUnavailable) {
		t.Errorf("%v: not marked unavailable", err)
	}
	_, err = b.Exec(`INSERT INTO nosuchtable VALUES (1)`)
	if err == nil || errors.Is(unavailable(err), social.ErrUnavailable) {
		t.Errorf("a statement's own error %v marked unavailable", err)
	}
}
