// Package engines opens a fresh, empty store of each database engine for
// the tests of packages above the engines (the engines' own tests use
// package storetest directly: this package imports them).
package engines

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
)

// Store is what both engines' stores are: storetest.Store, with the
// gateway's storage.
type Store interface {
	storetest.Store
	Gateway() sqlstore.Gateway
}

// Engine opens a fresh store, closed when t ends.
type Engine struct {
	Name string
	Open func(t testing.TB) Store
}

// All are SQLite (a file in t's temporary directory, tuned as
// ROOST_SQLITE_TUNING says) and PostgreSQL (a
// fresh schema of ROOST_TEST_POSTGRES, skipped when it is unset and
// failing under CI=true, as storetest.PostgresURL does).
func All() []Engine {
	return []Engine{{"sqlite", openSQLite}, {"postgres", func(t testing.TB) Store { return Postgres(t) }}}
}

func openSQLite(t testing.TB) Store { return SQLite(t, filepath.Join(t.TempDir(), "roost.db")) }

// SQLite opens the SQLite store at path, closed when t ends, with the
// tuning ROOST_SQLITE_TUNING names (every piece when it is unset: see
// sqlite.TuningFromEnv).
func SQLite(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	tuning, err := sqlite.TuningFromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.OpenOptions(context.Background(), path, sqlite.Options{Tuning: tuning})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Postgres opens a store on a fresh schema of ROOST_TEST_POSTGRES.
func Postgres(t testing.TB) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), storetest.FreshSchema(t, storetest.PostgresURL(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after FreshSchema's cleanup, so it runs before the schema
	// is dropped.
	t.Cleanup(func() { st.Close() })
	return st
}
