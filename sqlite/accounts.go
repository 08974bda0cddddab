package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"roost/export"
	"roost/social"
)

const keyColumns = `id, name, prefix, digest, balance, rate_limit, created_at, revoked_at`

func scanKey(row interface{ Scan(...any) error }) (social.APIKey, error) {
	var k social.APIKey
	var digest []byte
	var created int64
	var revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &digest, &k.Balance, &k.RateLimit, &created, &revoked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return k, fmt.Errorf("api key: %w", social.ErrNotFound)
		}
		return k, fmt.Errorf("sqlite: api key: %w", err)
	}
	copy(k.Digest[:], digest)
	k.CreatedAt = social.FromMicros(created)
	if revoked.Valid {
		t := social.FromMicros(revoked.Int64)
		k.RevokedAt = &t
	}
	return k, nil
}

// CreateKey stores a new key with its opening credit.
func (s *Store) CreateKey(ctx context.Context, k social.APIKey, credit int64) (social.APIKey, error) {
	if credit < 0 {
		return k, fmt.Errorf("opening credit %d: %w", credit, social.ErrInvalid)
	}
	tx, err := s.write.BeginTx(ctx, nil)
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
	res, err := tx.ExecContext(ctx, `INSERT INTO api_keys (name, prefix, digest, balance, rate_limit, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, k.Name, k.Prefix, k.Digest[:], credit, k.RateLimit, now.UnixMicro())
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

// KeyByDigest finds a key by the SHA-256 digest of the key.
func (s *Store) KeyByDigest(ctx context.Context, digest [32]byte) (social.APIKey, error) {
	st, err := s.stmt(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE digest = ?`)
	if err != nil {
		return social.APIKey{}, err
	}
	return scanKey(st.QueryRowContext(ctx, digest[:]))
}

// Key finds a key by id.
func (s *Store) Key(ctx context.Context, id int64) (social.APIKey, error) {
	st, err := s.stmt(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`)
	if err != nil {
		return social.APIKey{}, err
	}
	return scanKey(st.QueryRowContext(ctx, id))
}

// Keys lists every key, oldest first.
func (s *Store) Keys(ctx context.Context) ([]social.APIKey, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	out, err := appendRows(nil, rows, func(r scanner) (social.APIKey, error) { return scanKey(r) })
	if err != nil {
		return nil, fmt.Errorf("sqlite: keys: %w", err)
	}
	return out, nil
}

// TopUp adds credit to a key, with its ledger row.
func (s *Store) TopUp(ctx context.Context, keyID int64, amount int64) (social.APIKey, error) {
	if amount <= 0 {
		return social.APIKey{}, fmt.Errorf("top-up amount %d: %w", amount, social.ErrInvalid)
	}
	tx, err := s.write.BeginTx(ctx, nil)
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

// keyTx reads a key through the write connection (it sees its own commits
// at once).
func (s *Store) keyTx(ctx context.Context, id int64) (social.APIKey, error) {
	return scanKey(s.write.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = ?`, id))
}

// Revoke marks a key revoked.
func (s *Store) Revoke(ctx context.Context, keyID int64) error {
	res, err := s.write.ExecContext(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`,
		time.Now().UnixMicro(), keyID)
	if err != nil {
		return fmt.Errorf("sqlite: revoke: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("api key %d: %w", keyID, social.ErrNotFound)
	}
	return nil
}

// Debit charges a key if its balance covers the amount (see
// social.Accounts). Concurrent debits are committed together.
func (s *Store) Debit(ctx context.Context, d social.Debit) (int64, error) {
	if d.Amount <= 0 {
		return 0, fmt.Errorf("debit amount %d: %w", d.Amount, social.ErrInvalid)
	}
	return s.debits.submit(ctx, d)
}

// Ledger lists a key's ledger rows in order.
func (s *Store) Ledger(ctx context.Context, keyID int64) ([]social.LedgerEntry, error) {
	rows, err := s.write.QueryContext(ctx, `SELECT `+export.LedgerColumns+` FROM ledger WHERE key_id = ? ORDER BY id`, keyID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: ledger: %w", err)
	}
	out, err := appendRows(nil, rows, func(r scanner) (social.LedgerEntry, error) { return export.ScanLedgerEntry(r) })
	if err != nil {
		return nil, fmt.Errorf("sqlite: ledger: %w", err)
	}
	return out, nil
}
