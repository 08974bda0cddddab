package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// debitBatcher applies SQLite's debits in batches (sqlstore.DebitBatcher):
// each batch runs in one IMMEDIATE transaction, committed durably
// (synchronous=FULL) before any of its debits is answered.
type debitBatcher struct {
	s *Store
	*sqlstore.DebitBatcher
	// plain holds the debit's statements, each prepared once on the
	// billing file's write connection. Only the batcher's goroutine
	// touches them until it is closed.
	plain sqlStmts
	// lookups counts the batches whose request ids were looked up one by
	// one (tests).
	lookups atomic.Int64
}

func newDebitBatcher(s *Store) *debitBatcher {
	b := &debitBatcher{s: s}
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
	b.plain.close()
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
	// streamAdvance is a stream's compare-and-set (social.StreamProgress):
	// paid_through to, items added, where the key's record holds from.
	streamAdvance = `UPDATE idempotency_keys SET paid_through = ?, items = items + ?
		WHERE key_id = ? AND idem_key = ? AND fingerprint = ? AND paid_through = ? AND bound IS NOT NULL RETURNING 1`
)

func ledgerText(n int) string {
	return debitLedger + strings.TrimSuffix(strings.Repeat(debitLedgerRow+",", n), ",")
}

func seenText(n int) string { return debitSeen + "(" + sqlstore.Placeholders(n) + ")" }

// maxDebitBatch bounds how many debits share one commit.
const maxDebitBatch = sqlstore.MaxDebitBatch

// apply decides the debits of one batch in order, in one transaction,
// and fills results; an error means the transaction failed and nothing was
// charged.
func (b *debitBatcher) apply(batch []social.Debit, results []sqlstore.DebitResult) error {
	ctx := context.Background() // the commit must not be cut short by one caller leaving
	// The ledger rows of the cache hits these debits charge for (and any
	// others held) commit with them.
	upstream, err := b.applySQL(ctx, batch, results)
	committed := err == nil
	b.s.landed(upstream, committed)
	if committed {
		// Rows a flush took before this batch commit in its transaction
		// (the connection is free again): the answers wait for them.
		b.s.later.wait()
	}
	return err
}

// decide writes the batch's held upstream rows, decides its debits in
// order and writes them, in the transaction raw runs.
func (b *debitBatcher) decide(ctx context.Context, raw sqlTx, upstream []ledger.Entry, batch []social.Debit, results []sqlstore.DebitResult) error {
	for _, e := range upstream {
		if err := raw.exec(ctx, sqlstore.UpstreamInsert, sqlstore.UpstreamArgs(e)...); err != nil {
			return fmt.Errorf("sqlite: debit: upstream ledger: %w", err)
		}
	}
	balances := map[int64]*keyBalance{}
	for _, d := range batch {
		if balances[d.KeyID] == nil {
			kb, err := readKey(ctx, raw, d.KeyID)
			if err != nil {
				return err
			}
			balances[d.KeyID] = kb
		}
	}
	seen, err := b.charged(ctx, raw, batch, balances)
	if err != nil {
		return err
	}
	keep := &responseKeeper{raw: raw}
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
		if d.Stream != nil {
			moved, err := advanceStream(ctx, raw, d)
			if err != nil {
				return err
			}
			if !moved {
				results[i] = sqlstore.DebitResult{Err: sqlstore.StreamMoved(d)}
				continue
			}
		}
		kb.balance -= d.Amount
		kb.changed = true
		ledger = append(ledger, d.KeyID, d.RequestID, d.Endpoint, int64(d.Items), d.Amount, kb.balance, now)
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
		if err := raw.exec(ctx, debitUpdate, kb.balance, id); err != nil {
			return fmt.Errorf("sqlite: debit: %w", err)
		}
	}
	for _, n := range rowChunks(len(ledger)/debitLedgerWidth, maxDebitBatch) {
		part := ledger[:n*debitLedgerWidth]
		ledger = ledger[n*debitLedgerWidth:]
		if err := raw.exec(ctx, ledgerText(n), part...); err != nil {
			return fmt.Errorf("sqlite: debit: ledger: %w", err)
		}
	}
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
	known     bool
	newest    string
	hasNewest bool
}

