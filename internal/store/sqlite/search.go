package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Search runs a parsed query (see social.Reader): the query is compiled
// into one SQL statement with every value bound as a parameter and every
// full-text term quoted (search_compile.go), driven as search_plan.go
// chooses.
func (s *Store) Search(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	page, err := s.search(ctx, q, order, p)
	return page, unavailable(err)
}

// search is Search, its errors as the driver gave them.
func (s *Store) search(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	st, err := s.searchStatement(ctx, q, order, p)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	if st.empty {
		return social.Page[social.Post]{Items: []social.Post{}}, nil
	}
	if st.buckets != nil {
		return s.topBuckets(ctx, st.buckets, st.bucketDriver, p)
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
	// bucketDriver, with buckets, is a driver that finds a bucket's rows
	// by seeking, which topBuckets may sort bucket by bucket.
	bucketDriver *access
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
	var filters []access
	if len(pl.drivers) == 0 {
		// The walk by score floor reads the posts the scan would, in the
		// same order, but the rows only of those that may match.
		if w, ok, err := s.floorWalk(ctx, pl, false); err != nil {
			return statement{}, err
		} else if ok {
			d = w
		}
	} else if len(pl.drivers) == 1 && !pl.drivers[0].sorted {
		d = pl.drivers[0]
	} else {
		limit := cmp.Or(s.estimateCap, estimateCap)
		c, err := s.smallestAt(ctx, pl, pl.drivers, limit)
		if err != nil {
			return statement{}, err
		}
		d = pl.drivers[c.best]
		if c.n[c.best] >= int64(limit) {
			if d, filters, err = s.commonDriver(ctx, pl, p.Limit); err != nil {
				return statement{}, err
			}
		} else if filters, err = s.narrowing(ctx, &pl, pl.drivers, c); err != nil {
			return statement{}, err
		}
	}
	if d.sorted {
		sqlText, args := sortedSelect(d, pl, filters...)
		return statement{sql: sqlText, args: append(args, p.Limit+1), driver: planName(d.name+"+sort", filters)}, nil
	}
	sqlText, args := selectFrom(d, pl, "p.id, p.id", filters...)
	sqlText += " ORDER BY " + d.key + " DESC LIMIT ?"
	return statement{sql: sqlText, args: append(args, p.Limit+1), driver: planName(d.name, filters)}, nil
}

// planName names a plan for tests and EXPLAIN: the driver's way, then
// each filter's name after "&".
func planName(driver string, filters []access) string {
	for _, x := range filters {
		driver += "&" + x.name
	}
	return driver
}

// sortedSelect is the Latest page through a driver not in id order: its
// ids alone are read from its index and sorted, newest first, and posts
// rows are read in that order only until the page is full. MATERIALIZED
// keeps SQLite from reading every candidate's row before sorting. Each
// filter's ids (in range) must hold a candidate before it is kept, as in
// selectFrom: a rare conjunction of two drivers reads the posts of their
// intersection only.
func sortedSelect(d access, pl plan, filters ...access) (string, []any) {
	args := append([]any{}, d.cond.Args...)
	args = append(args, pl.lo, pl.hi)
	cands := "SELECT " + d.ekey + " AS id FROM " + d.est + " WHERE " + d.cond.SQL +
		" AND " + d.ekey + " > ? AND " + d.ekey + " <= ?"
	cands, args = withFilters(cands, args, d.ekey, pl.lo, pl.hi, filters)
	args = append(args, pl.where.Args...)
	return "WITH c AS MATERIALIZED (" + cands + " ORDER BY 1 DESC) SELECT " + sqlstore.PostColumns +
		", c.id, c.id FROM c CROSS JOIN posts p ON p.id = c.id WHERE " + pl.where.SQL +
		" ORDER BY c.id DESC LIMIT ?", args
}

// commonDriver chooses the Latest driver when every driver counted at
// least estimateCap rows. The one with the fewest rows, if it has fewer
// than sortedCap, bounds the cost when the query's matches are rare among
// the rows of every driver: one in id order is taken; one that is not is
// read whole and sorted, which pays only when its rows are too sparse for
// a walk in id order to meet limit+1 of them soon (sparse). Otherwise the
// first driver in id order (or the scan) is taken, which stops after
// limit+1 matches, unless the query sets a least engagement: then the walk
// by score floor (floorWalk) reads only the posts that may reach it. The
// other drivers of fewer than sortedCap rows are returned as filters: the
// page requires their ids before it reads a post (selectFrom), so a rare
// conjunction of common drivers costs index reads, not post reads.
func (s *Store) commonDriver(ctx context.Context, pl plan, limit int) (access, []access, error) {
	counts := make([]int64, len(pl.drivers))
	best := -1
	for i, x := range pl.drivers {
		n, err := countIn(ctx, s.read, x, pl.lo, pl.hi, sortedCap)
		if err != nil {
			return access{}, nil, err
		}
		counts[i] = n
		if n < sortedCap && (best < 0 || n < counts[best]) {
			best = i
		}
	}
	di := -1
	if best >= 0 && !pl.drivers[best].sorted {
		di = best
	} else if best >= 0 {
		ok, err := s.sparse(ctx, pl, pl.drivers[best], counts[best], limit)
		if err != nil {
			return access{}, nil, err
		}
		if ok {
			di = best
		}
	}
	if di < 0 {
		if w, ok, err := s.floorWalk(ctx, pl, true); err != nil || ok {
			return w, nil, err
		}
		di = slices.IndexFunc(pl.drivers, func(x access) bool { return !x.sorted })
	}
	d := scanAccess
	if di >= 0 {
		d = pl.drivers[di]
	}
	var filters []access
	for i, x := range pl.drivers {
		if i != di && counts[i] < sortedCap {
			filters = append(filters, x)
		}
	}
	return d, filters, nil
}

// densityProbe is how many of the newest posts in range sparse looks at.
const densityProbe = 2000

// sparse reports whether sorting the n rows of driver d (not in id order)
// costs less than walking posts newest first until limit+1 of them are
// d's: with m of d's rows among the newest densityProbe posts in range,
// the walk reads about limit·densityProbe/m posts, and sorting costs
// about a third of a post read per row.
func (s *Store) sparse(ctx context.Context, pl plan, d access, n int64, limit int) (bool, error) {
	m, err := s.newest(ctx, pl, d)
	if err != nil {
		return false, err
	}
	return n*m < 3*int64(limit+1)*densityProbe, nil
}

// newest counts driver d's rows among the newest densityProbe posts in
// pl's range.
func (s *Store) newest(ctx context.Context, pl plan, d access) (int64, error) {
	var floor int64
	err := s.read.QueryRowContext(ctx, `SELECT coalesce((SELECT id FROM posts WHERE id > ? AND id <= ?
		ORDER BY id DESC LIMIT 1 OFFSET ?), ?)`, pl.lo, pl.hi, densityProbe-1, pl.lo).Scan(&floor)
	if err != nil {
		return 0, fmt.Errorf("sqlite: search: density of %s: %w", d.name, err)
	}
	_, m, err := s.smallest(ctx, plan{lo: max(pl.lo, floor-1), hi: pl.hi}, []access{d}, densityProbe)
	return m, err
}

// selectFrom is the SELECT of a search page through driver d, up to the
// end of its WHERE clause; keys are the two key columns to select. Each
// filter's ids (in range) must hold the driver's key, tested on the key
// before the post's row is read.
func selectFrom(d access, pl plan, keys string, filters ...access) (string, []any) {
	var args []any
	sqlText := "SELECT " + sqlstore.PostColumns + ", " + keys + " FROM " + d.from + " WHERE " + d.cond.SQL
	args = append(args, d.cond.Args...)
	sqlText += " AND " + d.key + " > ? AND " + d.key + " <= ?"
	args = append(args, pl.lo, pl.hi)
	sqlText, args = withFilters(sqlText, args, d.key, pl.lo, pl.hi, filters)
	sqlText += " AND " + pl.where.SQL
	args = append(args, pl.where.Args...)
	return sqlText, args
}

// withFilters appends to a WHERE clause (and its arguments) the test that
// key is among each filter's ids in (lo, hi], checked before the post's
// row is read. "+" keeps the test a filter: as a constraint on the
// driver's key it would replace the ordered walk by lookups of every id.
func withFilters(where string, args []any, key string, lo, hi int64, filters []access) (string, []any) {
	for _, x := range filters {
		where += " AND +" + key + " IN (SELECT " + x.ekey + " FROM " + x.est + " WHERE " + x.cond.SQL +
			" AND " + x.ekey + " > ? AND " + x.ekey + " <= ?)"
		args = append(append(args, x.cond.Args...), lo, hi)
	}
	return where, args
}

// smallest counts the rows of each candidate driver, up to limit each, and
// returns the driver with the fewest and its count (limit meaning "at
// least limit").
func (s *Store) smallest(ctx context.Context, pl plan, cands []access, limit int) (access, int64, error) {
	c, err := s.smallestAt(ctx, pl, cands, limit)
	if err != nil {
		return cands[c.best], 0, err
	}
	return cands[c.best], c.n[c.best], nil
}

// driverCounts are the counts smallestAt read: each candidate's rows in
// range up to limit (-1: not counted), and the index of the fewest.
type driverCounts struct {
	n     []int64
	limit int
	best  int
}

// smallestAt is smallest, returning every count it read.
func (s *Store) smallestAt(ctx context.Context, pl plan, cands []access, limit int) (driverCounts, error) {
	c := driverCounts{n: make([]int64, len(cands)), limit: limit}
	for i := range c.n {
		c.n[i] = -1
	}
	for i, d := range cands {
		n, err := s.count(ctx, s.read, &pl, d, pl.lo, pl.hi, limit)
		if err != nil {
			return c, err
		}
		c.n[i] = n
		if i > 0 && n < c.n[c.best] {
			c.best = i
		}
		if n < estimateStop {
			break
		}
	}
	return c, nil
}

// filterRatio bounds the drivers that narrow another (narrowing): fewer
// rows than filterRatio times the driver's. A row of a narrowing driver
// costs an index entry (about 0.5 µs on the reference machine), a post
// read with the cache just emptied by a commit about 20 µs: narrowing
// saves most when the other condition is rare among the driver's rows,
// and when it is common (the walk would have stopped after limit+1 rows)
// it costs at most filterRatio index entries a driver row.
const filterRatio = 10

// narrowing returns the drivers of cands, but the driver (cands[c.best],
// of n = c.n[c.best] rows) and the id range, that have fewer than
// filterRatio·n rows in range (and fewer than sortedCap): the page then
// requires a candidate's id among each one's ids before it reads the
// candidate's post, as commonDriver's filters do. Reading such a driver's ids whole costs an
// index entry a row, while a condition the driver's candidates rarely meet
// costs a posts row for each of them: on 1M posts, min_faves:100 with a
// word of 1,860 posts read them all (41 ms with the cache empty) to keep
// 9; the 6,507 ids of posts_faves as a filter took it to 4.7 ms, and
// roost bench's search p99 from 10.4-11.1 ms to 8.3-9.1 (Latest) and
// 20.1-20.9 to 16.1-17.1 (Top). A driver of fewer than estimateStop rows
// is read as it is. A driver's count from c is used when it decides
// (below c.limit, or a bound no higher than c.limit); only the others are
// counted again, up to the bound.
func (s *Store) narrowing(ctx context.Context, pl *plan, cands []access, c driverCounts) ([]access, error) {
	n := c.n[c.best]
	if n < estimateStop {
		return nil, nil
	}
	limit := min(filterRatio*n, sortedCap)
	var out []access
	for i, x := range cands {
		if i == c.best || x.name == rangeAccess.name {
			continue
		}
		m := c.n[i]
		if m < 0 || (m >= int64(c.limit) && limit > int64(c.limit)) {
			var err error
			if m, err = s.count(ctx, s.read, pl, x, pl.lo, pl.hi, int(limit)); err != nil {
				return nil, err
			}
		}
		if m < limit {
			out = append(out, x)
		}
	}
	return out, nil
}

// rowQuerier is a *sql.DB or a *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countIn counts driver d's rows with ids in (lo, hi], up to limit, from
// its count clause (which may count a row more than once).
func countIn(ctx context.Context, q rowQuerier, d access, lo, hi int64, limit int) (int64, error) {
	from := cmp.Or(d.cnt, d.est)
	sqlText := "SELECT count(*) FROM (SELECT 1 FROM " + from + " WHERE " + d.cond.SQL +
		" AND " + d.ekey + " > ? AND " + d.ekey + " <= ? LIMIT ?)"
	args := append(append([]any{}, d.cond.Args...), lo, hi, limit)
	var n int64
	if err := q.QueryRowContext(ctx, sqlText, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: search: count %s: %w", d.name, err)
	}
	return n, nil
}

// searchPage runs a compiled search through the statement cache: a
// query's pages share one text (the cursor is a parameter), and the cache
// is bounded (maxReadStmts) however many shapes of queries come.
func (s *Store) searchPage(ctx context.Context, limit int, query string, args ...any) (social.Page[social.Post], error) {
	page, err := sqlstore.PostPage(ctx, sqlDB(s.query), limit, query, args)
	if err != nil {
		return page, fmt.Errorf("sqlite: search: %w", err)
	}
	return page, nil
}
