package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// The upstream ledger row of a gateway's cache hit costs nothing upstream;
// written alone it took a commit (a sync) of its own per request, as long
// as the rest of the request. Such rows wait instead for the next write
// transaction: the debit batch that charges the request they belong to
// (so a row is durable before its answer is sent, as the debit is), or,
// for a request not charged, a flush at most upstreamLaterMax after. Rows
// taken by a transaction are in flight until it commits or gives them
// back; a debit batch answers, and the ledger's readers and Close go on,
// only once none is in flight.

// upstreamLaterMax bounds how long a held row waits for a transaction.
const upstreamLaterMax = 100 * time.Millisecond

// upstreamLater holds cache hits' ledger rows.
type upstreamLater struct {
	mu     sync.Mutex
	done   *sync.Cond // signalled when a transaction's rows land or come back
	rows   []ledger.Entry
	flying int // transactions holding taken rows
	timer  *time.Timer
	closed bool // the store closed: rows are written at once
}

func (q *upstreamLater) cond() *sync.Cond {
	if q.done == nil {
		q.done = sync.NewCond(&q.mu)
	}
	return q.done
}

// holdUpstream takes e, to be written by the next transaction that takes
// the rows or by a flush within upstreamLaterMax; false once the store is
// closing.
func (s *Store) holdUpstream(e ledger.Entry) bool {
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
		if err := s.writeHeldUpstream(context.Background()); err != nil {
			s.log.Error("upstream ledger: rows of cache hits", "err", err)
		}
	})
}

// take returns the held rows, in flight until landed is called, and holds
// none.
func (q *upstreamLater) take() []ledger.Entry {
	q.mu.Lock()
	defer q.mu.Unlock()
	rows := q.rows
	q.rows = nil
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	if len(rows) > 0 {
		q.flying++
	}
	return rows
}

// landed ends the flight of rows taken by a transaction: committed, or
// held again (before those held meanwhile) when it failed.
func (s *Store) landed(rows []ledger.Entry, committed bool) {
	if len(rows) == 0 {
		return
	}
	q := &s.later
	q.mu.Lock()
	defer q.mu.Unlock()
	if !committed {
		q.rows = append(slices.Clone(rows), q.rows...)
		s.armUpstream()
	}
	q.flying--
	q.cond().Broadcast()
}

// wait waits until no transaction holds taken rows.
func (q *upstreamLater) wait() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.flying > 0 {
		q.cond().Wait()
	}
}

// writeUpstream inserts held rows with st, sqlstore.UpstreamInsert within
// a transaction.
func writeUpstream(ctx context.Context, st *sql.Stmt, rows []ledger.Entry) error {
	for _, e := range rows {
		if _, err := st.ExecContext(ctx, sqlstore.UpstreamArgs(e)...); err != nil {
			return fmt.Errorf("upstream ledger: %w", err)
		}
	}
	return nil
}

// writeHeldUpstream writes the held rows in a transaction of their own.
func (s *Store) writeHeldUpstream(ctx context.Context) (err error) {
	rows := s.later.take()
	if len(rows) == 0 {
		return nil
	}
	defer func() { s.landed(rows, err == nil) }()
	tx, err := s.bill.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: upstream ledger: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, sqlstore.UpstreamInsert)
	if err != nil {
		return fmt.Errorf("sqlite: upstream ledger: %w", err)
	}
	defer st.Close()
	if err := writeUpstream(ctx, st, rows); err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: upstream ledger: %w", err)
	}
	return nil
}

// flushUpstream writes every row logged before it was called: those
// held, and those other transactions took, which it waits for (and
// writes again if their transaction failed). Under a stream of new cache
// hits it stops after a few rounds: the rows held then came after it (or
// came back from a failed transaction: the timer writes them).
func (s *Store) flushUpstream(ctx context.Context) error {
	for range 8 {
		if err := s.writeHeldUpstream(ctx); err != nil {
			return err
		}
		s.later.wait()
		s.later.mu.Lock()
		left := len(s.later.rows)
		s.later.mu.Unlock()
		if left == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// closeUpstream writes the held rows and holds none from now on; rows it
// cannot write are reported in its error.
func (s *Store) closeUpstream(ctx context.Context) error {
	s.later.mu.Lock()
	s.later.closed = true
	s.later.mu.Unlock()
	err := s.flushUpstream(ctx)
	s.later.mu.Lock()
	n := len(s.later.rows)
	s.later.rows = nil
	s.later.mu.Unlock()
	if n > 0 {
		err = errors.Join(err, fmt.Errorf("sqlite: %d upstream ledger rows of cache hits not written", n))
	}
	return err
}
