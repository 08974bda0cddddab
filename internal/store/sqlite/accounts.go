package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// CreateKey stores a new key with its opening credit.
func (s *Store) CreateKey(ctx context.Context, k social.APIKey, credit int64) (social.APIKey, error) {
	if credit < 0 {
		return k, fmt.Errorf("opening credit %d: %w", credit, social.ErrInvalid)
	}
	tx, err := s.bill.BeginTx(ctx, nil)
	if err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE digest = ?`, k.Digest[:]).Scan(&n); err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	if n > 0 {
		return k, fmt.Errorf("api key digest exists: %w", social.ErrConflict)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (name, prefix, digest, balance, rate_limit, fault, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, k.Name, k.Prefix, k.Digest[:], credit, k.RateLimit, k.Fault, now.UnixMicro())
	if err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	if k.ID, err = res.LastInsertId(); err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	if credit > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger (key_id, kind, amount, balance_after, created_at)
			VALUES (?, 'credit', ?, ?, ?)`, k.ID, credit, credit, now.UnixMicro()); err != nil {
			return k, fmt.Errorf("sqlite: create key: ledger: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return k, fmt.Errorf("sqlite: create key: %w", err)
	}
	k.Balance = credit
	k.CreatedAt = now
	k.RevokedAt = nil
	return k, nil
}

// TopUp adds credit to a key, with its ledger row.
func (s *Store) TopUp(ctx context.Context, keyID int64, amount int64) (social.APIKey, error) {
	if amount <= 0 {
		return social.APIKey{}, fmt.Errorf("top-up amount %d: %w", amount, social.ErrInvalid)
	}
	tx, err := s.bill.BeginTx(ctx, nil)
	if err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: top up: %w", err)
	}
	defer tx.Rollback()
	var bal int64
	err = tx.QueryRowContext(ctx, `UPDATE api_keys SET balance = balance + ? WHERE id = ? RETURNING balance`, amount, keyID).Scan(&bal)
	if errors.Is(err, sql.ErrNoRows) {
		return social.APIKey{}, fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	if err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: top up: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ledger (key_id, kind, amount, balance_after, created_at)
		VALUES (?, 'credit', ?, ?, ?)`, keyID, amount, bal, time.Now().UnixMicro()); err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: top up: ledger: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: top up: %w", err)
	}
	return s.keyTx(ctx, keyID)
}

// keyTx reads a key through the billing file's write connection (it sees
// its own commits at once).
func (s *Store) keyTx(ctx context.Context, id int64) (social.APIKey, error) {
	return sqlstore.Reader{DB: sqlDB(s.bill.QueryContext)}.Key(ctx, id)
}

// Revoke marks a key revoked.
func (s *Store) Revoke(ctx context.Context, keyID int64) error {
	_, err := s.updateKey(ctx, keyID, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`,
		time.Now().UnixMicro(), keyID)
	return err
}

// Debit charges a key if its balance covers the amount (see
// social.Accounts). Concurrent debits are committed together.
func (s *Store) Debit(ctx context.Context, d social.Debit) (int64, error) {
	if d.Amount <= 0 {
		return 0, fmt.Errorf("debit amount %d: %w", d.Amount, social.ErrInvalid)
	}
	bal, err := s.debits.Submit(ctx, d)
	return bal, unavailable(err)
}

// SetRateLimit sets a key's requests per minute (0: the server default).
func (s *Store) SetRateLimit(ctx context.Context, keyID int64, perMinute int) (social.APIKey, error) {
	if perMinute < 0 {
		return social.APIKey{}, fmt.Errorf("rate limit %d: %w", perMinute, social.ErrInvalid)
	}
	return s.updateKey(ctx, keyID, `UPDATE api_keys SET rate_limit = ? WHERE id = ?`, perMinute, keyID)
}

// SetFault stores a key's fault plan.
func (s *Store) SetFault(ctx context.Context, keyID int64, plan string) (social.APIKey, error) {
	return s.updateKey(ctx, keyID, `UPDATE api_keys SET fault = ? WHERE id = ?`, plan, keyID)
}

// RotateKey gives a key a new digest and prefix.
func (s *Store) RotateKey(ctx context.Context, keyID int64, digest [32]byte, prefix string) (social.APIKey, error) {
	var n int
	if err := s.bill.QueryRowContext(ctx, `SELECT count(*) FROM api_keys WHERE digest = ?`, digest[:]).Scan(&n); err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: rotate key: %w", err)
	}
	if n > 0 {
		return social.APIKey{}, fmt.Errorf("api key digest exists: %w", social.ErrConflict)
	}
	return s.updateKey(ctx, keyID, `UPDATE api_keys SET digest = ?, prefix = ? WHERE id = ?`, digest[:], prefix, keyID)
}

// updateKey runs one UPDATE of a key's row and returns the key as stored.
func (s *Store) updateKey(ctx context.Context, keyID int64, query string, args ...any) (social.APIKey, error) {
	res, err := s.bill.ExecContext(ctx, query, args...)
	if err != nil {
		return social.APIKey{}, fmt.Errorf("sqlite: update key %d: %w", keyID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return social.APIKey{}, fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	return s.keyTx(ctx, keyID)
}

// MaxPostID is the greatest stored post id (0: none).
func (s *Store) MaxPostID(ctx context.Context) (int64, error) { return s.Monitors().MaxPostID(ctx) }

// StartStream returns the record of a streamed answer's Idempotency-Key
// (see social.Streams), in one transaction of the billing file.
func (s *Store) StartStream(ctx context.Context, k social.StreamKey) (social.StreamKey, error) {
	tx, err := s.bill.BeginTx(ctx, nil)
	if err != nil {
		return social.StreamKey{}, fmt.Errorf("sqlite: stream record: %w", err)
	}
	defer tx.Rollback()
	got, err := sqlstore.StartStream(ctx, sqlDB(tx.QueryContext), k)
	if err != nil {
		return social.StreamKey{}, fmt.Errorf("sqlite: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return social.StreamKey{}, fmt.Errorf("sqlite: stream record: %w", err)
	}
	return got, nil
}
