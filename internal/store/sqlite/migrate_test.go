package sqlite

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/roostapi/roost/internal/store/migration"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestMigrationsLoggedOnce: a new database (its billing file too) logs
// the steps applied in one line, a database up to date none.
func TestMigrationsLoggedOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	var steps []migration.Step
	for _, dir := range []string{billingMigrationsDir, migrationsDir} {
		s, err := migration.Load(migrationFiles, dir)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s...)
	}
	storetest.MigrationsLoggedOnce(t, func(log *slog.Logger) (io.Closer, error) {
		return Open(context.Background(), path, log)
	}, len(steps), steps[len(steps)-1].Name)
}
