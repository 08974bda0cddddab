package postgres

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// changeLog is PostgreSQL's change log. Writers commit in any order, so a
// transaction that appends changes holds a transaction-level advisory lock
// from its insert to its commit: numbers become visible in order, and the
// dispatcher never passes a number a later commit fills in.
var changeLog = sqlstore.ChangeLog{Lock: `SELECT pg_advisory_xact_lock(hashtext('roost changes ' || current_schema()))`}

// Monitors is the storage of monitors and webhooks, on the primary.
func (s *Store) Monitors() sqlstore.Monitors {
	return sqlstore.Monitors{DB: pgDB{pool: s.pool, numbered: &sync.Map{}}, ForUpdate: " FOR UPDATE SKIP LOCKED",
		Tx: func(ctx context.Context, fn func(sqlstore.DB) error) error {
			return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return fn(txDB{tx}) })
		}}
}
