package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// debitBatch decides a batch of debits (none keeps a response). A request
// id earlier in the batch is refused; then one statement charges the
// debits of every key whose balance covers all of its debits
// (chargeCovered), and the debits left are decided in one transaction
// (decideRest).
func (s *Store) debitBatch(ds []social.Debit, out []sqlstore.DebitResult) {
	ctx := context.Background()      // the commit must not be cut short by one caller leaving
	decided := make([]bool, len(ds)) // answered: refused, or charged by a commit
	inBatch := map[sqlstore.ChargedRequest]bool{}
	for i, d := range ds {
		if d.RequestID != "" {
			k := sqlstore.RequestOf(d)
			if inBatch[k] {
				out[i], decided[i] = sqlstore.ChargedAlready(d), true
			}
			inBatch[k] = true
		}
	}
	if s.beforeDebitWrites == nil {
		s.chargeCovered(ctx, ds, decided, out)
	}
	if slices.Contains(decided, false) {
		s.decideRest(ctx, ds, decided, out)
	}
}

// decideRest decides the debits of ds not decided yet in one transaction:
// one commit, and each key's row locked once, where debits one statement
// each would wait for each other's commit on the key's row. The keys' rows
// are locked first, in id order (the order of every replica's batches, so
// two batches never wait for each other in a cycle; a single debit locks
// one key only); request ids charged before are refused; each key's debits
// are decided in the order they came against its balance; then the
// balances, the claimed request ids and the ledger rows are written by one
// statement each. The transaction takes two round trips (inTwoTrips): the
// reads with BEGIN, the writes with COMMIT. When it fails on a request id
// another process claimed meanwhile (settle) or on a lock, each debit is
// made again alone; when its reply is lost, the charges are settled by
// their request ids as debitOne settles them.
func (s *Store) decideRest(ctx context.Context, ds []social.Debit, decided []bool, out []sqlstore.DebitResult) {
	before := slices.Clone(decided) // decided before the transaction, whether or not it commits
	var charged []int               // debits the transaction charges, if it commits
	err := s.inTwoTrips(ctx, func(b *pgx.Batch) { readBatch(b, ds, decided) }, func(br pgx.BatchResults, b *pgx.Batch) error {
		balances, err := scanBalances(br)
		if err != nil {
			return err
		}
		if err := refuseCharged(br, ds, decided, out); err != nil {
			return err
		}
		if s.beforeDebitWrites != nil {
			if err := s.beforeDebitWrites(); err != nil {
				return err
			}
		}
		for i, d := range ds {
			if decided[i] {
				continue
			}
			bal, live := balances[d.KeyID]
			if !live || bal < d.Amount {
				out[i], decided[i] = sqlstore.DebitResult{Err: fmt.Errorf("key %d: %w", d.KeyID, social.ErrInsufficientBalance)}, true
				continue
			}
			balances[d.KeyID] = bal - d.Amount
			out[i] = sqlstore.DebitResult{Balance: bal - d.Amount}
			charged = append(charged, i)
		}
		queueDebits(b, ds, out, charged, balances)
		return nil
	})
	if s.loseDebitReply != nil && err == nil {
		err = s.loseDebitReply()
	}
	switch {
	case err == nil:
	case isUniqueViolation(err) || isLockFailure(err):
		s.log.Debug("debit batch failed; debiting one at a time", "debits", len(ds), "err", err)
		for i, d := range ds {
			if !before[i] {
				out[i].Balance, out[i].Err = s.debitOne(ctx, d)
			}
		}
	case maybeSent(err):
		// The refusals stand whether or not it committed; the charges are
		// settled by their request ids (of unknown outcome without one);
		// a debit not decided yet when the connection failed charged
		// nothing.
		for i, d := range ds {
			switch {
			case decided[i]:
			case slices.Contains(charged, i) && d.RequestID != "":
				out[i].Balance, out[i].Err = s.settle(ctx, d, err)
			default:
				out[i] = sqlstore.DebitResult{Err: fmt.Errorf("postgres: debit: %w", err)}
			}
		}
	default:
		for i := range ds {
			if !before[i] {
				out[i] = sqlstore.DebitResult{Err: fmt.Errorf("postgres: debit: %w", err)}
			}
		}
	}
}

// lockKeysSQL locks the rows of the batch's keys, in id order, and reads
// the balance of each.
const lockKeysSQL = `SELECT id, balance, revoked_at IS NULL FROM api_keys WHERE id = ANY($1) ORDER BY id FOR UPDATE`

// refuseSQL finds which of a list of (key, request id) pairs were charged.
const refuseSQL = `SELECT key_id, request_id FROM debit_requests
	WHERE (key_id, request_id) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))`

