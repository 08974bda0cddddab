package sqlite

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Export streams every stored value to fn in batches (see sqlstore.Batches).
// Accounts are exported by Keys and ExportLedger. It is the source side of
// copying a database.
func (s *Store) Export(ctx context.Context, fn func(*social.Batch) error) error {
	return sqlstore.Batches(ctx, sqlDB(s.read.QueryContext), fn)
}

// ExportLedger streams every ledger row, by id, to fn in chunks.
func (s *Store) ExportLedger(ctx context.Context, fn func([]social.LedgerEntry) error) error {
	return sqlstore.Ledger(ctx, sqlDB(s.read.QueryContext), fn)
}

// RestoreAccounts stores keys and ledger rows verbatim, ids included, in one
// transaction; a row whose id (or key digest) is already stored is left
// as it is, so restoring twice changes nothing.
func (s *Store) RestoreAccounts(ctx context.Context, keys []social.APIKey, ledger []social.LedgerEntry) error {
	tx, err := s.bill.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: restore accounts: %w", err)
	}
	defer tx.Rollback()
	for _, k := range keys {
		var revoked any
		if k.RevokedAt != nil {
			revoked = sqlstore.Micros(*k.RevokedAt)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO api_keys (id, name, prefix, digest, balance, rate_limit,
			fault, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Name, k.Prefix, k.Digest[:],
			k.Balance, k.RateLimit, k.Fault, sqlstore.Micros(k.CreatedAt), revoked); err != nil {
			return fmt.Errorf("sqlite: restore key %d: %w", k.ID, err)
		}
	}
	for _, e := range ledger {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO ledger (id, key_id, kind, request_id, endpoint, items,
			amount, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.KeyID, e.Kind, e.RequestID,
			e.Endpoint, e.Items, e.Amount, e.BalanceAfter, sqlstore.Micros(e.CreatedAt)); err != nil {
			return fmt.Errorf("sqlite: restore ledger row %d: %w", e.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: restore accounts: %w", err)
	}
	return nil
}

// ExportUpstream streams the gateway's upstream ledger to fn by id, in
// chunks, and returns what was spent under each budget period.
func (s *Store) ExportUpstream(ctx context.Context, fn func([]ledger.Entry) error) (map[string]int64, error) {
	return s.Gateway().ExportUpstream(ctx, fn)
}

// RestoreUpstream stores upstream ledger rows with their ids and the
// spending of budget periods, leaving those already stored as they are.
func (s *Store) RestoreUpstream(ctx context.Context, rows []ledger.Entry, spent map[string]int64) error {
	return s.Gateway().Restore(ctx, rows, spent)
}
