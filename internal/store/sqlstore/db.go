// Package sqlstore is the SQL that both engines share: the column lists and
// scanners of every stored kind, the paged readers of the API, the keyset
// loop, the whole-database export and the storage encodings (times, flags,
// snowflake bounds, score floors) and the search conditions but text
// matching (search.go). Queries are written once, with ? placeholders; an
// engine gives a DB that runs them (numbering the placeholders where it
// must) and a Dialect for the few fragments that differ. Text matching,
// search planning, bulk paths and writes stay in the engines.
package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// Rows is a row of a result set, as both engines' drivers give it.
type Rows interface {
	Scan(dest ...any) error
}

// DB runs the shared SQL on one engine.
type DB interface {
	// Query runs query (with ? placeholders) and calls each for every row,
	// in order. It wraps the engine's errors with its name.
	Query(ctx context.Context, query string, args []any, each func(Rows) error) error
}

// Dialect holds the fragments of SQL that differ between the engines.
type Dialect struct {
	// Fold returns an expression of a text column that equals a lower-cased
	// value through the engine's case-insensitive index on it.
	Fold func(column string) string
	// VersionsSQL, when set, replaces the package's VersionsSQL (SQLite
	// reads the 'keys' counter from its billing file).
	VersionsSQL string
}

// Placeholders is "?,?,…" with n marks.
func Placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// MaxInt64 is the start of a descending keyset walk.
const MaxInt64 = int64(^uint64(0) >> 1)

// After returns the keyset bound of a request: the key to continue after,
// or a start value that lies beyond every real key.
func After(p social.PageReq, start int64) (int64, int64) {
	if p.After == nil {
		return start, start
	}
	return p.After.Sort, p.After.ID
}

// Limit is the page size a request asks for, never negative.
func Limit(p social.PageReq) int { return max(p.Limit, 0) }

// Pager collects a page of at most limit items from rows that hold limit+1
// at most: a row beyond limit means a next page exists, starting after the
// last item kept.
type Pager[T any] struct {
	limit int
	page  social.Page[T]
	last  social.Key
}

// NewPager starts a page of at most limit items.
func NewPager[T any](limit int) *Pager[T] {
	limit = max(limit, 0)
	return &Pager[T]{limit: limit, page: social.Page[T]{Items: make([]T, 0, limit)}}
}

// Add takes the next row's item and its key; it reports false once the
// page is complete (a further row only proves that more follow).
func (p *Pager[T]) Add(item T, k social.Key) bool {
	if len(p.page.Items) == p.limit {
		if p.page.Next == nil {
			last := p.last
			p.page.Next = &last
		}
		return false
	}
	p.page.Items = append(p.page.Items, item)
	p.last = k
	return true
}

// Page is what was collected.
func (p *Pager[T]) Page() social.Page[T] { return p.page }

// errPageFull stops a query once its caller has every row it needs (a
// complete page, or the one row of a lookup).
var errPageFull = errors.New("page full")

// page runs a keyset query whose rows end with the key columns (sort, id)
// and that fetches limit+1 rows, and makes a page of at most limit items.
func page[T any](ctx context.Context, db DB, limit int, query string, args []any,
	scan func(Rows, *social.Key) (T, error)) (social.Page[T], error) {
	pg := NewPager[T](limit)
	err := db.Query(ctx, query, args, func(r Rows) error {
		var k social.Key
		item, err := scan(r, &k)
		if err != nil {
			return err
		}
		if !pg.Add(item, k) {
			return errPageFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return social.Page[T]{}, err
	}
	return pg.Page(), nil
}

// all runs query and returns what scan makes of every row.
func all[T any](ctx context.Context, db DB, query string, args []any, scan func(Rows) (T, error)) ([]T, error) {
	var out []T
	err := db.Query(ctx, query, args, func(r Rows) error {
		v, err := scan(r)
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// one runs query and returns what scan makes of its first row; no row is
// social.ErrNotFound naming what.
func one[T any](ctx context.Context, db DB, what, query string, args []any, scan func(Rows) (T, error)) (T, error) {
	var v T
	found := false
	err := db.Query(ctx, query, args, func(r Rows) error {
		var err error
		v, err = scan(r)
		found = true
		if err != nil {
			return err
		}
		return errPageFull
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return v, err
	}
	if !found {
		return v, fmt.Errorf("%s: %w", what, social.ErrNotFound)
	}
	return v, nil
}

// inChunk is how many values one IN (…) list holds; statement texts vary
// only with the count, so statement caches stay small.
const inChunk = 200

// in selects the rows whose expr is among args, in chunks; query holds
// one %s where the placeholders go.
func in[T any](ctx context.Context, db DB, query string, args []any, scan func(Rows) (T, error)) ([]T, error) {
	var out []T
	for len(args) > 0 {
		n := min(inChunk, len(args))
		part, err := all(ctx, db, fmt.Sprintf(query, Placeholders(n)), args[:n], scan)
		if err != nil {
			return nil, err
		}
		out = append(out, part...)
		args = args[n:]
	}
	return out, nil
}
