package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
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
	// stmts are the debit's statements, prepared once on the write
	// connection: each transaction uses them without preparing them again.
	// Only run's goroutine touches them.
	stmts map[string]*sql.Stmt
}

// Statements of a debit.
const (
	debitUpdate = `UPDATE api_keys SET balance = balance - ?
		WHERE id = ? AND balance >= ? AND revoked_at IS NULL RETURNING balance`
	debitLedger = `INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount,
		balance_after, created_at) VALUES (?, 'debit', ?, ?, ?, ?, ?, ?)`
	debitSeen = `SELECT EXISTS (SELECT 1 FROM ledger WHERE key_id = ? AND request_id = ?
		AND kind = 'debit' AND request_id != '')`
	responseFind   = `SELECT created_at FROM idempotency_keys WHERE key_id = ? AND idem_key = ?`
	responseDrop   = `DELETE FROM idempotency_keys WHERE created_at < ?`
	responseInsert = `INSERT INTO idempotency_keys (key_id, idem_key, fingerprint, body, created_at) VALUES (?, ?, ?, ?, ?)`
)

// prepare prepares the statements not prepared yet. It runs outside a
// transaction: the write connection is the only one.
func (b *debitBatcher) prepare(ctx context.Context) error {
	for _, q := range []string{debitUpdate, debitLedger, debitSeen, responseFind, responseDrop, responseInsert} {
		if b.stmts[q] != nil {
			continue
		}
		st, err := b.s.write.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
		b.stmts[q] = st
	}
	return nil
}

// stmt is the prepared statement q within tx.
func (b *debitBatcher) stmt(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	return tx.StmtContext(ctx, b.stmts[q])
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
	b := &debitBatcher{s: s, reqs: make(chan *debitReq), done: make(chan struct{}), stmts: map[string]*sql.Stmt{}}
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
	defer func() {
		for _, st := range b.stmts {
			st.Close()
		}
	}()
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
	if err := b.prepare(ctx); err != nil {
		return err
	}
	tx, err := b.s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: debit: begin: %w", err)
	}
	defer tx.Rollback()
	upd, ins, seen := b.stmt(ctx, tx, debitUpdate), b.stmt(ctx, tx, debitLedger), b.stmt(ctx, tx, debitSeen)
	keep := &responseKeeper{find: b.stmt(ctx, tx, responseFind), drop: b.stmt(ctx, tx, responseDrop),
		insert: b.stmt(ctx, tx, responseInsert)}
	now := time.Now().UnixMicro()
	for i, r := range batch {
		d := r.d
		if d.Response != nil {
			kept, err := keep.fresh(ctx, d)
			if err != nil {
				return err
			}
			if kept {
				results[i] = debitResult{err: fmt.Errorf("key %d: Idempotency-Key %q was answered already: %w",
					d.KeyID, d.Response.Key, social.ErrConflict)}
				continue
			}
		}
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
		if d.Response != nil {
			if err := keep.store(ctx, d); err != nil {
				return err
			}
		}
		results[i] = debitResult{balance: bal}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: debit: commit: %w", err)
	}
	return nil
}

// responseKeeper writes the responses of debits that carry one
// (social.Debit.Response) inside the debit's transaction.
type responseKeeper struct {
	find, drop, insert *sql.Stmt
	pruned             bool
}

// fresh reports whether d's Idempotency-Key holds a response younger than
// social.IdempotencyWindow. Once per transaction it first removes the
// expired responses of every key.
func (k *responseKeeper) fresh(ctx context.Context, d social.Debit) (bool, error) {
	if !k.pruned {
		cutoff := sqlstore.Micros(d.Response.CreatedAt.Add(-social.IdempotencyWindow))
		if _, err := k.drop.ExecContext(ctx, cutoff); err != nil {
			return false, fmt.Errorf("sqlite: debit: expire responses: %w", err)
		}
		k.pruned = true
	}
	var created int64
	err := k.find.QueryRowContext(ctx, d.KeyID, d.Response.Key).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("sqlite: debit: idempotency key: %w", err)
	}
	return true, nil
}

// store keeps d's response.
func (k *responseKeeper) store(ctx context.Context, d social.Debit) error {
	r := d.Response
	if _, err := k.insert.ExecContext(ctx, d.KeyID, r.Key, r.Fingerprint, r.Body, sqlstore.Micros(r.CreatedAt)); err != nil {
		return fmt.Errorf("sqlite: debit: keep response: %w", err)
	}
	return nil
}
