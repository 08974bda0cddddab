package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
)

// Gateway is the gateway's storage (roost serve --upstream), a
// gateway.Store: the page cache, the upstream ledger and the shared
// upstream budget, on tables of migration 0020, and when each post and
// user was fetched (gateway_fetched). Read runs queries that only read,
// Write the others.
type Gateway struct {
	// Read reads; Write writes the upstream ledger and budget; Pages
	// writes the page cache and gateway_fetched (Write when nil: SQLite
	// keeps the ledger in a file of its own).
	Read, Write, Pages DB
	// Data reads the stored posts and users where the gateway's writes
	// are seen at once (PostgreSQL: the primary, not a replica).
	Data Reader
	// Later, when set, takes the ledger row of a cache hit (no upstream
	// cost) to write in the engine's next write transaction — the debit of
	// the request it answers — rather than in a commit of its own; false
	// leaves it to LogUpstream.
	Later func(ledger.Entry) bool
	// Flush writes the rows Later holds; the ledger's readers call it
	// first.
	Flush func(context.Context) error
}

// pages is the writer of the page cache.
func (g Gateway) pages() DB {
	if g.Pages != nil {
		return g.Pages
	}
	return g.Write
}

// Page returns the cached page under key; found is false when none is.
func (g Gateway) Page(ctx context.Context, key string) (p ledger.Page, found bool, err error) {
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
		return ledger.Page{}, false, fmt.Errorf("cached page: %w", err)
	}
	return p, found, nil
}

// PutPage stores (or replaces) the page under key.
func (g Gateway) PutPage(ctx context.Context, key, route string, p ledger.Page) error {
	err := g.pages().Query(ctx, `INSERT INTO gateway_pages (key, route, body, items, fetched_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET route = excluded.route, body = excluded.body, items = excluded.items,
		fetched_at = excluded.fetched_at`,
		[]any{key, route, p.Body, int64(p.Items), p.FetchedAt.UnixMicro()}, func(Rows) error { return nil })
	if err != nil {
		return fmt.Errorf("store cached page: %w", err)
	}
	return nil
}

