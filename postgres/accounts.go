package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"roost/social"
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
		err := tx.QueryRow(ctx, `INSERT INTO api_keys (name, prefix, digest, balance, rate_limit, created_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`, k.Name, k.Prefix, k.Digest[:], credit, k.RateLimit,
			now.UnixMicro()).Scan(&k.ID)
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
	tag, err := s.pool.Exec(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2`,
		time.Now().UnixMicro(), keyID)
	if err != nil {
		return fmt.Errorf("postgres: revoke: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	return nil
}
