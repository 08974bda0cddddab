package sqlstore

import (
	"context"
	"fmt"

	"roost/social"
)

// KeyColumns are the columns of an API key that ScanKey reads.
const KeyColumns = `id, name, prefix, digest, balance, rate_limit, created_at, revoked_at`

// ScanKey reads a row of KeyColumns.
func ScanKey(row Rows) (social.APIKey, error) {
	var k social.APIKey
	var digest []byte
	var created int64
	var revoked *int64
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &digest, &k.Balance, &k.RateLimit, &created, &revoked); err != nil {
		return k, fmt.Errorf("scan api key: %w", err)
	}
	copy(k.Digest[:], digest)
	k.CreatedAt = FromMicros(created)
	if revoked != nil {
		t := FromMicros(*revoked)
		k.RevokedAt = &t
	}
	return k, nil
}

// LedgerColumns are the columns of a ledger row that ScanLedgerEntry reads,
// the same on both engines.
const LedgerColumns = `id, key_id, kind, request_id, endpoint, items, amount, balance_after, created_at`

// ScanLedgerEntry reads a row of LedgerColumns.
func ScanLedgerEntry(r Rows) (social.LedgerEntry, error) {
	var l social.LedgerEntry
	var t int64
	err := r.Scan(&l.ID, &l.KeyID, &l.Kind, &l.RequestID, &l.Endpoint, &l.Items, &l.Amount, &l.BalanceAfter, &t)
	l.CreatedAt = FromMicros(t)
	return l, err
}

// KeyByDigest finds a key by the SHA-256 digest of the key.
func (r Reader) KeyByDigest(ctx context.Context, digest [32]byte) (social.APIKey, error) {
	return one(ctx, r.DB, "api key", `SELECT `+KeyColumns+` FROM api_keys WHERE digest = ?`, []any{digest[:]}, ScanKey)
}

// Key finds a key by id.
func (r Reader) Key(ctx context.Context, id int64) (social.APIKey, error) {
	return one(ctx, r.DB, "api key", `SELECT `+KeyColumns+` FROM api_keys WHERE id = ?`, []any{id}, ScanKey)
}

// Keys lists every key, oldest first.
func (r Reader) Keys(ctx context.Context) ([]social.APIKey, error) {
	return all(ctx, r.DB, `SELECT `+KeyColumns+` FROM api_keys ORDER BY id`, nil, ScanKey)
}

// Ledger lists a key's ledger rows in order.
func (r Reader) Ledger(ctx context.Context, keyID int64) ([]social.LedgerEntry, error) {
	return all(ctx, r.DB, `SELECT `+LedgerColumns+` FROM ledger WHERE key_id = ? ORDER BY id`, []any{keyID}, ScanLedgerEntry)
}
