package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Top pages are keyed by (score, id) descending. The score grows by one
// million a week of recency (social.Score), so a plain scan by score walks
// every post newer than the posts a query can match before it reaches
// them. Posts are therefore indexed by score within buckets of ids
// (posts_bucket_score: id >> bucketShift, score): for snowflake ids a
// bucket is a span of 2^29 ms, about six days, and only the buckets of the
// query's id range are read, however wide the range and wherever it lies
// in time.
//
// A page is found in rounds over score windows, first the topWindow below
// the best score in range, then ever wider ones (doubling): each round
// collects every match of its window from every bucket that reaches it,
// so the page is complete as soon as a round ends with limit+1 matches (no
// unseen match can score higher), having read only posts that score above
// the page's last match or at most one window below it.
//
// Ids that are not snowflakes (small imported ids) share one bucket, which
// then behaves as a plain scan by score.
const bucketShift = 51

// topWindow is the first score window of a Top page: one doubling of
// engagement, or one week of recency (social.Score).
const topWindow = 1_000_000

// bucketDriverCap is the most candidates of a driver in the best bucket for
// which a Top page sorts the driver's candidates bucket by bucket
// (driverPage); a denser driver is left to the score windows, which read
// few posts when matches are common.
const bucketDriverCap = 3000

// windowRowCost is what a post read by score in a bucket costs, in
// driver candidates sorted there: a candidate sorted costs an index entry
// (and a post read only when it scores at least the page's k-th), a post
// read by score its row and the whole query's test. Measured at 10M
// posts: about 0.75 µs a candidate and 3.3 µs a post.
const windowRowCost = 4

// minScore is below every score.
const minScore = -sqlstore.MaxInt64 - 1

// bucketExpr is the indexed expression of posts_bucket_score (migration
// 0004); a query must spell it the same way for SQLite to use the index.
var bucketExpr = "(p.id >> " + strconv.Itoa(bucketShift) + ")"

// topStatement plans a Top page. With a driver of fewer than topSetCap
// rows, or an id range of fewer, the candidates are sorted by score through
// the covering index posts_id_score and checked in that order, so that
// posts rows are read only until the page is full; otherwise the page is
// found bucket by bucket (topBuckets).
func (s *Store) topStatement(ctx context.Context, pl plan, p social.PageReq) (statement, error) {
	if pl.never || pl.hi <= pl.lo {
		return statement{empty: true}, nil
	}
	sc, id := sqlstore.After(p, sqlstore.MaxInt64)
	cands := pl.drivers
	if pl.lo > 0 || pl.hi < sqlstore.MaxInt64 {
		cands = append(cands, rangeAccess)
	}
	limit := cmp.Or(s.topSetCap, topSetCap)
	d, n := scanAccess, int64(limit)
	var filters []access
	if len(cands) > 0 {
		v, err := s.Versions(ctx) // the counters the API's caches read
		if err != nil {
			return statement{}, fmt.Errorf("sqlite: search: %w", err)
		}
		pl.version, pl.counted = v.Content, true
		c, err := s.smallestAt(ctx, pl, cands, limit)
		if err != nil {
			return statement{}, err
		}
		d, n = cands[c.best], c.n[c.best]
		if n < int64(limit) {
			if filters, err = s.narrowing(ctx, &pl, cands, c); err != nil {
				return statement{}, err
			}
		}
	}
	if n >= int64(limit) {
		// Every candidate counted at least limit rows: any driver that
		// finds a bucket's rows by seeking may drive the buckets.
		st := statement{buckets: &pl, driver: "buckets"}
		for _, x := range cands {
			if x.name != rangeAccess.name && !x.unranged {
				st.bucketDriver = &x
				break
			}
		}
		return st, nil
	}
	sqlText, args := driverSort(d, pl, pl.lo, pl.hi, sc, id, minScore, sqlstore.PostColumns+", c.score, c.id", filters...)
	return statement{sql: sqlText, args: append(args, p.Limit+1), driver: planName(d.name+"+sort", filters)}, nil
}