// readKey reads key id's state at the start of a batch.
func readKey(ctx context.Context, raw sqlTx, id int64) (*keyBalance, error) {
	kb := &keyBalance{}
	err := raw.query(ctx, debitKey, []any{id}, func(row []driver.Value) error {
		var okb, okl bool
		var live int64
		kb.balance, okb = row[0].(int64)
		live, okl = row[1].(int64)
		kb.live, kb.known = live != 0, true
		if !okb || !okl {
			return fmt.Errorf("balance and state read as %T and %T", row[0], row[1])
		}
		if row[2] != nil {
			kb.newest, kb.hasNewest = textOf(row[2]), true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: debit: key %d: %w", id, err)
	}
	return kb, nil
}

// textOf is a TEXT column's value as the driver gives it.
func textOf(v driver.Value) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	s, _ := v.(string)
	return s
}

// charged finds which of the batch's request ids are charged already.
// When each key's ids all sort after the greatest id it was charged (read
// with the key), none was: the server's ids rise with time (httpapi's
// newRequestID). Otherwise (or for a key not found, whose ledger rows may
// outlive it) it looks the ids up, a statement per key and chunk of ids.
func (b *debitBatcher) charged(ctx context.Context, raw sqlTx, batch []social.Debit, keys map[int64]*keyBalance) (map[sqlstore.ChargedRequest]bool, error) {
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
		if kb := keys[key]; !kb.known || kb.hasNewest && kb.newest >= l {
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
			err := raw.query(ctx, seenText(n), args, func(row []driver.Value) error {
				out[sqlstore.ChargedRequest{Key: key, ID: textOf(row[0])}] = true
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("sqlite: debit: request: %w", err)
			}
		}
	}
	return out, nil
}

// responseKeeper writes the responses of debits that carry one
// (social.Debit.Response) inside the debit's transaction.
type responseKeeper struct {
	raw    sqlTx
	pruned bool
}

// fresh reports whether d's Idempotency-Key holds a response younger than
// social.IdempotencyWindow. Once per transaction it first removes the
// expired responses of every key.
func (k *responseKeeper) fresh(ctx context.Context, d social.Debit) (bool, error) {
	if !k.pruned {
		cutoff := sqlstore.Micros(d.Response.CreatedAt.Add(-social.IdempotencyWindow))
		if err := k.raw.exec(ctx, responseDrop, cutoff); err != nil {
			return false, fmt.Errorf("sqlite: debit: expire responses: %w", err)
		}
		k.pruned = true
	}
	found := false
	err := k.raw.query(ctx, responseFind, []any{d.KeyID, d.Response.Key}, func([]driver.Value) error {
		found = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: debit: idempotency key: %w", err)
	}
	return found, nil
}

// store keeps d's response.
func (k *responseKeeper) store(ctx context.Context, d social.Debit) error {
	r := d.Response
	if err := k.raw.exec(ctx, responseInsert, d.KeyID, r.Key, r.Fingerprint, r.Body, sqlstore.Micros(r.CreatedAt)); err != nil {
		return fmt.Errorf("sqlite: debit: keep response: %w", err)
	}
	return nil
}

// advanceStream applies d's stream progress; it reports false when the
// record does not hold d.Stream.From.
func advanceStream(ctx context.Context, raw sqlTx, d social.Debit) (bool, error) {
	p := d.Stream
	moved := false
	err := raw.query(ctx, streamAdvance, []any{p.To, int64(d.Items), d.KeyID, p.Key, p.Fingerprint, p.From},
		func([]driver.Value) error {
			moved = true
			return nil
		})
	if err != nil {
		return false, fmt.Errorf("sqlite: debit: stream record: %w", err)
	}
	return moved, nil
}
