package main

import (
	"context"
	"log/slog"

	"github.com/roostapi/roost/internal/server"
	"github.com/roostapi/roost/internal/store/postgres"
)

// defaultDB is the SQLite file used when --db is not given.
const defaultDB = "roost.db"

// isPostgres reports whether a --db value names a PostgreSQL database.
func isPostgres(db string) bool { return server.IsPostgres(db) }

// store is a store of either engine: the data, with the storage of the
// monitors, the gateway and the living world that the commands wire in.
type store = server.Store

// openStore opens the engine a --db value names.
func openStore(ctx context.Context, db string, log *slog.Logger) (store, error) {
	if db == "" {
		return nil, usageError("--db is required")
	}
	return server.Open(ctx, db, postgres.Options{}, log)
}
