package social

import (
	"context"
	"time"
)

// APIKey is an API key's account. The key itself is never stored: only the
// SHA-256 digest of it and a short prefix for people to recognise it.
type APIKey struct {
	ID        int64
	Name      string
	Prefix    string   // the first characters of the key, e.g. "roost_AbCd"
	Digest    [32]byte // SHA-256 of the whole key
	Balance   int64    // micro-USD
	RateLimit int      // requests per minute; 0 = the server default
	CreatedAt time.Time
	RevokedAt *time.Time
}

// Ledger entry kinds.
const (
	LedgerCredit = "credit" // money granted (creation, top-up)
	LedgerDebit  = "debit"  // a paid response
)

// LedgerEntry is one append-only ledger row. For credits Amount is
// positive; for debits it is the positive amount taken.
type LedgerEntry struct {
	ID           int64
	KeyID        int64
	Kind         string
	RequestID    string
	Endpoint     string
	Items        int
	Amount       int64 // micro-USD
	BalanceAfter int64 // micro-USD
	CreatedAt    time.Time
}

// Debit is one charge for a response.
type Debit struct {
	KeyID     int64
	RequestID string
	Endpoint  string
	Items     int
	Amount    int64 // micro-USD, > 0
}

// Accounts holds API keys, balances and the ledger. Every balance change is
// one ledger row written in the same transaction, so that at all times
// balance = sum(credits) − sum(debits).
type Accounts interface {
	// CreateKey stores a new key with an opening credit (a ledger row when
	// credit > 0). The digest must be unique (ErrConflict).
	CreateKey(ctx context.Context, k APIKey, credit int64) (APIKey, error)
	// KeyByDigest finds a key by its digest, revoked or not.
	KeyByDigest(ctx context.Context, digest [32]byte) (APIKey, error)
	// Key finds a key by id.
	Key(ctx context.Context, id int64) (APIKey, error)
	// Keys lists every key, oldest first.
	Keys(ctx context.Context) ([]APIKey, error)
	// TopUp adds credit (> 0) to a key and returns it updated.
	TopUp(ctx context.Context, keyID int64, amount int64) (APIKey, error)
	// Revoke marks a key revoked; it stays in the ledger.
	Revoke(ctx context.Context, keyID int64) error
	// Debit takes d.Amount from the key if and only if the balance covers
	// it, atomically with its ledger row, and returns the balance after.
	// When it does not: ErrInsufficientBalance and nothing changes. A
	// non-empty d.RequestID is charged at most once per key: a second
	// debit of it is ErrConflict and changes nothing.
	Debit(ctx context.Context, d Debit) (int64, error)
	// Ledger lists a key's ledger rows in order.
	Ledger(ctx context.Context, keyID int64) ([]LedgerEntry, error)
}
