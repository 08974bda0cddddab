package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
)

// debitBatch decides a batch of debits (none keeps a response) in one
// transaction: one commit, and each key's row lock taken once, where
// debits one statement each would wait for each other's commit on the
// key's row. The debits run in the order of their keys' ids (the same
// order in every replica's batches, so two batches never wait for each
// other's locks in a cycle), each key's in the order they came, each as
// debitSQL. Request ids charged before, or twice in the batch, are
// refused first, so that no statement of the batch fails on them. When
// the transaction fails anyway (another process claimed a request
// meanwhile, a deadlock with some other writer), each debit is made again
// alone; when its reply is lost, debits with a request id are settled as
// debitOne settles them.
func (s *Store) debitBatch(ds []social.Debit, out []sqlstore.DebitResult) {
	ctx := context.Background() // the commit must not be cut short by one caller leaving
	order := make([]int, len(ds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ds[a].KeyID, ds[b].KeyID) })
	decided := make([]bool, len(ds)) // refused before the statements
	twice := make([]bool, len(ds))   // a request id earlier in the batch
	inBatch := map[chargedRequest]bool{}
	for _, i := range order {
		if d := ds[i]; d.RequestID != "" {
			k := chargedRequest{d.KeyID, d.RequestID}
			if inBatch[k] {
				out[i], decided[i], twice[i] = chargedAlready(d), true, true
			}
			inBatch[k] = true
		}
	}
	charged := make([]bool, len(ds))  // by the transaction, if it commits
	answered := make([]bool, len(ds)) // its statement's result was read
	now := time.Now().UnixMicro()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.refuseCharged(ctx, tx, ds, order, decided, out); err != nil {
			return err
		}
		b := &pgx.Batch{}
		var queued []int
		for _, i := range order {
			if decided[i] {
				continue
			}
			d := ds[i]
			b.Queue(debitSQL, d.Amount, d.KeyID, d.RequestID, d.Endpoint, d.Items, now, "", "", []byte(nil), int64(0))
			queued = append(queued, i)
		}
		br := tx.SendBatch(ctx, b)
		for _, i := range queued {
			var bal int64
			err := br.QueryRow().Scan(&bal)
			answered[i] = err == nil || errors.Is(err, pgx.ErrNoRows)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				out[i] = sqlstore.DebitResult{Err: fmt.Errorf("key %d: %w", ds[i].KeyID, social.ErrInsufficientBalance)}
			case err != nil:
				br.Close()
				return err
			default:
				out[i], charged[i] = sqlstore.DebitResult{Balance: bal}, true
			}
		}
		return br.Close()
	})
	if s.loseDebitReply != nil && err == nil {
		err = s.loseDebitReply()
	}
	switch {
	case err == nil:
	case isUniqueViolation(err) || isLockFailure(err):
		s.log.Debug("debit batch failed; debiting one at a time", "debits", len(ds), "err", err)
		for i, d := range ds {
			if !twice[i] {
				out[i].Balance, out[i].Err = s.debitOne(ctx, d)
			}
		}
	case maybeSent(err):
		// The refusals stand whether or not it committed; the charges, and
		// statements sent but not answered, are settled by their request
		// ids (or of unknown outcome without one).
		for i, d := range ds {
			switch {
			case decided[i] || answered[i] && !charged[i]:
			case d.RequestID != "":
				out[i].Balance, out[i].Err = s.settle(ctx, d, err)
			default:
				out[i] = sqlstore.DebitResult{Err: fmt.Errorf("postgres: debit: %w", err)}
			}
		}
	default:
		sqlstore.FailAll(out, fmt.Errorf("postgres: debit: %w", err))
	}
}

// chargedRequest is a request id of a key.
type chargedRequest struct {
	key int64
	id  string
}

func chargedAlready(d social.Debit) sqlstore.DebitResult {
	return sqlstore.DebitResult{Err: fmt.Errorf("key %d: request %s was charged already: %w", d.KeyID, d.RequestID, social.ErrConflict)}
}

// refuseCharged refuses, in one statement, the debits of the batch whose
// request ids were charged before.
func (s *Store) refuseCharged(ctx context.Context, tx pgx.Tx, ds []social.Debit, order []int, decided []bool, out []sqlstore.DebitResult) error {
	var keys []int64
	var ids []string
	for _, i := range order {
		if !decided[i] && ds[i].RequestID != "" {
			keys, ids = append(keys, ds[i].KeyID), append(ids, ds[i].RequestID)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT key_id, request_id FROM debit_requests
		WHERE (key_id, request_id) IN (SELECT * FROM unnest($1::bigint[], $2::text[]))`, keys, ids)
	if err != nil {
		return err
	}
	seen := map[chargedRequest]bool{}
	for rows.Next() {
		var k chargedRequest
		if err := rows.Scan(&k.key, &k.id); err != nil {
			rows.Close()
			return err
		}
		seen[k] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, i := range order {
		if d := ds[i]; !decided[i] && seen[chargedRequest{d.KeyID, d.RequestID}] {
			out[i], decided[i] = chargedAlready(d), true
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
