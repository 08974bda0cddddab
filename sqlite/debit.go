package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
)

// debitBatcher applies SQLite's debits in batches (sqlstore.DebitBatcher):
// each batch runs in one IMMEDIATE transaction, committed durably
// (synchronous=FULL) before any of its debits is answered.
type debitBatcher struct {
	s *Store
	*sqlstore.DebitBatcher
	// stmts are the debit's statements, prepared once on the write
	// connection: each transaction uses them without preparing them again.
	// Only the batcher's goroutine touches them until it is closed.
	stmts map[string]*sql.Stmt
	// lookups counts the batches whose request ids were looked up one by
	// one (tests).
	lookups atomic.Int64
}

func newDebitBatcher(s *Store) *debitBatcher {
	b := &debitBatcher{s: s, stmts: map[string]*sql.Stmt{}}
	b.DebitBatcher = sqlstore.NewDebitBatcher(func(ds []social.Debit, out []sqlstore.DebitResult) {
		if err := b.apply(ds, out); err != nil {
			sqlstore.FailAll(out, err)
		}
	})
	return b
}

// close stops the batcher, then closes its statements.
func (b *debitBatcher) close() {
	b.Close()
	for _, st := range b.stmts {
		st.Close()
	}
}

// Statements of a debit. A batch reads each key's balance once, decides
// its debits in order, writes the balances once and the ledger rows
// together; the IN and VALUES lists come in the power-of-two sizes of
// rowChunks, each prepared once.
const (
	// debitKey reads a key's balance, whether it is live (not revoked) and
	// the greatest request id it was charged, from the end of the partial
	// index ledger_request (its condition repeated, which the look-up must
	// use).
	debitKey = `SELECT balance, revoked_at IS NULL, (SELECT max(request_id) FROM ledger
		WHERE key_id = ?1 AND kind = 'debit' AND request_id != '') FROM api_keys WHERE id = ?1`
	debitUpdate = `UPDATE api_keys SET balance = ? WHERE id = ?`
	// debitLedger takes debitLedgerWidth values a row.
	debitLedger = `INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount,
		balance_after, created_at) VALUES `
	debitLedgerRow   = `(?, 'debit', ?, ?, ?, ?, ?, ?)`
	debitLedgerWidth = 7
	// debitSeen takes the key and a list of request ids; it repeats the
	// condition of the partial index ledger_request, which it must use.
	debitSeen      = `SELECT request_id FROM ledger WHERE key_id = ? AND kind = 'debit' AND request_id != '' AND request_id IN `
	responseFind   = `SELECT created_at FROM idempotency_keys WHERE key_id = ? AND idem_key = ?`
	responseDrop   = `DELETE FROM idempotency_keys WHERE created_at < ?`
	responseInsert = `INSERT INTO idempotency_keys (key_id, idem_key, fingerprint, body, created_at) VALUES (?, ?, ?, ?, ?)`
)

// debitTexts are every statement text a batch may run.
func debitTexts() []string {
	out := []string{debitKey, debitUpdate, responseFind, responseDrop, responseInsert, sqlstore.UpstreamInsert}
	for n := 1; n <= maxDebitBatch; n *= 2 {
		out = append(out, ledgerText(n), seenText(n))
	}
	return out
}

func ledgerText(n int) string {
	return debitLedger + strings.TrimSuffix(strings.Repeat(debitLedgerRow+",", n), ",")
}

func seenText(n int) string { return debitSeen + "(" + sqlstore.Placeholders(n) + ")" }

