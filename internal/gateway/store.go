package gateway

import (
	"context"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
)

// Store keeps the gateway's page cache, upstream ledger, budgets and
// fetched marks in the database, shared by every replica.
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
	// MarkFetched records when posts and users were stored from upstream
	// and what their page carried of them, replacing earlier marks.
	MarkFetched(ctx context.Context, marks []ledger.Fetched) error
	// Fetched returns the marks of the posts (ledger.KindPost) or users
	// (ledger.KindUser) among ids, by id.
	Fetched(ctx context.Context, kind string, ids []int64) (map[int64]ledger.Fetched, error)
	// PruneFetched deletes the marks older than before and returns how
	// many.
	PruneFetched(ctx context.Context, before time.Time) (int64, error)
}

// Entities reads stored posts and users by id or screen name (the reads
// social.Reader has for them): where the gateway's writes are seen at
// once.
type Entities interface {
	social.EntityReader
	UsersByScreenNames(ctx context.Context, names []string) ([]social.User, error)
}
