package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"roost/social"
)

// debitBatcher commits concurrent debits together: one goroutine takes
// every debit waiting, applies each with its own conditional UPDATE and
// ledger row inside one IMMEDIATE transaction, commits once (durably:
// synchronous=FULL), and only then answers each caller. One fsync serves
// many requests; no debit is answered before it is on disk.
type debitBatcher struct {
	s    *Store
	reqs chan *debitReq
	done chan struct{}
}

type debitReq struct {
	d     social.Debit
	ctx   context.Context
	reply chan debitResult
}

type debitResult struct {
	balance int64
	err     error
}

// maxDebitBatch bounds how many debits share one commit.
const maxDebitBatch = 256

func newDebitBatcher(s *Store) *debitBatcher {
	b := &debitBatcher{s: s, reqs: make(chan *debitReq), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *debitBatcher) close() { close(b.done) }

func (b *debitBatcher) submit(ctx context.Context, d social.Debit) (int64, error) {
	r := &debitReq{d: d, ctx: ctx, reply: make(chan debitResult, 1)}
	select {
	case b.reqs <- r:
	case <-ctx.Done():
		return 0, fmt.Errorf("debit: %w", ctx.Err())
	case <-b.done:
		return 0, fmt.Errorf("debit: store is closed")
	}
	// Once taken, the debit is committed or refused whatever happens to
	// the caller's context: the answer must match the ledger.
	res := <-r.reply
	return res.balance, res.err
}

func (b *debitBatcher) run() {
	for {
		var batch []*debitReq
		select {
		case r := <-b.reqs:
			batch = append(batch, r)
		case <-b.done:
			return
		}
	more:
		for len(batch) < maxDebitBatch {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
			default:
				break more
			}
		}
		b.commit(batch)
	}
}

// commit applies a batch in one transaction and answers every request.
func (b *debitBatcher) commit(batch []*debitReq) {
	results := make([]debitResult, len(batch))
	err := b.apply(batch, results)
	for i, r := range batch {
		if err != nil {
			r.reply <- debitResult{err: err}
			continue
		}
		r.reply <- results[i]
	}
}

func (b *debitBatcher) apply(batch []*debitReq, results []debitResult) error {
	ctx := context.Background() // the commit must not be cut short by one caller leaving
	tx, err := b.s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: debit: begin: %w", err)
	}
	defer tx.Rollback()
	upd, err := tx.PrepareContext(ctx, `UPDATE api_keys SET balance = balance - ?
		WHERE id = ? AND balance >= ? AND revoked_at IS NULL RETURNING balance`)
	if err != nil {
		return fmt.Errorf("sqlite: debit: %w", err)
	}
	defer upd.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount,
		balance_after, created_at) VALUES (?, 'debit', ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("sqlite: debit: %w", err)
	}
	defer ins.Close()
	seen, err := tx.PrepareContext(ctx, `SELECT EXISTS (SELECT 1 FROM ledger WHERE key_id = ? AND request_id = ?
		AND kind = 'debit' AND request_id != '')`)
	if err != nil {
		return fmt.Errorf("sqlite: debit: %w", err)
	}
	defer seen.Close()
	now := time.Now().UnixMicro()
	for i, r := range batch {
		d := r.d
		if d.RequestID != "" {
			var charged bool
			if err := seen.QueryRowContext(ctx, d.KeyID, d.RequestID).Scan(&charged); err != nil {
				return fmt.Errorf("sqlite: debit: request: %w", err)
			}
			if charged {
				results[i] = debitResult{err: fmt.Errorf("key %d: request %s was charged already: %w",
					d.KeyID, d.RequestID, social.ErrConflict)}
				continue
			}
		}
		var bal int64
		err := upd.QueryRowContext(ctx, d.Amount, d.KeyID, d.Amount).Scan(&bal)
		if errors.Is(err, sql.ErrNoRows) {
			results[i] = debitResult{err: fmt.Errorf("key %d: %w", d.KeyID, social.ErrInsufficientBalance)}
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
		if _, err := ins.ExecContext(ctx, d.KeyID, d.RequestID, d.Endpoint, d.Items, d.Amount, bal, now); err != nil {
			return fmt.Errorf("sqlite: debit: ledger: %w", err)
		}
		results[i] = debitResult{balance: bal}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: debit: commit: %w", err)
	}
	return nil
}
