package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// coveredSQL charges, in one statement (one transaction, one round trip),
// the debits of every key whose balance covers the sum of its debits in
// the list ($1–$5, in order): it locks the live keys' rows in id order (as
// every batch does), takes each covered key's sum, claims the request ids
// and writes the ledger rows in the list's order, each with the balance
// after it. It returns each charged key and its balance before; a key not
// covered, revoked or unknown is left as it was, its debits for a
// transaction that decides them one by one. A request id charged before
// fails the whole statement (a unique violation): nothing is charged.
const coveredSQL = `WITH d AS (
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
			WITH ORDINALITY AS d(key_id, request_id, endpoint, items, amount, n)),
	t AS (SELECT key_id, sum(amount) AS total FROM d GROUP BY key_id),
	l AS MATERIALIZED (SELECT a.id, a.balance FROM api_keys a
		WHERE a.id IN (SELECT key_id FROM t) AND a.revoked_at IS NULL ORDER BY a.id FOR UPDATE),
	k AS (UPDATE api_keys a SET balance = l.balance - t.total FROM l JOIN t ON t.key_id = l.id
		WHERE a.id = l.id AND l.balance >= t.total RETURNING a.id, l.balance AS before),
	r AS (INSERT INTO debit_requests (key_id, request_id)
		SELECT d.key_id, d.request_id FROM d JOIN k ON k.id = d.key_id WHERE d.request_id <> ''),
	g AS (INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount, balance_after, created_at)
		SELECT d.key_id, 'debit', d.request_id, d.endpoint, d.items, d.amount,
			k.before - sum(d.amount) OVER (PARTITION BY d.key_id ORDER BY d.n), $6
		FROM d JOIN k ON k.id = d.key_id ORDER BY d.n)
	SELECT id, before FROM k`

// chargeCovered charges the debits of ds not decided yet whose key's
// balance covers all of them (coveredSQL) and marks them decided, with
// their balances. When the statement fails, nothing was charged and every
// debit is left to decideRest, except when its reply was lost: then it
// may have committed, and each debit is settled by its request id (of
// unknown outcome without one), as debitOne's are.
func (s *Store) chargeCovered(ctx context.Context, ds []social.Debit, decided []bool, out []sqlstore.DebitResult) {
	var (
		idx                  []int
		keys, items, amounts []int64
		requests, endpoints  []string
	)
	for i, d := range ds {
		if !decided[i] {
			idx = append(idx, i)
			keys, requests, endpoints = append(keys, d.KeyID), append(requests, d.RequestID), append(endpoints, d.Endpoint)
			items, amounts = append(items, int64(d.Items)), append(amounts, d.Amount)
		}
	}
	if len(idx) == 0 {
		return
	}
	before := map[int64]int64{}
	rows, err := s.pool.Query(ctx, coveredSQL, keys, requests, endpoints, items, amounts, time.Now().UnixMicro())
	if err == nil {
		var scanErr error
		for rows.Next() {
			var id, bal int64
			if scanErr = rows.Scan(&id, &bal); scanErr != nil {
				break
			}
			before[id] = bal
		}
		rows.Close()
		if err = rows.Err(); err == nil && scanErr != nil {
			err = scanErr // committed, balances unknown: settled below
		}
	}
	if err == nil && len(before) > 0 && s.loseDebitReply != nil {
		err = s.loseDebitReply()
	}
	switch {
	case err == nil:
		for _, i := range idx {
			d := ds[i]
			if bal, ok := before[d.KeyID]; ok {
				before[d.KeyID] = bal - d.Amount
				out[i], decided[i] = sqlstore.DebitResult{Balance: bal - d.Amount}, true
			}
		}
	case maybeSent(err):
		for _, i := range idx {
			d := ds[i]
			if d.RequestID != "" {
				out[i].Balance, out[i].Err = s.settle(ctx, d, err)
			} else {
				out[i] = sqlstore.DebitResult{Err: fmt.Errorf("postgres: debit: %w", err)}
			}
			decided[i] = true
		}
	default:
		// Nothing was charged (a request id charged before, a lock): the
		// transaction decides every debit, and refuses what it must.
		s.log.Debug("debits of covered keys: one statement failed; deciding them in a transaction", "debits", len(idx), "err", err)
	}
}