// driverSort is the SQL of the best matches by score of driver d among ids
// in (lo, hi] and below the cursor (sc, id) and scoring at least floor: the
// candidates are sorted by score through the covering index posts_id_score
// and checked in that order, so that posts rows are read only until the
// limit (the last argument, to be appended) is reached. Scores equal to
// floor are kept: they may still win on id. cols are the
// columns to select, over p (the post) and c (score, id). Each filter's
// ids (in range) must hold a candidate before its score is looked up, as
// in selectFrom.
func driverSort(d access, pl plan, lo, hi, sc, id, floor int64, cols string, filters ...access) (string, []any) {
	var args []any
	inner := "SELECT s.id AS id, s.score AS score FROM " + d.est +
		" CROSS JOIN posts s INDEXED BY posts_id_score ON s.id = " + d.ekey +
		" WHERE " + d.cond.SQL + " AND " + d.ekey + " > ? AND " + d.ekey + " <= ?"
	args = append(args, d.cond.Args...)
	args = append(args, lo, hi)
	inner, args = withFilters(inner, args, d.ekey, lo, hi, filters)
	inner += " AND s.score <= ? AND (s.score < ? OR s.id < ?) AND s.score >= ? ORDER BY s.score DESC, s.id DESC"
	args = append(args, sc, sc, id, floor)
	// MATERIALIZED keeps the candidates apart from the posts rows: SQLite
	// sorts (id, score) pairs only and then reads rows in that order, the
	// outer ORDER BY being satisfied by the materialised order.
	sqlText := "WITH c AS MATERIALIZED (" + inner + ") SELECT " + cols +
		" FROM c CROSS JOIN posts p ON p.id = c.id WHERE " +
		pl.where.SQL + " ORDER BY c.score DESC, c.id DESC LIMIT ?"
	return sqlText, append(args, pl.where.Args...)
}

// scoreBucket is one bucket of posts_bucket_score, the best score in it,
// and the least score a match there can have (minScore, or a score floor:
// search_floor.go).
type scoreBucket struct{ b, best, floor int64 }

// scoredID is a match of a Top page.
type scoredID struct{ score, id int64 }

// byScore orders scored ids as Top pages do: score, then id, descending.
func byScore(a, b scoredID) int {
	return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(b.id, a.id))
}

// topBuckets finds a Top page of pl's matches bucket by bucket, in one
// read transaction so that every query sees the same snapshot: by the
// driver d's candidates sorted within each bucket (driverPage) when d is
// given and sparse in the best bucket, else by score windows (windowPage).
func (s *Store) topBuckets(ctx context.Context, pl *plan, d *access, p social.PageReq) (social.Page[social.Post], error) {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return social.Page[social.Post]{}, fmt.Errorf("sqlite: search: %w", err)
	}
	defer tx.Rollback()
	buckets, err := scoreBuckets(ctx, tx, pl.lo, pl.hi)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	floors, err := bucketFloors(ctx, tx, pl)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	if floors != nil {
		for i := range buckets {
			buckets[i].floor = floors(buckets[i].b)
		}
		// A bucket whose best score is below its floor holds no match.
		buckets = slices.DeleteFunc(buckets, func(bk scoreBucket) bool { return bk.best < bk.floor })
	}
	if len(buckets) == 0 {
		return social.Page[social.Post]{Items: []social.Post{}}, nil
	}
	// Best buckets first: the order in which a bucket's best score bounds
	// every bucket after it.
	slices.SortStableFunc(buckets, func(a, b scoreBucket) int { return cmp.Compare(b.best, a.best) })
	sc, id := sqlstore.After(p, sqlstore.MaxInt64)
	k := p.Limit + 1
	var page []scoredID
	sparse, n := false, int64(0)
	if d != nil {
		lo, hi := bucketRange(buckets[0].b, pl.lo, pl.hi)
		if n, err = s.count(ctx, tx, pl, *d, lo, hi, cmp.Or(s.bucketDriverCap, bucketDriverCap)); err != nil {
			return social.Page[social.Post]{}, err
		}
		sparse = n < int64(cmp.Or(s.bucketDriverCap, bucketDriverCap))
	}
	if sparse {
		page, err = driverPage(ctx, tx, *d, pl, buckets, sc, id, k, max(n, 1))
	} else {
		page, err = windowPage(ctx, tx, pl, buckets, sc, id, k)
	}
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	if len(page) == 0 {
		return social.Page[social.Post]{Items: []social.Post{}}, nil
	}
	args := make([]any, len(page))
	for i, m := range page {
		args[i] = m.id
	}
	out, err := sqlstore.PostPage(ctx, sqlDB(tx.QueryContext), p.Limit, "SELECT "+sqlstore.PostColumns+
		", p.score, p.id FROM posts p WHERE p.id IN ("+sqlstore.Placeholders(len(args))+") ORDER BY p.score DESC, p.id DESC", args)
	if err != nil {
		return out, fmt.Errorf("sqlite: search: %w", err)
	}
	return out, nil
}