// UpstreamInsert appends one row to the upstream ledger; UpstreamArgs are
// its values.
const UpstreamInsert = `INSERT INTO upstream_ledger (request_id, key_id, endpoint, cache_hit, status,
	upstream_micro_usd, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// UpstreamArgs are the values of e for UpstreamInsert.
func UpstreamArgs(e ledger.Entry) []any {
	return []any{e.RequestID, e.KeyID, e.Endpoint, e.CacheHit, int64(e.Status), e.Micros, e.At.UnixMicro()}
}

// LogUpstream appends e to the upstream ledger (a cache hit through Later
// when it is set).
func (g Gateway) LogUpstream(ctx context.Context, e ledger.Entry) error {
	if e.CacheHit && e.Micros == 0 && g.Later != nil && g.Later(e) {
		return nil
	}
	err := g.Write.Query(ctx, UpstreamInsert, UpstreamArgs(e), func(Rows) error { return nil })
	if err != nil {
		return fmt.Errorf("upstream ledger: %w", err)
	}
	return nil
}

// UpstreamLedger returns the ledger, oldest first.
func (g Gateway) UpstreamLedger(ctx context.Context) ([]ledger.Entry, error) {
	var out []ledger.Entry
	err := g.ExportLedger(ctx, func(rows []ledger.Entry) error { out = append(out, rows...); return nil })
	return out, err
}

// ledgerChunk is how many upstream ledger rows a read or a restore takes
// at once.
const ledgerChunk = 500

// ExportLedger streams the upstream ledger to fn by id, in chunks.
func (g Gateway) ExportLedger(ctx context.Context, fn func([]ledger.Entry) error) error {
	if g.Flush != nil {
		if err := g.Flush(ctx); err != nil {
			return fmt.Errorf("upstream ledger: %w", err)
		}
	}
	for after := int64(0); ; {
		rows, err := all(ctx, g.Read, `SELECT id, request_id, key_id, endpoint, cache_hit, status, upstream_micro_usd,
			created_at FROM upstream_ledger WHERE id > ? ORDER BY id LIMIT ?`, []any{after, ledgerChunk},
			func(r Rows) (ledger.Entry, error) {
				var e ledger.Entry
				var status, at int64
				err := r.Scan(&e.ID, &e.RequestID, &e.KeyID, &e.Endpoint, &e.CacheHit, &status, &e.Micros, &at)
				e.Status, e.At = int(status), time.UnixMicro(at)
				return e, err
			})
		if err != nil {
			return fmt.Errorf("upstream ledger: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		if err := fn(rows); err != nil {
			return err
		}
		after = rows[len(rows)-1].ID
	}
}

// BudgetSpent is what was spent under each budget period.
func (g Gateway) BudgetSpent(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := g.Read.Query(ctx, `SELECT period, spent FROM upstream_budget`, nil, func(r Rows) error {
		var p string
		var n int64
		err := r.Scan(&p, &n)
		out[p] = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("upstream budget: %w", err)
	}
	return out, nil
}

// Restore stores upstream ledger rows with their ids and the spending of
// budget periods (with nothing reserved); rows and periods already stored
// are left as they are, so restoring twice changes nothing.
func (g Gateway) Restore(ctx context.Context, rows []ledger.Entry, spent map[string]int64) error {
	for len(rows) > 0 {
		n := min(len(rows), ledgerChunk)
		args := make([]any, 0, 8*n)
		for _, e := range rows[:n] {
			args = append(args, e.ID, e.RequestID, e.KeyID, e.Endpoint, e.CacheHit, int64(e.Status), e.Micros, e.At.UnixMicro())
		}
		rows = rows[n:]
		err := g.Write.Query(ctx, `INSERT INTO upstream_ledger (id, request_id, key_id, endpoint, cache_hit, status,
			upstream_micro_usd, created_at) VALUES `+strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?),", n), ",")+`
			ON CONFLICT (id) DO NOTHING`, args, func(Rows) error { return nil })
		if err != nil {
			return fmt.Errorf("restore upstream ledger: %w", err)
		}
	}
	for period, n := range spent {
		err := g.Write.Query(ctx, `INSERT INTO upstream_budget (period, spent, reserved) VALUES (?, ?, 0)
			ON CONFLICT (period) DO NOTHING`, []any{period, n}, func(Rows) error { return nil })
		if err != nil {
			return fmt.Errorf("restore upstream budget %s: %w", period, err)
		}
	}
	return nil
}

// Reserve sets cost aside under every budget for the upstream call hold
// (an id no other call uses), one row of upstream_holds a budget, each
// taken atomically in the database only if the budget covers it (a
// trigger of migration 0033), so that no number of processes can reserve
// past a limit. When one budget refuses, the ones already taken are
// released and the error is ErrBudgetSpent.
func (g Gateway) Reserve(ctx context.Context, hold string, budgets []ledger.Budget, cost int64, now time.Time) error {
	for i, b := range budgets {
		var err error
		if cost <= b.Limit {
			err = g.Write.Query(ctx, `INSERT INTO upstream_holds (hold, period, micros, limit_micros, created_at)
				VALUES (?, ?, ?, ?, ?)`, []any{hold, b.Period, cost, b.Limit, now.UnixMicro()}, func(Rows) error { return nil })
		}
		if cost > b.Limit || err != nil && strings.Contains(err.Error(), "upstream budget spent") {
			err = fmt.Errorf("%s (limit %d micro-USD): %w", b.Period, b.Limit, ledger.ErrBudgetSpent)
		} else if err != nil {
			err = fmt.Errorf("reserve upstream budget %s: %w", b.Period, err)
		}
		if err != nil {
			if i > 0 {
				err = errors.Join(err, g.drop(ctx, hold))
			}
			return err
		}
	}
	return nil
}

// Settle releases the reservation of hold and counts spent under every
// budget. A reservation already reclaimed (the call outlived
// ReclaimHolds' bound) has spent counted all the same.
//
// No statement here locks more than one budget row: each hold row is
// dropped on its own, in the order of budgets, so two calls settling at
// once (or settling beside a Reserve or a ReclaimHolds on another
// replica) never wait on each other in a cycle. A statement that locked
// two budget rows in heap order could deadlock with another taking them
// the other way round, and PostgreSQL would cancel one, leaving its
// reservation held until ReclaimHolds.
func (g Gateway) Settle(ctx context.Context, hold string, budgets []ledger.Budget, spent int64) error {
	if len(budgets) == 0 { // nothing was reserved
		return nil
	}
	// Recording spent on the rows first means a crash between the drops
	// below leaves it to ReclaimHolds, which counts it.
	held := map[string]bool{}
	err := g.Write.Query(ctx, `UPDATE upstream_holds SET spent = ? WHERE hold = ? RETURNING period`, []any{spent, hold},
		func(r Rows) error {
			var p string
			err := r.Scan(&p)
			held[p] = true
			return err
		})
	if err != nil {
		return fmt.Errorf("settle upstream budget: %w", err)
	}
	for _, b := range budgets {
		if held[b.Period] {
			// Dropping the row counts its spent (the trigger of migration 0033).
			if err := g.dropOne(ctx, hold, b.Period); err != nil {
				return err
			}
			continue
		}
		if spent == 0 {
			continue
		}
		err := g.Write.Query(ctx, `UPDATE upstream_budget SET spent = spent + ? WHERE period = ?`, []any{spent, b.Period},
			func(Rows) error { return nil })
		if err != nil {
			return fmt.Errorf("settle upstream budget %s: %w", b.Period, err)
		}
	}
	return nil
}

// ReclaimHolds releases every reservation taken before before: a call
// cut short by a crash never settles its own. What such a call cost
// upstream is not known and not counted (unless it was recorded before
// the crash). It returns how many calls' reservations were released and
// how much they held. Rows are dropped one at a time, as Settle drops
// them, so replicas reclaiming at once never deadlock.
func (g Gateway) ReclaimHolds(ctx context.Context, before time.Time) (calls int, micros int64, err error) {
	type row struct {
		hold, period string
		micros       int64
	}
	old, err := all(ctx, g.Write, `SELECT hold, period, micros FROM upstream_holds WHERE created_at < ? ORDER BY hold, period`,
		[]any{before.UnixMicro()}, func(r Rows) (row, error) {
			var x row
			return x, r.Scan(&x.hold, &x.period, &x.micros)
		})
	if err != nil {
		return 0, 0, fmt.Errorf("reclaim upstream budget: %w", err)
	}
	holds := map[string]bool{}
	for _, x := range old {
		var n int
		err := g.Write.Query(ctx, `DELETE FROM upstream_holds WHERE hold = ? AND period = ? RETURNING 1`,
			[]any{x.hold, x.period}, func(Rows) error { n++; return nil })
		if err != nil {
			return 0, 0, fmt.Errorf("reclaim upstream budget: %w", err)
		}
		if n > 0 { // not settled or reclaimed by another meanwhile
			holds[x.hold], micros = true, micros+x.micros
		}
	}
	return len(holds), micros, nil
}

// drop deletes the rows of hold, one at a time, which releases them.
func (g Gateway) drop(ctx context.Context, hold string) error {
	periods, err := all(ctx, g.Write, `SELECT period FROM upstream_holds WHERE hold = ? ORDER BY period`, []any{hold},
		func(r Rows) (p string, err error) { return p, r.Scan(&p) })
	if err != nil {
		return fmt.Errorf("release upstream budget: %w", err)
	}
	for _, p := range periods {
		if err := g.dropOne(ctx, hold, p); err != nil {
			return err
		}
	}
	return nil
}

// dropOne deletes the row of hold under period, which releases it and
// counts its spent: one statement, one budget row locked.
func (g Gateway) dropOne(ctx context.Context, hold, period string) error {
	err := g.Write.Query(ctx, `DELETE FROM upstream_holds WHERE hold = ? AND period = ?`, []any{hold, period},
		func(Rows) error { return nil })
	if err != nil {
		return fmt.Errorf("release upstream budget %s: %w", period, err)
	}
	return nil
}

// PrunePages deletes the cached pages fetched before before and returns
// how many.
func (g Gateway) PrunePages(ctx context.Context, before time.Time) (int64, error) {
	n, err := g.prune(ctx, "gateway_pages", before)
	if err != nil {
		return 0, fmt.Errorf("prune cached pages: %w", err)
	}
	return n, nil
}

// prune deletes the rows of table (gateway_pages or gateway_fetched)
// fetched before before and returns how many.
func (g Gateway) prune(ctx context.Context, table string, before time.Time) (int64, error) {
	var n int64
	err := g.pages().Query(ctx, `DELETE FROM `+table+` WHERE fetched_at < ? RETURNING 1`, []any{before.UnixMicro()},
		func(Rows) error { n++; return nil })
	return n, err
}

// fetchedChunk is how many rows one statement of MarkFetched writes.
const fetchedChunk = 500

// MarkFetched records when posts and users were stored from upstream, one
// row an entity replacing the one before. Rows are written in (kind, id)
// order, each once, so that two replicas marking at once never deadlock.
func (g Gateway) MarkFetched(ctx context.Context, marks []ledger.Fetched) error {
	type key struct {
		kind string
		id   int64
	}
	last := make(map[key]int, len(marks))
	rows := make([]ledger.Fetched, 0, len(marks))
	for _, m := range marks {
		k := key{m.Kind, m.ID}
		if i, ok := last[k]; ok {
			rows[i] = m // the later mark of one entity wins
			continue
		}
		last[k] = len(rows)
		rows = append(rows, m)
	}
	slices.SortFunc(rows, func(a, b ledger.Fetched) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	for len(rows) > 0 {
		n := min(len(rows), fetchedChunk)
		args := make([]any, 0, 5*n)
		for _, m := range rows[:n] {
			args = append(args, m.Kind, m.ID, m.At.UnixMicro(), int64(m.Shape), int64(m.Pinned))
		}
		rows = rows[n:]
		err := g.pages().Query(ctx, `INSERT INTO gateway_fetched (kind, id, fetched_at, shape, pinned) VALUES `+
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?),", n), ",")+`
			ON CONFLICT (kind, id) DO UPDATE SET fetched_at = excluded.fetched_at, shape = excluded.shape,
			pinned = excluded.pinned`, args, func(Rows) error { return nil })
		if err != nil {
			return fmt.Errorf("mark fetched: %w", err)
		}
	}
	return nil
}

// Fetched returns the marks of the posts (kind ledger.KindPost) or users
// (ledger.KindUser) among ids, by id.
func (g Gateway) Fetched(ctx context.Context, kind string, ids []int64) (map[int64]ledger.Fetched, error) {
	if kind != ledger.KindPost && kind != ledger.KindUser {
		return nil, fmt.Errorf("fetched: unknown kind %q", kind)
	}
	// kind is one of the two constants: it is written into the text, so
	// that in() can chunk the ids.
	rows, err := in(ctx, g.Read, `SELECT id, fetched_at, shape, pinned FROM gateway_fetched WHERE kind = '`+kind+
		`' AND id IN (%s)`, anys(ids), func(r Rows) (ledger.Fetched, error) {
		m := ledger.Fetched{Kind: kind}
		var at, shape, pinned int64
		err := r.Scan(&m.ID, &at, &shape, &pinned)
		m.At, m.Shape, m.Pinned = time.UnixMicro(at), ledger.Shape(shape), ledger.Pinned(pinned)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("fetched %ss: %w", kind, err)
	}
	out := make(map[int64]ledger.Fetched, len(rows))
	for _, m := range rows {
		out[m.ID] = m
	}
	return out, nil
}

// PruneFetched deletes the marks older than before and returns how many.
func (g Gateway) PruneFetched(ctx context.Context, before time.Time) (int64, error) {
	n, err := g.prune(ctx, "gateway_fetched", before)
	if err != nil {
		return 0, fmt.Errorf("prune fetched marks: %w", err)
	}
	return n, nil
}

// Spent is what was spent and is reserved under period.
func (g Gateway) Spent(ctx context.Context, period string) (spent, reserved int64, err error) {
	err = g.Read.Query(ctx, `SELECT spent, reserved FROM upstream_budget WHERE period = ?`, []any{period},
		func(r Rows) error { return r.Scan(&spent, &reserved) })
	return spent, reserved, err
}

// ExportUpstream streams the upstream ledger to fn (see ExportLedger) and
// then returns what was spent under each budget period: the source side
// of copying a gateway's accounts of upstream.
func (g Gateway) ExportUpstream(ctx context.Context, fn func([]ledger.Entry) error) (map[string]int64, error) {
	if err := g.ExportLedger(ctx, fn); err != nil {
		return nil, err
	}
	return g.BudgetSpent(ctx)
}
