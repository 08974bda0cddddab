package server

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Store is a store of either engine: the data, with the storage of the
// snapshots, the monitors, the gateway and the living world that a
// server wires in.
type Store interface {
	social.Store
	social.Snapshots
	Monitors() sqlstore.Monitors
	Gateway() sqlstore.Gateway
	World() sqlstore.World
}

// IsPostgres reports whether a database name (a --db value) names a
// PostgreSQL database rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Options are the engine options of Open; the options of the engine db
// does not name are ignored.
type Options struct {
	// Postgres holds a postgres:// database's read replicas and lag.
	Postgres postgres.Options
	// SQLite is a SQLite file's tuning (sqlite.TuningOn for every piece;
	// the zero value is plain SQL).
	SQLite sqlite.Tuning
}

// Open opens and migrates the engine db names: a postgres:// URL, with
// opt's read replicas, or a SQLite file with opt's tuning.
func Open(ctx context.Context, db string, opt Options, log *slog.Logger) (Store, error) {
	if db == "" {
		return nil, fmt.Errorf("server: no database named: %w", social.ErrInvalid)
	}
	if IsPostgres(db) {
		return postgres.OpenOptions(ctx, db, opt.Postgres, log)
	}
	return sqlite.OpenOptions(ctx, db, sqlite.Options{Log: log, Tuning: opt.SQLite})
}

// NewLimiter picks the rate limiter for a store: PostgreSQL keeps the
// counters in the database so that every replica sees the same limits; a
// SQLite file is served by one process, which keeps them in memory.
func NewLimiter(s social.Store) billing.Limiter {
	if pg, ok := s.(*postgres.Store); ok {
		return pg.Limiter()
	}
	return billing.NewMemoryLimiter(0, nil)
}
