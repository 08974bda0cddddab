package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Export streams every stored value to fn in batches (see sqlstore.Batches).
// Accounts are exported by Keys and ExportLedger. It is the source side of
// copying a database.
func (s *Store) Export(ctx context.Context, fn func(*social.Batch) error) error {
	return sqlstore.Batches(ctx, s.Reader.DB, fn)
}

// ExportLedger streams every ledger row, by id, to fn in chunks.
func (s *Store) ExportLedger(ctx context.Context, fn func([]social.LedgerEntry) error) error {
	return sqlstore.Ledger(ctx, s.Reader.DB, fn)
}

// RestoreAccounts stores keys and ledger rows verbatim, ids included, in one
// transaction; a row whose id (or key digest) is already stored is left as
// it is, so restoring twice changes nothing. The id sequences are moved past
// the restored ids.
func (s *Store) RestoreAccounts(ctx context.Context, keys []social.APIKey, ledger []social.LedgerEntry) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for _, k := range keys {
			var revoked *int64
			if k.RevokedAt != nil {
				r := sqlstore.Micros(*k.RevokedAt)
				revoked = &r
			}
			b.Queue(`INSERT INTO api_keys (id, name, prefix, digest, balance, rate_limit, fault, created_at,
				revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`, k.ID, k.Name, k.Prefix,
				k.Digest[:], k.Balance, k.RateLimit, k.Fault, sqlstore.Micros(k.CreatedAt), revoked)
		}
		for _, e := range ledger {
			b.Queue(`INSERT INTO ledger (id, key_id, kind, request_id, endpoint, items, amount, balance_after, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`, e.ID, e.KeyID, e.Kind, e.RequestID,
				e.Endpoint, e.Items, e.Amount, e.BalanceAfter, sqlstore.Micros(e.CreatedAt))
		}
		for _, t := range []string{"api_keys", "ledger"} {
			b.Queue(`SELECT setval(pg_get_serial_sequence('` + t + `', 'id'), coalesce(max(id), 0) + 1, false) FROM ` + t)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("postgres: restore accounts: %w", err)
		}
		return nil
	})
}

// ExportUpstream streams the gateway's upstream ledger to fn by id, in
// chunks, and returns what was spent under each budget period.
func (s *Store) ExportUpstream(ctx context.Context, fn func([]ledger.Entry) error) (map[string]int64, error) {
	return s.Gateway().ExportUpstream(ctx, fn)
}

// RestoreUpstream stores upstream ledger rows with their ids and the
// spending of budget periods, leaving those already stored as they are,
// and moves the ledger's id sequence past the restored ids.
func (s *Store) RestoreUpstream(ctx context.Context, rows []ledger.Entry, spent map[string]int64) error {
	if err := s.Gateway().Restore(ctx, rows, spent); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('upstream_ledger', 'id'),
		coalesce(max(id), 0) + 1, false) FROM upstream_ledger`); err != nil {
		return fmt.Errorf("postgres: restore upstream ledger: %w", err)
	}
	return nil
}