// readBatch queues the reads of a batch's transaction: its keys' rows,
// locked (lockKeysSQL), and the request ids charged before (refuseSQL),
// for the debits not decided yet.
func readBatch(b *pgx.Batch, ds []social.Debit, decided []bool) {
	var ids []int64
	for i, d := range ds {
		if !decided[i] {
			ids = append(ids, d.KeyID)
		}
	}
	slices.Sort(ids)
	b.Queue(lockKeysSQL, slices.Compact(ids))
	var keys []int64
	var reqs []string
	for i, d := range ds {
		if !decided[i] && d.RequestID != "" {
			keys, reqs = append(keys, d.KeyID), append(reqs, d.RequestID)
		}
	}
	b.Queue(refuseSQL, keys, reqs)
}

// inTwoTrips runs one transaction in two round trips: BEGIN with the
// reads read queues, then the writes decide queues (having read the
// reads' results, in order) with COMMIT. A transaction that fails is
// rolled back before its connection goes back to the pool.
func (s *Store) inTwoTrips(ctx context.Context, read func(*pgx.Batch), decide func(pgx.BatchResults, *pgx.Batch) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	open := true
	defer func() {
		if open {
			// A connection that cannot roll back is closed by Release.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			conn.Exec(rctx, "ROLLBACK") //nolint:errcheck // the transaction's own error is the one to report
		}
	}()
	reads := &pgx.Batch{}
	reads.Queue("BEGIN")
	read(reads)
	br := conn.SendBatch(ctx, reads)
	writes := &pgx.Batch{}
	_, err = br.Exec()
	if err == nil {
		err = decide(br, writes)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	writes.Queue("COMMIT")
	if err := conn.SendBatch(ctx, writes).Close(); err != nil {
		return err
	}
	open = false
	return nil
}

// scanBalances reads lockKeysSQL's rows: the balance of each live key (a
// revoked or unknown key is absent).
func scanBalances(br pgx.BatchResults) (map[int64]int64, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, bal int64
		var live bool
		if err := rows.Scan(&id, &bal, &live); err != nil {
			return nil, err
		}
		if live {
			out[id] = bal
		}
	}
	return out, rows.Err()
}

// queueDebits queues the writes of the charged debits (indexes into ds,
// in order): the keys' balances, the claimed request ids and the ledger
// rows, one statement each.
func queueDebits(b *pgx.Batch, ds []social.Debit, out []sqlstore.DebitResult, charged []int, balances map[int64]int64) {
	if len(charged) == 0 {
		return
	}
	now := time.Now().UnixMicro()
	var (
		keyIDs, keyBals                    []int64
		reqKeys                            []int64
		reqIDs                             []string
		lKeys, lItems, lAmounts, lBalances []int64
		lReqs, lEndpoints                  []string
	)
	seenKey := map[int64]bool{}
	for _, i := range charged {
		d := ds[i]
		if !seenKey[d.KeyID] {
			seenKey[d.KeyID] = true
			keyIDs, keyBals = append(keyIDs, d.KeyID), append(keyBals, balances[d.KeyID])
		}
		if d.RequestID != "" {
			reqKeys, reqIDs = append(reqKeys, d.KeyID), append(reqIDs, d.RequestID)
		}
		lKeys, lReqs, lEndpoints = append(lKeys, d.KeyID), append(lReqs, d.RequestID), append(lEndpoints, d.Endpoint)
		lItems, lAmounts, lBalances = append(lItems, int64(d.Items)), append(lAmounts, d.Amount), append(lBalances, out[i].Balance)
	}
	b.Queue(`UPDATE api_keys k SET balance = v.balance FROM unnest($1::bigint[], $2::bigint[]) AS v(id, balance) WHERE k.id = v.id`,
		keyIDs, keyBals)
	if len(reqKeys) > 0 {
		b.Queue(`INSERT INTO debit_requests (key_id, request_id) SELECT * FROM unnest($1::bigint[], $2::text[])`, reqKeys, reqIDs)
	}
	b.Queue(`INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount, balance_after, created_at)
		SELECT key_id, 'debit', request_id, endpoint, items, amount, balance_after, $7
		FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
			WITH ORDINALITY AS v(key_id, request_id, endpoint, items, amount, balance_after, n)
		ORDER BY n`, lKeys, lReqs, lEndpoints, lItems, lAmounts, lBalances, now)
}

// refuseCharged reads refuseSQL's rows and refuses the debits of the
// batch whose request ids were charged before.
func refuseCharged(br pgx.BatchResults, ds []social.Debit, decided []bool, out []sqlstore.DebitResult) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	seen := map[sqlstore.ChargedRequest]bool{}
	for rows.Next() {
		var k sqlstore.ChargedRequest
		if err := rows.Scan(&k.Key, &k.ID); err != nil {
			return err
		}
		seen[k] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for i, d := range ds {
		if !decided[i] && seen[sqlstore.RequestOf(d)] {
			out[i], decided[i] = sqlstore.ChargedAlready(d), true
		}
	}
	return nil
}

// isLockFailure reports a deadlock or a serialization failure: the
// transaction was cancelled and may be run again.
func isLockFailure(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}
