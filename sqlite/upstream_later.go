package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/roostapi/roost/sqlstore"
)

// The upstream ledger row of a gateway's cache hit costs nothing upstream;
// written alone it took a commit (a sync) of its own per request, as long
// as the rest of the request. Such rows wait instead for the next write
// transaction: the debit batch that charges the request they belong to
// (so a row is durable before its answer is sent, as the debit is), or,
// for a request not charged, a flush at most upstreamLaterMax after.

// upstreamLaterMax bounds how long a held row waits for a transaction.
const upstreamLaterMax = 100 * time.Millisecond

// upstreamLater holds cache hits' ledger rows.
type upstreamLater struct {
	mu     sync.Mutex
	rows   []sqlstore.UpstreamEntry
	timer  *time.Timer
	closed bool // the store closed: rows are written at once
}

// holdUpstream takes e, to be written by the next transaction that takes
// the rows or by a flush within upstreamLaterMax; false once the store is
// closing.
func (s *Store) holdUpstream(e sqlstore.UpstreamEntry) bool {
	q := &s.later
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.rows = append(q.rows, e)
	s.armUpstream()
	return true
}

// armUpstream starts the flush timer if rows wait and none runs; s.later.mu
// is held.
func (s *Store) armUpstream() {
	q := &s.later
	if q.timer != nil || len(q.rows) == 0 || q.closed {
		return
	}
	q.timer = time.AfterFunc(upstreamLaterMax, func() {
		if err := s.flushUpstream(context.Background()); err != nil {
			s.log.Error("upstream ledger: rows of cache hits", "err", err)
		}
	})
}

// take returns the held rows and holds none.
func (q *upstreamLater) take() []sqlstore.UpstreamEntry {
	q.mu.Lock()
	defer q.mu.Unlock()
	rows := q.rows
	q.rows = nil
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	return rows
}

// giveBackUpstream holds rows again, before those held meanwhile: the
// transaction that took them failed.
func (s *Store) giveBackUpstream(rows []sqlstore.UpstreamEntry) {
	if len(rows) == 0 {
		return
	}
	q := &s.later
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows = append(slices.Clone(rows), q.rows...)
	s.armUpstream()
}

// closeUpstream writes the held rows and holds none from now on.
func (s *Store) closeUpstream(ctx context.Context) error {
	s.later.mu.Lock()
	s.later.closed = true
	s.later.mu.Unlock()
	return s.flushUpstream(ctx)
}

// upstreamInsert appends one row to the upstream ledger.
const upstreamInsert = `INSERT INTO upstream_ledger (request_id, key_id, endpoint, cache_hit, status,
	upstream_micro_usd, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// writeUpstream inserts held rows with st, upstreamInsert within a
// transaction.
func writeUpstream(ctx context.Context, st *sql.Stmt, rows []sqlstore.UpstreamEntry) error {
	for _, e := range rows {
		if _, err := st.ExecContext(ctx, e.RequestID, e.KeyID, e.Endpoint, e.CacheHit, int64(e.Status), e.Micros,
			e.At.UnixMicro()); err != nil {
			return fmt.Errorf("upstream ledger: %w", err)
		}
	}
	return nil
}

// flushUpstream writes the held rows in a transaction of their own.
func (s *Store) flushUpstream(ctx context.Context) error {
	rows := s.later.take()
	if len(rows) == 0 {
		return nil
	}
	err := func() error {
		tx, err := s.write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		st, err := tx.PrepareContext(ctx, upstreamInsert)
		if err != nil {
			return err
		}
		defer st.Close()
		if err := writeUpstream(ctx, st, rows); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		s.giveBackUpstream(rows)
		return fmt.Errorf("sqlite: upstream ledger: %w", err)
	}
	return nil
}
