package gateway

import (
	"context"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
)

// Store keeps the gateway's page cache, upstream ledger and budgets in the
// database, shared by every replica.
type Store interface {
	// Page returns the cached page under key; found is false when none is.
	Page(ctx context.Context, key string) (p ledger.Page, found bool, err error)
	// PutPage stores (or replaces) the page under key.
	PutPage(ctx context.Context, key, route string, p ledger.Page) error
	// PrunePages deletes the cached pages fetched before before and
	// returns how many.
	PrunePages(ctx context.Context, before time.Time) (int64, error)
	// LogUpstream appends e to the upstream ledger.
	LogUpstream(ctx context.Context, e ledger.Entry) error
	// Reserve sets cost aside under every budget for the upstream call
	// hold (an id no other call uses), atomically per budget across
	// processes; ledger.ErrBudgetSpent when one does not cover it (none
	// is then held).
	Reserve(ctx context.Context, hold string, budgets []ledger.Budget, cost int64, now time.Time) error
	// Settle releases the reservation of hold and counts spent under
	// every budget.
	Settle(ctx context.Context, hold string, budgets []ledger.Budget, spent int64) error
	// ReclaimHolds releases every reservation taken before before (calls
	// a crash cut short) and returns how many calls' and how much.
	ReclaimHolds(ctx context.Context, before time.Time) (calls int, micros int64, err error)
}
