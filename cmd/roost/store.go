package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// defaultDB is the SQLite file used when --db is not given.
const defaultDB = "roost.db"

// isPostgres reports whether a --db value names a PostgreSQL database.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// store is a store of either engine: the data, with the storage of the
// monitors, the gateway and the living world that the commands wire in.
type store interface {
	social.Store
	social.Snapshots
	Monitors() sqlstore.Monitors
	Gateway() sqlstore.Gateway
	World() sqlstore.World
}

// openStore opens the engine a --db value names.
func openStore(ctx context.Context, db string, log *slog.Logger) (store, error) {
	if db == "" {
		return nil, usageError("--db is required")
	}
	if isPostgres(db) {
		return openPostgres(ctx, db, log)
	}
	return sqlite.Open(ctx, db, log)
}
