package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"roost/export"
	"roost/social"
)

const keyColumns = `id, name, prefix, digest, balance, rate_limit, created_at, revoked_at`

func scanKey(row pgx.Row) (social.APIKey, error) {
	var k social.APIKey
	var digest []byte
	var created int64
	var revoked *int64
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &digest, &k.Balance, &k.RateLimit, &created, &revoked); err != nil {
		return k, notFound(err, "api key")
	}
	copy(k.Digest[:], digest)
	k.CreatedAt = social.FromMicros(created)
	if revoked != nil {
		t := social.FromMicros(*revoked)
		k.RevokedAt = &t
	}
	return k, nil
}

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

// KeyByDigest finds a key by the SHA-256 digest of the key.
func (s *Store) KeyByDigest(ctx context.Context, digest [32]byte) (social.APIKey, error) {
	return scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE digest = $1`, digest[:]))
}

// Key finds a key by id.
func (s *Store) Key(ctx context.Context, id int64) (social.APIKey, error) {
	return scanKey(s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id))
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]social.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: keys: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (social.APIKey, error) { return scanKey(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: keys: %w", err)
	}
	return out, nil
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

// Ledger lists a key's ledger rows in order.
func (s *Store) Ledger(ctx context.Context, keyID int64) ([]social.LedgerEntry, error) {
	return s.ledger(ctx, `WHERE key_id = $1 ORDER BY id`, keyID)
}

func (s *Store) ledger(ctx context.Context, where string, args ...any) ([]social.LedgerEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+export.LedgerColumns+` FROM ledger `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: ledger: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (social.LedgerEntry, error) { return export.ScanLedgerEntry(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: ledger: %w", err)
	}
	return out, nil
}
