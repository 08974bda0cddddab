package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// debitSQL takes the amount only if the balance covers it and the key is
// live, writes the ledger row and, for a request id, claims the request
// (migration 0003) and keeps the response of an Idempotency-Key (migration
// 0008), in one statement and so one transaction: the row lock
// on the key serialises debits of one key across every replica, so no
// interleaving can overspend.
const debitSQL = `WITH k AS (
		UPDATE api_keys SET balance = balance - $1
		WHERE id = $2 AND balance >= $1 AND revoked_at IS NULL RETURNING id, balance),
	r AS (INSERT INTO debit_requests (key_id, request_id) SELECT id, $3 FROM k WHERE $3 <> ''),
	i AS (INSERT INTO idempotency_keys (key_id, idem_key, fingerprint, body, created_at)
		SELECT id, $7, $8, $9, $10 FROM k WHERE $7 <> '')
	INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount, balance_after, created_at)
	SELECT id, 'debit', $3, $4, $5, $1, balance, $6 FROM k RETURNING balance_after`

// Debit charges a key if its balance covers the amount (see
// social.Accounts). It either commits both the balance change and its
// ledger row or neither. A debit of a request id already charged is
// refused (social.ErrConflict) and charges nothing.
//
// When the connection is lost after the statement was sent, PostgreSQL may
// have committed it or not. For a request id, Debit then settles which
// (settle): the caller gets the balance of a debit that committed, or an
// error for one that did not and now never will, so that an answer of
// failure always means nothing was charged.
//
// A failure of the connection or the server (unreachable) is marked
// social.ErrUnavailable.
//
// Concurrent debits of this process share one transaction (debitBatch);
// a debit that keeps a response for an Idempotency-Key, or moves a
// stream's record, runs alone.
func (s *Store) Debit(ctx context.Context, d social.Debit) (int64, error) {
	if d.Amount <= 0 {
		return 0, fmt.Errorf("debit amount %d: %w", d.Amount, social.ErrInvalid)
	}
	var bal int64
	var err error
	switch {
	case d.Stream != nil:
		bal, err = s.debitStream(ctx, d)
	case d.Response != nil || s.debits == nil:
		bal, err = s.debitOne(ctx, d)
	default:
		bal, err = s.debits.Submit(ctx, d)
	}
	return bal, unavailable(err)
}

// streamAdvance is a stream's compare-and-set (social.StreamProgress):
// paid_through to $1, items added, where the key's record holds $6.
const streamAdvance = `UPDATE idempotency_keys SET paid_through = $1, items = items + $2
	WHERE key_id = $3 AND idem_key = $4 AND fingerprint = $5 AND paid_through = $6 AND bound IS NOT NULL`

// debitStream runs a debit and its stream's compare-and-set in one
// transaction: the debit first, so that it locks the key's row before the
// record's, in the order of every other debit that writes both.
func (s *Store) debitStream(ctx context.Context, d social.Debit) (int64, error) {
	p := d.Stream
	var bal int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, debitSQL, d.Amount, d.KeyID, d.RequestID, d.Endpoint, d.Items,
			time.Now().UnixMicro(), "", "", []byte(nil), int64(0)).Scan(&bal)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("key %d: %w", d.KeyID, social.ErrInsufficientBalance)
		}
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, streamAdvance, p.To, d.Items, d.KeyID, p.Key, p.Fingerprint, p.From)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return sqlstore.StreamMoved(d)
		}
		return nil
	})
	switch {
	case err == nil:
		return bal, nil
	case errors.Is(err, social.ErrInsufficientBalance), errors.Is(err, social.ErrConflict):
		return 0, err
	case isUniqueViolation(err):
		return 0, fmt.Errorf("key %d: request %s was charged already: %w", d.KeyID, d.RequestID, social.ErrConflict)
	case d.RequestID != "" && maybeSent(err):
		return s.settle(ctx, d, err)
	}
	return 0, fmt.Errorf("postgres: debit: %w", err)
}

// debitOne runs one debit in its own statement (and transaction).
func (s *Store) debitOne(ctx context.Context, d social.Debit) (int64, error) {
	now := time.Now().UnixMicro()
	var idemKey, fingerprint string
	var body []byte
	var kept int64
	if r := d.Response; r != nil {
		kept = sqlstore.Micros(r.CreatedAt)
		if err := s.expireResponses(ctx, d.KeyID, r.Key, kept); err != nil {
			return 0, err
		}
		idemKey, fingerprint, body = r.Key, r.Fingerprint, r.Body
	}
	var bal int64
	err := s.pool.QueryRow(ctx, debitSQL, d.Amount, d.KeyID, d.RequestID, d.Endpoint, d.Items,
		now, idemKey, fingerprint, body, kept).Scan(&bal)
	if s.loseDebitReply != nil && err == nil {
		err = s.loseDebitReply()
	}
	switch {
	case err == nil:
		return bal, nil
	case errors.Is(err, pgx.ErrNoRows):
		return 0, fmt.Errorf("key %d: %w", d.KeyID, social.ErrInsufficientBalance)
	case isUniqueViolation(err):
		return 0, fmt.Errorf("key %d: request %s or its Idempotency-Key was charged already: %w",
			d.KeyID, d.RequestID, social.ErrConflict)
	case d.RequestID != "" && maybeSent(err):
		return s.settle(ctx, d, err)
	}
	return 0, fmt.Errorf("postgres: debit: %w", err)
}

