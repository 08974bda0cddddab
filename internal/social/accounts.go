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
	// Fault is the key's sandbox plan (package fault's text): the share
	// of its requests answered 429 or 500, an added delay, search cursor
	// pages; "" injects nothing.
	Fault     string
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
	// Response, when set, is the paid response kept under its client's
	// Idempotency-Key in the same transaction as the debit, so that a
	// retry is answered from it without a second charge.
	Response *StoredResponse
	// Stream, when set, advances the record of a streamed answer's
	// Idempotency-Key in the same transaction as the debit (see
	// StreamProgress).
	Stream *StreamProgress
}

// StreamProgress is what a debit of a streamed answer does to the record
// of its Idempotency-Key (StreamKey): a compare-and-set of PaidThrough
// from From to To, adding the debit's items to Items. When the record of
// the key and fingerprint does not hold From (a concurrent try moved it,
// or there is none), the debit is ErrConflict and nothing changes.
type StreamProgress struct {
	Key         string // the client's Idempotency-Key
	Fingerprint string
	From, To    int64
}

// IdempotencyWindow is how long a paid response is kept for retries
// carrying the same Idempotency-Key.
const IdempotencyWindow = 24 * time.Hour

// StoredResponse is a paid response kept for retries: the key's own
// Idempotency-Key, a digest of the request it answered, and the body.
type StoredResponse struct {
	KeyID       int64
	Key         string // the client's Idempotency-Key
	Fingerprint string // digest of method, path, query and body
	Body        []byte
	// CreatedAt is when the response was made; the window of its key
	// (and of the expired responses a debit removes) counts from it.
	CreatedAt time.Time
	// Stream: the key holds a streamed answer's record (StreamKey), not a
	// body.
	Stream bool
}

// StreamKey is the record of a streamed answer (an export, a network)
// sent with an Idempotency-Key, kept beside the kept responses (one
// Idempotency-Key is one or the other) for IdempotencyWindow from its
// first try. Bound fixes the answer's posts: those with an id up to it.
// PaidThrough is the greatest post id charged so far, in the answer's id
// order (for a network, Bound once it is paid), and Items the items
// charged under the key so far.
type StreamKey struct {
	KeyID       int64
	Key         string // the client's Idempotency-Key
	Fingerprint string // digest of method, path, query and body
	Bound       int64
	PaidThrough int64
	Items       int64
	CreatedAt   time.Time
}

// Streams keeps the records of streamed answers.
type Streams interface {
	// MaxPostID is the greatest stored post id (0: none): the bound of a
	// new record.
	MaxPostID(ctx context.Context) (int64, error)
	// StartStream returns the record kept under k's key and Idempotency-Key
	// if it is younger than IdempotencyWindow (counted back from
	// k.CreatedAt), else stores k with nothing paid and returns it. A key
	// that holds another request's record, or a kept response, is
	// ErrConflict.
	StartStream(ctx context.Context, k StreamKey) (StreamKey, error)
}

// LedgerFilter selects a key's ledger rows for one page: rows created in
// [Since, Until) (zero: unbounded) of one endpoint (empty: any), after the
// row AfterID (0: from the first), at most Limit rows, oldest first.
type LedgerFilter struct {
	KeyID        int64
	Since, Until time.Time
	Endpoint     string
	AfterID      int64
	Limit        int
}

// UsageFilter selects the debits that Usage adds up: of one key (0: every
// key), created in [Since, Until) (zero: unbounded), of one endpoint
// (empty: any).
type UsageFilter struct {
	KeyID        int64
	Since, Until time.Time
	Endpoint     string
}

// Usage is what one key spent on one endpoint in one UTC day.
type Usage struct {
	KeyID    int64
	Endpoint string
	Day      time.Time // UTC midnight
	Requests int64     // paid responses
	Items    int64
	Amount   int64 // micro-USD
}

// AccountAdmin is what an operator does to keys beyond Accounts: change a
// key's rate limit, give it a new secret, and read its ledger and usage.
type AccountAdmin interface {
	// SetRateLimit sets a key's requests per minute (0: the server's
	// default) and returns it updated.
	SetRateLimit(ctx context.Context, keyID int64, perMinute int) (APIKey, error)
	// SetFault stores a key's fault plan as given (the caller checks it;
	// "": none) and returns the key updated.
	SetFault(ctx context.Context, keyID int64, plan string) (APIKey, error)
	// RotateKey replaces a key's digest and prefix (a new secret for the
	// same account: balance, limit and ledger stay); the old secret stops
	// working at once. The digest must be unique (ErrConflict).
	RotateKey(ctx context.Context, keyID int64, digest [32]byte, prefix string) (APIKey, error)
	// LedgerPage lists a key's ledger rows by f, oldest first; Next is set
	// while more follow (its ID is the last row's id).
	LedgerPage(ctx context.Context, f LedgerFilter) (Page[LedgerEntry], error)
	// Usage adds up debits by key, endpoint and UTC day, in that order.
	Usage(ctx context.Context, f UsageFilter) ([]Usage, error)
}

// Replays finds the paid responses kept for Idempotency-Key retries.
type Replays interface {
	// Replay returns the response kept for the key's Idempotency-Key if it
	// was stored at or after since; else ErrNotFound.
	Replay(ctx context.Context, keyID int64, idemKey string, since time.Time) (StoredResponse, error)
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

// Versions are counters that move, in the same transaction, with every
// change of their kind: Content with every data write, Keys with every
// change of a key but a debit, Deletions with every write that deletes
// posts or users. What was read under a version is current while the
// counter has not moved. Content is negative when the store's reads may
// lag its counter (read replicas): then nothing read may be kept.
type Versions struct {
	Content, Keys, Deletions int64
}

// Versioned is a store that keeps Versions.
type Versioned interface {
	Versions(ctx context.Context) (Versions, error)
}