// driverPage finds the best k matches below the cursor (sc, id) by sorting
// the driver's candidates bucket by bucket, best buckets first (buckets is
// in that order), until the k-th match found scores above the best score
// of every bucket left: a bucket's matches score at most its best. Its
// cost is the driver's rows in the buckets read: small for a driver
// sparse within buckets, whatever its total. Once the page holds k
// matches, a bucket whose posts scoring at least the k-th cost less to
// read (windowRowCost each) than n candidates to sort (n: the
// driver's rows in the best bucket) is read by score down to the k-th
// instead, as a score window.
func driverPage(ctx context.Context, tx *sql.Tx, d access, pl *plan, buckets []scoreBucket, sc, id int64, k int, n int64) ([]scoredID, error) {
	var page []scoredID
	// One statement of each kind for every bucket: only arguments differ.
	var sorted, window *sql.Stmt
	defer func() {
		for _, st := range []*sql.Stmt{sorted, window} {
			if st != nil {
				st.Close()
			}
		}
	}()
	prepare := func(st **sql.Stmt, q string) error {
		if *st != nil {
			return nil
		}
		var err error
		if *st, err = tx.PrepareContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: search: %w", err)
		}
		return nil
	}
	for _, bk := range buckets {
		floor := bk.floor
		var err error
		if len(page) >= k {
			if bk.best < page[k-1].score {
				break
			}
			floor = max(floor, page[k-1].score)
			// Counted up to the first count that is not cheaper.
			var above int64
			most := (n + windowRowCost - 1) / windowRowCost
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM posts p INDEXED BY posts_bucket_score WHERE "+
				bucketExpr+" = ? AND p.score >= ? LIMIT ?)", bk.b, floor, most).Scan(&above); err != nil {
				return nil, fmt.Errorf("sqlite: search: bucket %d above %d: %w", bk.b, floor, err)
			}
			if above*windowRowCost < n {
				if err := prepare(&window, windowSQL(pl, true)); err != nil {
					return nil, err
				}
				args := append([]any{bk.b, pl.lo, pl.hi, floor, sc, sc, id, sqlstore.MaxInt64}, pl.where.Args...)
				if page, err = appendScored(ctx, window, page, append(args, k)...); err != nil {
					return nil, err
				}
				slices.SortFunc(page, byScore)
				page = page[:min(len(page), k)]
				continue
			}
		}
		lo, hi := bucketRange(bk.b, pl.lo, pl.hi)
		q, args := driverSort(d, *pl, lo, hi, sc, id, floor, "c.score, c.id")
		if err := prepare(&sorted, q); err != nil {
			return nil, err
		}
		if page, err = appendScored(ctx, sorted, page, append(args, k)...); err != nil {
			return nil, err
		}
		slices.SortFunc(page, byScore)
		page = page[:min(len(page), k)]
	}
	return page, nil
}

