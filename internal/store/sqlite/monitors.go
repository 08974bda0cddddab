package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// changeLog is SQLite's change log: one writer, so no lock is needed for
// the log's rows to appear in the order of their numbers.
var changeLog = sqlstore.ChangeLog{}

// Monitors is the storage of monitors and webhooks: writes through the
// one write connection, reads (the dispatcher's and deliverer's polls) from
// the read pool, so that they do not queue with the API's writes. The
// deliverer's bookkeeping commits with synchronous=NORMAL (see relaxed);
// the events are stored with synchronous=FULL, which makes every tick
// before them durable too.
func (s *Store) Monitors() sqlstore.Monitors {
	return sqlstore.Monitors{DB: sqlDB(s.write.QueryContext), Read: sqlDB(s.read.QueryContext), Tx: s.inTx,
		Relaxed: func(ctx context.Context, fn func(sqlstore.DB) error) error {
			return s.relaxed(ctx, 0, func(conn *sql.Conn) error { return inTx(ctx, conn, fn) })
		}}
}

// inTx runs fn in one IMMEDIATE transaction of the write connection.
func (s *Store) inTx(ctx context.Context, fn func(sqlstore.DB) error) error {
	return inTx(ctx, s.write, fn)
}

// inTx runs fn in one IMMEDIATE transaction begun on db.
func inTx(ctx context.Context, db txBeginner, fn func(sqlstore.DB) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	defer tx.Rollback()
	if err := fn(sqlDB(tx.QueryContext)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	return nil
}
