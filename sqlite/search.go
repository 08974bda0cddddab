package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"roost/search"
	"roost/social"
)

// Search runs a parsed query (see social.Reader): the query is compiled
// into one SQL statement with every value bound as a parameter and every
// full-text term quoted (search_compile.go), driven as search_plan.go
// chooses.
func (s *Store) Search(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	st, err := s.searchStatement(ctx, q, order, p)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	if st.empty {
		return social.Page[social.Post]{Items: []social.Post{}}, nil
	}
	if st.buckets != nil {
		return s.topBuckets(ctx, st.buckets, p)
	}
	return s.searchPage(ctx, p.Limit, st.sql, st.args...)
}

// statement is a search compiled for one page.
type statement struct {
	sql    string
	args   []any
	driver string // the driver chosen, for tests and EXPLAIN
	empty  bool   // nothing can match: no statement to run
	// buckets, when set, is a Top page found bucket by bucket
	// (search_top.go) instead of by sql.
	buckets *plan
}

// searchStatement compiles and plans a search for one page.
func (s *Store) searchStatement(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (statement, error) {
	if q == nil || p.Limit <= 0 {
		return statement{}, fmt.Errorf("sqlite: search: a query and a positive page limit are required: %w", social.ErrInvalid)
	}
	c := &compiler{s: s, ctx: ctx}
	pl, err := c.plan(q)
	if err != nil {
		return statement{}, err
	}
	if order == social.Top {
		return s.topStatement(ctx, pl, p)
	}
	if p.After != nil {
		pl.hi = min(pl.hi, p.After.ID-1)
	}
	if pl.never || pl.hi <= pl.lo {
		return statement{empty: true}, nil
	}
	d := scanAccess
	if len(pl.drivers) == 1 && !pl.drivers[0].sorted {
		d = pl.drivers[0]
	} else if len(pl.drivers) > 0 {
		var n int64
		if d, n, err = s.smallest(ctx, pl, pl.drivers, estimateCap); err != nil {
			return statement{}, err
		}
		if d.sorted && n >= estimateCap {
			// Every driver is common: one in id order stops early.
			d = scanAccess
			for _, x := range pl.drivers {
				if !x.sorted {
					d = x
					break
				}
			}
		}
	}
	sqlText, args := selectFrom(d, pl, "p.id, p.id")
	sqlText += " ORDER BY " + d.key + " DESC LIMIT ?"
	return statement{sql: sqlText, args: append(args, p.Limit+1), driver: d.name}, nil
}

// selectFrom is the SELECT of a search page through driver d, up to the
// end of its WHERE clause; keys are the two key columns to select.
func selectFrom(d access, pl plan, keys string) (string, []any) {
	var args []any
	sqlText := "SELECT " + postColumns + ", " + keys + " FROM " + d.from + " WHERE " + d.cond.sql
	args = append(args, d.cond.args...)
	sqlText += " AND " + d.key + " > ? AND " + d.key + " <= ? AND " + pl.where.sql
	args = append(args, pl.lo, pl.hi)
	args = append(args, pl.where.args...)
	return sqlText, args
}

// smallest counts the rows of each candidate driver, up to limit each, and
// returns the driver with the fewest and its count (limit meaning "at
// least limit").
func (s *Store) smallest(ctx context.Context, pl plan, cands []access, limit int) (access, int64, error) {
	best, bestN := cands[0], int64(limit)+1
	for _, d := range cands {
		q := "SELECT count(*) FROM (SELECT 1 FROM " + d.est + " WHERE " + d.cond.sql +
			" AND " + d.ekey + " > ? AND " + d.ekey + " <= ? LIMIT ?)"
		args := append(append([]any{}, d.cond.args...), pl.lo, pl.hi, limit)
		var n int64
		if err := s.read.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			return best, 0, fmt.Errorf("sqlite: search: estimate %s: %w", d.name, err)
		}
		if n < bestN {
			best, bestN = d, n
		}
		if n < estimateStop {
			break
		}
	}
	return best, min(bestN, int64(limit)), nil
}

// searchPage runs a compiled search. Compiled statements vary with the
// query, so they are not kept in the statement cache.
func (s *Store) searchPage(ctx context.Context, limit int, query string, args ...any) (social.Page[social.Post], error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return social.Page[social.Post]{}, fmt.Errorf("sqlite: search: %w", err)
	}
	return collectPage(rows, limit, func(r *sql.Rows, k *social.Key) (social.Post, error) {
		return scanPost(r, &k.Sort, &k.ID)
	})
}
