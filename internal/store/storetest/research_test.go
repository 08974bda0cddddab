package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// TestResearchSQLite and TestResearchPostgres check counts, top values,
// walks and interactions against the brute force on both engines.
func TestResearchSQLite(t *testing.T) {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	searchtest.RunResearch(t, s)
}

func TestResearchPostgres(t *testing.T) {
	s, err := postgres.Open(context.Background(), FreshSchema(t, PostgresURL(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	searchtest.RunResearch(t, s)
}
