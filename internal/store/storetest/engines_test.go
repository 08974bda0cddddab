package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// TestSQLite runs the behaviour suite on SQLite, tuned as
// ROOST_SQLITE_TUNING says (CI runs it with every piece on and off).
func TestSQLite(t *testing.T) {
	tuning, err := sqlite.TuningFromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	Run(t, func(t *testing.T) Store {
		s, err := sqlite.OpenOptions(context.Background(), filepath.Join(t.TempDir(), "roost.db"), sqlite.Options{Tuning: tuning})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestPostgres(t *testing.T) {
	base := PostgresURL(t)
	Run(t, func(t *testing.T) Store {
		s, err := postgres.Open(context.Background(), FreshSchema(t, base), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestPostgresSearchVectors runs the search vectors and property tests that
// sqlite's TestSearch runs, so both engines answer every query alike.
func TestPostgresSearchVectors(t *testing.T) {
	s, err := postgres.Open(context.Background(), FreshSchema(t, PostgresURL(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	searchtest.Run(t, s)
}
