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

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// CreateKey stores a new key with its opening credit.
func (s *Store) CreateKey(ctx context.Context, k social.APIKey, credit int64) (social.APIKey, error) {
	if credit < 0 {
		return k, fmt.Errorf("opening credit %d: %w", credit, social.ErrInvalid)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `INSERT INTO api_keys (name, prefix, digest, balance, rate_limit, fault, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, k.Name, k.Prefix, k.Digest[:], credit, k.RateLimit,
			k.Fault, now.UnixMicro()).Scan(&k.ID)
		if isUniqueViolation(err) {
			return fmt.Errorf("api key digest exists: %w", social.ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("postgres: create key: %w", err)
		}
		if credit > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO ledger (key_id, kind, amount, balance_after, created_at)
				VALUES ($1, 'credit', $2, $2, $3)`, k.ID, credit, now.UnixMicro()); err != nil {
				return fmt.Errorf("postgres: create key: ledger: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return k, err
	}
	k.Balance = credit
	k.CreatedAt = now
	k.RevokedAt = nil
	return k, nil
}

// TopUp adds credit to a key, with its ledger row, in one statement.
func (s *Store) TopUp(ctx context.Context, keyID int64, amount int64) (social.APIKey, error) {
	if amount <= 0 {
		return social.APIKey{}, fmt.Errorf("top-up amount %d: %w", amount, social.ErrInvalid)
	}
	var bal int64
	err := s.pool.QueryRow(ctx, `WITH k AS (
			UPDATE api_keys SET balance = balance + $1 WHERE id = $2 RETURNING id, balance)
		INSERT INTO ledger (key_id, kind, amount, balance_after, created_at)
		SELECT id, 'credit', $1, balance, $3 FROM k RETURNING balance_after`,
		amount, keyID, time.Now().UnixMicro()).Scan(&bal)
	if errors.Is(err, pgx.ErrNoRows) {
		return social.APIKey{}, fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	if err != nil {
		return social.APIKey{}, fmt.Errorf("postgres: top up: %w", err)
	}
	return s.Key(ctx, keyID)
}

// Revoke marks a key revoked (the first revocation time stays).
func (s *Store) Revoke(ctx context.Context, keyID int64) error {
	_, err := s.updateKey(ctx, keyID, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`,
		time.Now().UnixMicro(), keyID)
	return err
}

// SetRateLimit sets a key's requests per minute (0: the server default).
func (s *Store) SetRateLimit(ctx context.Context, keyID int64, perMinute int) (social.APIKey, error) {
	if perMinute < 0 {
		return social.APIKey{}, fmt.Errorf("rate limit %d: %w", perMinute, social.ErrInvalid)
	}
	return s.updateKey(ctx, keyID, `UPDATE api_keys SET rate_limit = $1 WHERE id = $2`, perMinute, keyID)
}

// SetFault stores a key's fault plan.
func (s *Store) SetFault(ctx context.Context, keyID int64, plan string) (social.APIKey, error) {
	return s.updateKey(ctx, keyID, `UPDATE api_keys SET fault = $1 WHERE id = $2`, plan, keyID)
}

// RotateKey gives a key a new digest and prefix.
func (s *Store) RotateKey(ctx context.Context, keyID int64, digest [32]byte, prefix string) (social.APIKey, error) {
	k, err := s.updateKey(ctx, keyID, `UPDATE api_keys SET digest = $1, prefix = $2 WHERE id = $3`, digest[:], prefix, keyID)
	if isUniqueViolation(err) {
		return k, fmt.Errorf("api key digest exists: %w", social.ErrConflict)
	}
	return k, err
}

// updateKey runs one UPDATE of a key's row and returns the key as stored.
func (s *Store) updateKey(ctx context.Context, keyID int64, query string, args ...any) (social.APIKey, error) {
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return social.APIKey{}, fmt.Errorf("postgres: update key %d: %w", keyID, unavailable(err))
	}
	if tag.RowsAffected() == 0 {
		return social.APIKey{}, fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	return s.Key(ctx, keyID)
}

// Keys, the ledger and kept responses are read from the primary, never a
// replica: a top-up, revocation or limit change holds at once everywhere.

// Versions reads the change counters on the primary. With read replicas
// Content is -1: a page read from a standby may be older than the
// primary's counter says, so pages must not be cached by it.
func (s *Store) Versions(ctx context.Context) (social.Versions, error) {
	v, err := s.primary.Versions(ctx)
	if s.reads != nil {
		v.Content = -1
	}
	return v, err
}

// KeyByDigest finds a key by its digest, on the primary.
func (s *Store) KeyByDigest(ctx context.Context, digest [32]byte) (social.APIKey, error) {
	return s.primary.KeyByDigest(ctx, digest)
}

// Key finds a key by id, on the primary.
func (s *Store) Key(ctx context.Context, id int64) (social.APIKey, error) {
	return s.primary.Key(ctx, id)
}

// Keys lists every key, on the primary.
func (s *Store) Keys(ctx context.Context) ([]social.APIKey, error) { return s.primary.Keys(ctx) }

// Ledger lists a key's ledger rows, on the primary.
func (s *Store) Ledger(ctx context.Context, keyID int64) ([]social.LedgerEntry, error) {
	return s.primary.Ledger(ctx, keyID)
}

// LedgerPage lists a page of a key's ledger, on the primary.
func (s *Store) LedgerPage(ctx context.Context, f social.LedgerFilter) (social.Page[social.LedgerEntry], error) {
	return s.primary.LedgerPage(ctx, f)
}

// Usage adds up debits, on the primary.
func (s *Store) Usage(ctx context.Context, f social.UsageFilter) ([]social.Usage, error) {
	return s.primary.Usage(ctx, f)
}

// Replay finds a kept response, on the primary.
func (s *Store) Replay(ctx context.Context, keyID int64, idemKey string, since time.Time) (social.StoredResponse, error) {
	return s.primary.Replay(ctx, keyID, idemKey, since)
}

// MaxPostID is the greatest stored post id (0: none).
func (s *Store) MaxPostID(ctx context.Context) (int64, error) { return s.Monitors().MaxPostID(ctx) }

// StartStream returns the record of a streamed answer's Idempotency-Key
// (see social.Streams), in one transaction on the primary.
func (s *Store) StartStream(ctx context.Context, k social.StreamKey) (social.StreamKey, error) {
	var got social.StreamKey
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) (err error) {
		got, err = sqlstore.StartStream(ctx, txDB{tx}, k)
		return err
	})
	if err != nil {
		return social.StreamKey{}, fmt.Errorf("postgres: %w", err)
	}
	return got, nil
}
