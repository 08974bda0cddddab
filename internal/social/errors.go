package social

import "errors"

// Sentinel errors shared by every store; callers test them with errors.Is.
// Engines map their driver errors onto these, so that the HTTP layer can map
// each to one status in one place.
var (
	// ErrNotFound: the addressed entity does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInsufficientBalance: a debit was refused because the balance does
	// not cover it. Nothing was charged.
	ErrInsufficientBalance = errors.New("insufficient balance")
	// ErrInvalid: the caller's input was rejected; the wrapping error says why.
	ErrInvalid = errors.New("invalid input")
	// ErrConflict: a unique value (a key digest, say) already exists.
	ErrConflict = errors.New("conflict")
	// ErrUnavailable: the database could not be reached, or could not do
	// the work now (a connection lost or refused, the server shutting
	// down, a standby where the primary was needed, a lock held past its
	// wait). Nothing was changed; the same request may succeed later.
	ErrUnavailable = errors.New("store unavailable")
)
