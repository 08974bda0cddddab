package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Gateway is the gateway's storage (roost serve --upstream): the page
// cache, the upstream ledger and the shared upstream budget, on tables of
// migration 0020. Read runs queries that only read, Write the others.
type Gateway struct {
	Read, Write DB
}

// CachedPage is a page fetched upstream.
type CachedPage struct {
	Body      []byte
	Items     int
	FetchedAt time.Time
}

// UpstreamEntry is one row of the append-only upstream ledger.
type UpstreamEntry struct {
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

// ErrBudgetSpent is returned by Reserve when a budget does not cover the
// reservation.
var ErrBudgetSpent = errors.New("the shared upstream budget is spent")

// Page returns the cached page under key; found is false when none is.
func (g Gateway) Page(ctx context.Context, key string) (p CachedPage, found bool, err error) {
	err = g.Read.Query(ctx, `SELECT body, items, fetched_at FROM gateway_pages WHERE key = ?`, []any{key},
		func(r Rows) error {
			var at int64
			if err := r.Scan(&p.Body, &p.Items, &at); err != nil {
				return err
			}
			p.FetchedAt, found = time.UnixMicro(at), true
			return nil
		})
	if err != nil {
		return CachedPage{}, false, fmt.Errorf("cached page: %w", err)
	}
	return p, found, nil
}

// PutPage stores (or replaces) the page under key.
func (g Gateway) PutPage(ctx context.Context, key, route string, p CachedPage) error {
	err := g.Write.Query(ctx, `INSERT INTO gateway_pages (key, route, body, items, fetched_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET route = excluded.route, body = excluded.body, items = excluded.items,
		fetched_at = excluded.fetched_at`,
		[]any{key, route, p.Body, int64(p.Items), p.FetchedAt.UnixMicro()}, func(Rows) error { return nil })
	if err != nil {
		return fmt.Errorf("store cached page: %w", err)
	}
	return nil
}

// LogUpstream appends e to the upstream ledger.
func (g Gateway) LogUpstream(ctx context.Context, e UpstreamEntry) error {
	err := g.Write.Query(ctx, `INSERT INTO upstream_ledger (request_id, key_id, endpoint, cache_hit, status,
		upstream_micro_usd, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		[]any{e.RequestID, e.KeyID, e.Endpoint, e.CacheHit, int64(e.Status), e.Micros, e.At.UnixMicro()},
		func(Rows) error { return nil })
	if err != nil {
		return fmt.Errorf("upstream ledger: %w", err)
	}
	return nil
}

// UpstreamLedger returns the ledger, oldest first.
func (g Gateway) UpstreamLedger(ctx context.Context) ([]UpstreamEntry, error) {
	return all(ctx, g.Read, `SELECT request_id, key_id, endpoint, cache_hit, status, upstream_micro_usd, created_at
		FROM upstream_ledger ORDER BY id`, nil, func(r Rows) (UpstreamEntry, error) {
		var e UpstreamEntry
		var status, at int64
		err := r.Scan(&e.RequestID, &e.KeyID, &e.Endpoint, &e.CacheHit, &status, &e.Micros, &at)
		e.Status, e.At = int(status), time.UnixMicro(at)
		return e, err
	})
}

// Reserve sets cost aside under every budget, each atomically in the
// database (a conditional upsert), so that no number of processes can
// reserve past a limit. When one budget refuses, the ones already taken
// are released and the error is ErrBudgetSpent.
func (g Gateway) Reserve(ctx context.Context, budgets []Budget, cost int64) error {
	for i, b := range budgets {
		ok := false
		if cost <= b.Limit {
			err := g.Write.Query(ctx, `INSERT INTO upstream_budget (period, spent, reserved) VALUES (?, 0, ?)
				ON CONFLICT (period) DO UPDATE SET reserved = upstream_budget.reserved + excluded.reserved
				WHERE upstream_budget.spent + upstream_budget.reserved + excluded.reserved <= ?
				RETURNING reserved`, []any{b.Period, cost, b.Limit}, func(Rows) error { ok = true; return nil })
			if err != nil {
				g.release(ctx, budgets[:i], cost, 0)
				return fmt.Errorf("reserve upstream budget %s: %w", b.Period, err)
			}
		}
		if !ok {
			g.release(ctx, budgets[:i], cost, 0)
			return fmt.Errorf("%s (%s): %w", b.Period, "limit "+fmt.Sprint(b.Limit)+" micro-USD", ErrBudgetSpent)
		}
	}
	return nil
}

// Settle turns a reservation of reserved into a spend of spent under
// every budget.
func (g Gateway) Settle(ctx context.Context, budgets []Budget, reserved, spent int64) error {
	return g.release(ctx, budgets, reserved, spent)
}

func (g Gateway) release(ctx context.Context, budgets []Budget, reserved, spent int64) error {
	var first error
	for _, b := range budgets {
		err := g.Write.Query(ctx, `UPDATE upstream_budget SET reserved = reserved - ?, spent = spent + ? WHERE period = ?`,
			[]any{reserved, spent, b.Period}, func(Rows) error { return nil })
		if err != nil && first == nil {
			first = fmt.Errorf("settle upstream budget %s: %w", b.Period, err)
		}
	}
	return first
}

// Spent is what was spent and is reserved under period.
func (g Gateway) Spent(ctx context.Context, period string) (spent, reserved int64, err error) {
	err = g.Read.Query(ctx, `SELECT spent, reserved FROM upstream_budget WHERE period = ?`, []any{period},
		func(r Rows) error { return r.Scan(&spent, &reserved) })
	return spent, reserved, err
}