// prepare prepares the statements not prepared yet. It runs outside a
// transaction: the write connection is the only one.
func (b *debitBatcher) prepare(ctx context.Context) error {
	if len(b.stmts) > 0 {
		return nil
	}
	for _, q := range debitTexts() {
		st, err := b.s.write.PrepareContext(ctx, q)
		if err != nil {
			for _, st := range b.stmts {
				st.Close()
			}
			clear(b.stmts)
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

// maxDebitBatch bounds how many debits share one commit.
const maxDebitBatch = sqlstore.MaxDebitBatch

// apply decides the debits of one batch in order, in one transaction,
// and fills results; an error means the transaction failed and nothing was
// charged.
func (b *debitBatcher) apply(batch []social.Debit, results []sqlstore.DebitResult) error {
	ctx := context.Background() // the commit must not be cut short by one caller leaving
	if err := b.prepare(ctx); err != nil {
		return err
	}
	tx, err := b.s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: debit: begin: %w", err)
	}
	defer tx.Rollback()
	// The ledger rows of the cache hits these debits charge for (and any
	// others held) commit with them.
	upstream := b.s.later.take()
	committed := false
	defer func() {
		b.s.landed(upstream, committed)
		if committed {
			// Rows a flush took before this batch commit in its
			// transaction (the connection is free again): the answers
			// wait for them.
			b.s.later.wait()
		}
	}()
	if len(upstream) > 0 {
		if err := writeUpstream(ctx, b.stmt(ctx, tx, sqlstore.UpstreamInsert), upstream); err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
	}
	balances := map[int64]*keyBalance{}
	for _, d := range batch {
		if balances[d.KeyID] == nil {
			kb, err := b.readKey(ctx, tx, d.KeyID)
			if err != nil {
				return err
			}
			balances[d.KeyID] = kb
		}
	}
	seen, err := b.charged(ctx, tx, batch, balances)
	if err != nil {
		return err
	}
	keep := &responseKeeper{find: b.stmt(ctx, tx, responseFind), drop: b.stmt(ctx, tx, responseDrop),
		insert: b.stmt(ctx, tx, responseInsert)}
	var ledger []any
	now := time.Now().UnixMicro()
	for i, d := range batch {
		if d.Response != nil {
			kept, err := keep.fresh(ctx, d)
			if err != nil {
				return err
			}
			if kept {
				results[i] = sqlstore.DebitResult{Err: fmt.Errorf("key %d: Idempotency-Key %q was answered already: %w",
					d.KeyID, d.Response.Key, social.ErrConflict)}
				continue
			}
		}
		if d.RequestID != "" {
			k := sqlstore.RequestOf(d)
			if seen[k] {
				results[i] = sqlstore.ChargedAlready(d)
				continue
			}
			seen[k] = true
		}
		kb := balances[d.KeyID]
		if !kb.live || kb.balance < d.Amount {
			results[i] = sqlstore.DebitResult{Err: fmt.Errorf("key %d: %w", d.KeyID, social.ErrInsufficientBalance)}
			continue
		}
		kb.balance -= d.Amount
		kb.changed = true
		ledger = append(ledger, d.KeyID, d.RequestID, d.Endpoint, d.Items, d.Amount, kb.balance, now)
		if d.Response != nil {
			if err := keep.store(ctx, d); err != nil {
				return err
			}
		}
		results[i] = sqlstore.DebitResult{Balance: kb.balance}
	}
	for id, kb := range balances {
		if !kb.changed {
			continue
		}
		if _, err := b.stmt(ctx, tx, debitUpdate).ExecContext(ctx, kb.balance, id); err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
	}
	for _, n := range rowChunks(len(ledger)/debitLedgerWidth, maxDebitBatch) {
		part := ledger[:n*debitLedgerWidth]
		ledger = ledger[n*debitLedgerWidth:]
		if _, err := b.stmt(ctx, tx, ledgerText(n)).ExecContext(ctx, part...); err != nil {
			return fmt.Errorf("sqlite: debit: ledger: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: debit: commit: %w", err)
	}
	committed = true
	return nil
}

// keyBalance is a key's balance within a batch: read once, moved by each
// debit in order, written once.
type keyBalance struct {
	balance int64
	live    bool // the key exists and is not revoked
	changed bool
	// known: the key exists (live or revoked); newest: the greatest
	// request id it was charged, if any.
	known  bool
	newest sql.NullString
}

// readKey reads key id's state at the start of a batch.
func (b *debitBatcher) readKey(ctx context.Context, tx *sql.Tx, id int64) (*keyBalance, error) {
	kb := &keyBalance{}
	err := b.stmt(ctx, tx, debitKey).QueryRowContext(ctx, id).Scan(&kb.balance, &kb.live, &kb.newest)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, fmt.Errorf("sqlite: debit: key %d: %w", id, err)
	default:
		kb.known = true
	}
	return kb, nil
}

// charged finds which of the batch's request ids are charged already.
// When each key's ids all sort after the greatest id it was charged (read
// with the key), none was: the server's ids rise with time (httpapi's
// newRequestID). Otherwise (or for a key not found, whose ledger rows may
// outlive it) it looks the ids up, a statement per key and chunk of ids.
func (b *debitBatcher) charged(ctx context.Context, tx *sql.Tx, batch []social.Debit, keys map[int64]*keyBalance) (map[sqlstore.ChargedRequest]bool, error) {
	byKey := map[int64][]any{}
	least := map[int64]string{}
	for _, d := range batch {
		if d.RequestID != "" {
			byKey[d.KeyID] = append(byKey[d.KeyID], d.RequestID)
			if l, ok := least[d.KeyID]; !ok || d.RequestID < l {
				least[d.KeyID] = d.RequestID
			}
		}
	}
	out := map[sqlstore.ChargedRequest]bool{}
	older := false
	for key, l := range least {
		if kb := keys[key]; !kb.known || kb.newest.Valid && kb.newest.String >= l {
			older = true
			break
		}
	}
	if !older {
		return out, nil
	}
	b.lookups.Add(1)
	for key, ids := range byKey {
		for _, n := range rowChunks(len(ids), maxDebitBatch) {
			args := append([]any{key}, ids[:n]...)
			ids = ids[n:]
			rows, err := b.stmt(ctx, tx, seenText(n)).QueryContext(ctx, args...)
			if err != nil {
				return nil, fmt.Errorf("sqlite: debit: request: %w", err)
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, fmt.Errorf("sqlite: debit: request: %w", err)
				}
				out[sqlstore.ChargedRequest{Key: key, ID: id}] = true
			}
			if err := rows.Close(); err != nil {
				return nil, fmt.Errorf("sqlite: debit: request: %w", err)
			}
		}
	}
	return out, nil
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
