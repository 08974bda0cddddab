package postgres

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/roostapi/roost/internal/store/migration"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestMigrationsLoggedOnce: a new schema logs the steps applied in one
// line, a schema up to date none.
func TestMigrationsLoggedOnce(t *testing.T) {
	u := freshURL(t)
	steps, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	storetest.MigrationsLoggedOnce(t, func(log *slog.Logger) (io.Closer, error) {
		return Open(context.Background(), u, log)
	}, len(steps), steps[len(steps)-1].Name)
}