// windowPage finds the best k matches below the cursor (sc, id) in rounds
// over ever wider score windows [floor, ceil), first topWindow below the
// best score in range: each round collects the best k matches of its
// window from every bucket that reaches it (once it holds k, only those
// scoring at least the k-th), so the page is complete as soon as a round
// ends with k matches (no unseen match can score higher).
func windowPage(ctx context.Context, tx *sql.Tx, pl *plan, buckets []scoreBucket, sc, id int64, k int) ([]scoredID, error) {
	var page []scoredID
	ceil, ceilIncl := min(buckets[0].best, sc), true
	// Below the least floor of all buckets no bucket holds a match.
	lowest := buckets[0].floor
	for _, bk := range buckets {
		lowest = min(lowest, bk.floor)
	}
	for width := int64(topWindow); ; width *= 2 {
		floor := minScore
		if ceil >= minScore+width && width < 1<<50 {
			floor = ceil - width
		}
		stmt, err := tx.PrepareContext(ctx, windowSQL(pl, ceilIncl))
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		// Once the round holds k matches, a bucket need only be read
		// down to the k-th score (ties kept: they may win on id).
		at := floor
		for _, bk := range buckets {
			from := max(at, bk.floor)
			if bk.best < from || from > ceil || (from == ceil && !ceilIncl) {
				continue
			}
			args := []any{bk.b, pl.lo, pl.hi, from, sc, sc, id, ceil}
			args = append(append(args, pl.where.Args...), k)
			if page, err = appendScored(ctx, stmt, page, args...); err != nil {
				stmt.Close()
				return nil, err
			}
			slices.SortFunc(page, byScore)
			page = page[:min(len(page), k)]
			if len(page) >= k {
				at = max(at, page[k-1].score)
			}
		}
		stmt.Close()
		if len(page) >= k || floor <= lowest {
			break
		}
		ceil, ceilIncl = floor, false
	}
	return page, nil
}

// windowSQL is the statement of the best matches of one bucket in a score
// window, below the cursor. Its arguments: bucket, the id range (lo, hi],
// the window's floor (inclusive), the cursor's score and id, the window's
// ceiling (inclusive when ceilIncl), pl's arguments, the limit.
func windowSQL(pl *plan, ceilIncl bool) string {
	ceilOp := " AND p.score < ?"
	if ceilIncl {
		ceilOp = " AND p.score <= ?"
	}
	return "SELECT p.score, p.id FROM posts p INDEXED BY posts_bucket_score WHERE " + bucketExpr +
		" = ? AND p.id > ? AND p.id <= ? AND p.score >= ? AND p.score <= ? AND (p.score < ? OR p.id < ?)" +
		ceilOp + " AND " + pl.where.SQL + " ORDER BY p.score DESC, p.id DESC LIMIT ?"
}

// bucketRange is the part (lo', hi'] of the id range (lo, hi] in bucket b.
func bucketRange(b, lo, hi int64) (int64, int64) {
	first := b << bucketShift
	if b < sqlstore.MaxInt64>>bucketShift {
		hi = min(hi, (b+1)<<bucketShift-1)
	}
	return max(lo, first-1), hi
}

// scoreBuckets lists the buckets holding ids in (lo, hi] with the best
// score of each (over the whole bucket: a bound for the part in range),
// one index seek per bucket.
func scoreBuckets(ctx context.Context, tx *sql.Tx, lo, hi int64) ([]scoreBucket, error) {
	q := "SELECT " + bucketExpr + ", p.score FROM posts p INDEXED BY posts_bucket_score WHERE " +
		bucketExpr + " <= ? AND " + bucketExpr + " >= ? ORDER BY " + bucketExpr + " DESC, p.score DESC LIMIT 1"
	var out []scoreBucket
	first := (lo + 1) >> bucketShift
	for b := hi >> bucketShift; b >= first; {
		got := scoreBucket{floor: minScore}
		err := tx.QueryRowContext(ctx, q, b, first).Scan(&got.b, &got.best)
		if err == sql.ErrNoRows {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("sqlite: search: score buckets: %w", err)
		}
		out = append(out, got)
		b = got.b - 1
	}
	return out, nil
}

// appendScored runs a statement of (score, id) rows and appends them to
// page.
func appendScored(ctx context.Context, stmt *sql.Stmt, page []scoredID, args ...any) ([]scoredID, error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m scoredID
		if err := rows.Scan(&m.score, &m.id); err != nil {
			return nil, fmt.Errorf("sqlite: search: %w", err)
		}
		page = append(page, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: %w", err)
	}
	return page, nil
}
