package main

import (
	"context"
	"flag"

	"github.com/roostapi/roost/internal/server"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// defaultDB is the SQLite file used when --db is not given.
const defaultDB = "roost.db"

// isPostgres reports whether a --db value names a PostgreSQL database.
func isPostgres(db string) bool { return server.IsPostgres(db) }

// store is a store of either engine: the data, with the storage of the
// monitors, the gateway and the living world that the commands wire in.
type store = server.Store

// openStore opens the engine a --db value names; a SQLite file with the
// tuning of --sqlite-tuning (tuningFlag), else of ROOST_SQLITE_TUNING,
// else every piece.
func openStore(ctx context.Context, e *env, db string) (store, error) {
	return openStoreOptions(ctx, e, db, postgres.Options{})
}

// openStoreOptions is openStore with a PostgreSQL database's read
// replicas (serve's --db-read).
func openStoreOptions(ctx context.Context, e *env, db string, pg postgres.Options) (store, error) {
	if db == "" {
		return nil, usageError("--db is required")
	}
	t := e.sqliteTuning
	if t == nil && !isPostgres(db) {
		v, err := sqlite.TuningFromEnv(e.lookupEnv)
		if err != nil {
			return nil, usageError("environment variable ROOST_SQLITE_TUNING: %v", err)
		}
		t = &v
	}
	opt := server.Options{Postgres: pg}
	if t != nil {
		opt.SQLite = *t
	}
	return server.Open(ctx, db, opt, e.log)
}

// tuningUsage is --sqlite-tuning's usage line.
const tuningUsage = "SQLite only: on uses the pieces that reach past plain SQL into SQLite's and the driver's internals " +
	"(the log index read by mmap, the full-text index's levels); " +
	"off runs on plain SQL and the driver's public interfaces; or a comma-separated list of the pieces to use " +
	"(shm, ftslevels; on,-shm drops one). Default on, or ROOST_SQLITE_TUNING"

// tuningFlag adds --sqlite-tuning to fs, setting e's tuning.
func tuningFlag(fs *flag.FlagSet, e *env) { fs.Var(tuningValue{e}, "sqlite-tuning", tuningUsage) }

// tuningValue is --sqlite-tuning's value: e's tuning, "on" until set.
type tuningValue struct{ e *env }

func (v tuningValue) String() string {
	if v.e == nil || v.e.sqliteTuning == nil {
		return sqlite.TuningOn().String()
	}
	return v.e.sqliteTuning.String()
}

func (v tuningValue) Set(s string) error {
	t, err := sqlite.ParseTuning(s)
	if err != nil {
		return err
	}
	v.e.sqliteTuning = &t
	return nil
}
