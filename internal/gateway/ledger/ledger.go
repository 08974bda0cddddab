// Package ledger is what the gateway (roost serve --upstream) keeps in the
// database: the pages it fetched upstream (its page cache), the
// append-only ledger of what it asked upstream, and the budgets that hold
// its upstream spending. The engines store them; package gateway uses
// them. It stands apart from package gateway, which imports the API the
// engines' tests serve.
package ledger

import (
	"errors"
	"time"
)

// Page is a page fetched upstream.
type Page struct {
	Body      []byte
	Items     int
	FetchedAt time.Time
}

// Entry is one row of the append-only upstream ledger.
type Entry struct {
	ID        int64 // set when read back
	RequestID string
	KeyID     int64
	Endpoint  string
	CacheHit  bool
	Status    int
	Micros    int64 // what upstream billed for this request
	At        time.Time
}

// Budget is one limit of upstream spending: Period is "total" or
// "day:YYYY-MM-DD", Limit is in micro-USD.
type Budget struct {
	Period string
	Limit  int64
}

// ErrBudgetSpent is returned by a reservation that a budget does not
// cover.
var ErrBudgetSpent = errors.New("the shared upstream budget is spent")