// maybeSent reports whether a failed statement may have reached the server
// and committed there: an error the server did not answer, raised after
// the statement could have been sent, or an error that ended the session
// (severity FATAL or PANIC: a backend terminated by pg_terminate_backend,
// the server shutting down), which can come after the statement
// committed, in place of its reply. Any other error of the server ended
// the statement before its commit.
func maybeSent(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		sev := pe.SeverityUnlocalized
		if sev == "" {
			sev = pe.Severity
		}
		return sev == "FATAL" || sev == "PANIC"
	}
	return !pgconn.SafeToRetry(err)
}

// settleTimeout bounds how long settle waits for the database to answer.
// It covers a failover: an HA manager promotes a standby once the lost
// primary's leader lease ends (Patroni's default ttl of 30 s, checked
// every loop_wait of 10 s; pg_auto_failover's about 30 s), and a debit
// whose reply the old primary took with it is settled on the new primary
// (the URL's target_session_attrs=read-write finds it). The request waits
// that long for its answer.
const settleTimeout = 60 * time.Second

// settle decides a debit whose reply was lost (lost is the error) by
// claiming its request: claimed, the debit did not commit and never will,
// and the error stands; taken, it committed, and its ledger row gives the
// balance. It retries while the database is unreachable (it may be
// restarting), on a context the request's cancellation does not end, for
// up to settleTimeout; a debit it cannot settle is logged for the operator
// and reported as of unknown outcome.
func (s *Store) settle(ctx context.Context, d social.Debit, lost error) (int64, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	wait := 50 * time.Millisecond
	for {
		bal, settled, err := s.claim(ctx, d)
		if err == nil && !settled {
			return 0, fmt.Errorf("postgres: debit of request %s (not charged): %w", d.RequestID, lost)
		}
		if err == nil {
			s.log.Warn("debit reply lost; the debit had committed", "key_id", d.KeyID, "request_id", d.RequestID, "err", lost)
			return bal, nil
		}
		select {
		case <-ctx.Done():
			s.log.Error("debit outcome unknown: the database did not answer", "key_id", d.KeyID,
				"request_id", d.RequestID, "amount", d.Amount, "err", err)
			return 0, fmt.Errorf("postgres: debit of request %s: outcome unknown: %w", d.RequestID, lost)
		case <-time.After(wait):
		}
		wait = min(2*wait, time.Second)
	}
}

// claim claims d's request. It returns settled = false when the claim
// succeeds (no debit of the request committed), or settled = true and the
// balance after the debit when the request was charged.
func (s *Store) claim(ctx context.Context, d social.Debit) (bal int64, settled bool, err error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO debit_requests (key_id, request_id) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, d.KeyID, d.RequestID)
	if err != nil {
		return 0, false, err
	}
	if tag.RowsAffected() == 1 {
		return 0, false, nil
	}
	err = s.pool.QueryRow(ctx, `SELECT balance_after FROM ledger WHERE key_id = $1 AND request_id = $2
		AND kind = 'debit' ORDER BY id DESC LIMIT 1`, d.KeyID, d.RequestID).Scan(&bal)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil // claimed by an earlier settle: never charged
	}
	return bal, err == nil, err
}

// expireEvery is how many kept responses pass between removals of every
// expired one; in between only the key's own expired response goes.
const expireEvery = 256

// expireResponses removes an expired response kept under the same
// Idempotency-Key (its place is taken anew) and, every expireEvery calls,
// all expired responses; now is the new response's time.
func (s *Store) expireResponses(ctx context.Context, keyID int64, idemKey string, now int64) error {
	cutoff := now - social.IdempotencyWindow.Microseconds()
	q, args := `DELETE FROM idempotency_keys WHERE key_id = $1 AND idem_key = $2 AND created_at < $3`, []any{keyID, idemKey, cutoff}
	if s.kept.Add(1)%expireEvery == 0 {
		q, args = `DELETE FROM idempotency_keys WHERE created_at < $1`, []any{cutoff}
	}
	if _, err := s.pool.Exec(ctx, q, args...); err != nil {
		return fmt.Errorf("postgres: expire kept responses: %w", err)
	}
	return nil
}
