package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// KeyColumns are the columns of an API key that ScanKey reads.
const KeyColumns = `id, name, prefix, digest, balance, rate_limit, fault, created_at, revoked_at`

// ScanKey reads a row of KeyColumns.
func ScanKey(row Rows) (social.APIKey, error) {
	var k social.APIKey
	var digest []byte
	var created int64
	var revoked *int64
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &digest, &k.Balance, &k.RateLimit, &k.Fault, &created, &revoked); err != nil {
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

// LedgerPage lists a key's ledger rows by f, oldest first (see
// social.AccountAdmin).
func (r Reader) LedgerPage(ctx context.Context, f social.LedgerFilter) (social.Page[social.LedgerEntry], error) {
	q := `SELECT ` + LedgerColumns + ` FROM ledger WHERE key_id = ? AND id > ?`
	args := []any{f.KeyID, f.AfterID}
	q, args = timeAndEndpoint(q, args, f.Since, f.Until, f.Endpoint)
	limit := max(f.Limit, 1)
	pg := NewPager[social.LedgerEntry](limit)
	err := r.DB.Query(ctx, q+` ORDER BY id LIMIT ?`, append(args, limit+1), func(row Rows) error {
		l, err := ScanLedgerEntry(row)
		if err != nil {
			return fmt.Errorf("scan ledger: %w", err)
		}
		pg.Add(l, social.Key{Sort: l.ID, ID: l.ID})
		return nil
	})
	return pg.Page(), err
}

// microsPerDay is one UTC day in the stored unit of times.
const microsPerDay = 86_400_000_000

// Usage adds up debits by key, endpoint and UTC day (see
// social.AccountAdmin).
func (r Reader) Usage(ctx context.Context, f social.UsageFilter) ([]social.Usage, error) {
	q := `SELECT key_id, endpoint, created_at / ` + fmt.Sprint(microsPerDay) + ` AS day, count(*), sum(items), sum(amount)
		FROM ledger WHERE kind = 'debit'`
	var args []any
	if f.KeyID != 0 {
		q += ` AND key_id = ?`
		args = append(args, f.KeyID)
	}
	q, args = timeAndEndpoint(q, args, f.Since, f.Until, f.Endpoint)
	q += ` GROUP BY key_id, endpoint, day ORDER BY key_id, endpoint, day`
	return all(ctx, r.DB, q, args, func(row Rows) (social.Usage, error) {
		var u social.Usage
		var day int64
		if err := row.Scan(&u.KeyID, &u.Endpoint, &day, &u.Requests, &u.Items, &u.Amount); err != nil {
			return u, fmt.Errorf("scan usage: %w", err)
		}
		u.Day = FromMicros(day * microsPerDay)
		if day == 0 {
			u.Day = time.Unix(0, 0).UTC()
		}
		return u, nil
	})
}

// timeAndEndpoint adds the bounds of a ledger filter to a query.
func timeAndEndpoint(q string, args []any, since, until time.Time, endpoint string) (string, []any) {
	if !since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, Micros(since))
	}
	if !until.IsZero() {
		q += ` AND created_at < ?`
		args = append(args, Micros(until))
	}
	if endpoint != "" {
		q += ` AND endpoint = ?`
		args = append(args, endpoint)
	}
	return q, args
}

// Replay returns the response kept for a key's Idempotency-Key since a
// time (see social.Replays).
func (r Reader) Replay(ctx context.Context, keyID int64, idemKey string, since time.Time) (social.StoredResponse, error) {
	return one(ctx, r.DB, "idempotent response", `SELECT key_id, idem_key, fingerprint, body, created_at,
		bound IS NOT NULL FROM idempotency_keys WHERE key_id = ? AND idem_key = ? AND created_at >= ?`,
		[]any{keyID, idemKey, Micros(since)}, func(row Rows) (social.StoredResponse, error) {
			var s social.StoredResponse
			var t int64
			if err := row.Scan(&s.KeyID, &s.Key, &s.Fingerprint, &s.Body, &t, &s.Stream); err != nil {
				return s, fmt.Errorf("scan idempotent response: %w", err)
			}
			s.CreatedAt = FromMicros(t)
			return s, nil
		})
}

// StartStream returns the record of a streamed answer's Idempotency-Key,
// storing k when the key holds none younger than social.IdempotencyWindow
// (see social.Streams). It runs three statements: the caller gives a db
// of one transaction. Expired rows of every key go first.
func StartStream(ctx context.Context, db DB, k social.StreamKey) (social.StreamKey, error) {
	cutoff := Micros(k.CreatedAt.Add(-social.IdempotencyWindow))
	if err := exec(ctx, db, `DELETE FROM idempotency_keys WHERE created_at < ?`, cutoff); err != nil {
		return k, fmt.Errorf("expire idempotency keys: %w", err)
	}
	if err := exec(ctx, db, `INSERT INTO idempotency_keys (key_id, idem_key, fingerprint, body, created_at, bound)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key_id, idem_key) DO NOTHING`,
		k.KeyID, k.Key, k.Fingerprint, []byte{}, Micros(k.CreatedAt), k.Bound); err != nil {
		return k, fmt.Errorf("stream record: %w", err)
	}
	got, err := one(ctx, db, "stream record", `SELECT fingerprint, bound, paid_through, items, created_at
		FROM idempotency_keys WHERE key_id = ? AND idem_key = ?`, []any{k.KeyID, k.Key},
		func(row Rows) (social.StreamKey, error) {
			got := social.StreamKey{KeyID: k.KeyID, Key: k.Key}
			var bound *int64
			var t int64
			if err := row.Scan(&got.Fingerprint, &bound, &got.PaidThrough, &got.Items, &t); err != nil {
				return got, fmt.Errorf("scan stream record: %w", err)
			}
			if bound == nil || got.Fingerprint != k.Fingerprint {
				return got, fmt.Errorf("key %d: Idempotency-Key %q holds another request's answer: %w",
					k.KeyID, k.Key, social.ErrConflict)
			}
			got.Bound, got.CreatedAt = *bound, FromMicros(t)
			return got, nil
		})
	if err != nil {
		return social.StreamKey{}, err
	}
	return got, nil
}

// StreamMoved is the refusal of a debit whose stream record does not hold
// its d.Stream.From: a concurrent try moved it (or it is gone).
func StreamMoved(d social.Debit) error {
	return fmt.Errorf("key %d: Idempotency-Key %q: the stream's record is not at %d: %w",
		d.KeyID, d.Stream.Key, d.Stream.From, social.ErrConflict)
}
