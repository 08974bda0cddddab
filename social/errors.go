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
)
