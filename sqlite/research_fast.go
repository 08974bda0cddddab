package sqlite

import (
	"context"
	"fmt"
	"strconv"

	"github.com/roostapi/roost/search"
	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
)

// Counts and top hashtags from the full-text index. When a query is only
// words and phrases the index holds exactly (exactFTS), id bounds and
// whole-second since:/until:, its matches split in two:
//   - posts without the inexact or the time marker (research_marks.go):
//     the full-text match decides alone, and the id gives the period
//     (the post's created_at lies in its id's second), so they are counted
//     from the index's rowids without reading a post;
//   - the others (few): read and checked as every match is (researchMatch).
// Native reposts are left out by their marker when the query leaves them
// out. At ten million posts this counts a word in a quarter of the posts
// without reading two million rows.

// indexMatch is a query's match split as above.
type indexMatch struct {
	expr string // FTS5 expression of the query's text conditions
	// reposts is set when the query leaves native reposts out.
	reposts bool
	// lo < rowid <= hi bound the posts counted from the index alone.
	lo, hi int64
	// The posts read: the plan's exact condition and id bounds.
	where        cond
	readLo, hiRd int64
}

// indexMatch splits q's match; ok is false when the query holds anything
// the index cannot decide.
func (s *Store) indexMatch(ctx context.Context, q *search.Query) (m indexMatch, ok bool, err error) {
	if q == nil {
		return m, false, nil
	}
	c := &compiler{s: s, ctx: ctx}
	pl, err := c.plan(q)
	if err != nil || pl.never || pl.hi <= pl.lo {
		return m, false, err
	}
	var fts *access
	for i := range pl.drivers {
		if pl.drivers[i].name == "fts" {
			fts = &pl.drivers[i]
		}
	}
	if fts == nil || len(fts.cond.args) != 1 {
		return m, false, nil
	}
	m = indexMatch{reposts: q.Reposts == search.RepostsExcluded, lo: pl.lo, hi: pl.hi, readLo: pl.lo, hiRd: pl.hi}
	if base := len(pl.conds) - len(pl.kids); base != 0 && !(base == 1 && m.reposts) {
		return m, false, nil
	}
	words := 0
	for _, k := range pl.kids {
		switch k := k.(type) {
		case search.IDBound:
		case search.TimeBound:
			ms := k.T.UnixMilli()
			if k.T.Nanosecond() != 0 || ms%1000 != 0 {
				return m, false, nil
			}
			// created_at and the id lie in the same second: a whole
			// second bounds both alike.
			if b := sqlstore.SnowflakeFloor(ms) - 1; k.Since {
				m.lo = max(m.lo, b)
			} else {
				m.hi = min(m.hi, b)
			}
		default:
			if !exactFTS(k) {
				return m, false, nil
			}
			words++
		}
	}
	if words == 0 {
		return m, false, nil
	}
	m.expr, _ = fts.cond.args[0].(string)
	m.where = trustFTS(pl)
	return m, m.expr != "", nil
}

// match is the FTS5 expression of the matches with (marked) or without
// (!marked) the inexact or time marker, with extra ANDed (a marker).
func (m indexMatch) match(marked bool, extra string) string {
	e := "(" + m.expr + ")"
	if extra != "" {
		e += " AND " + extra
	}
	if marked {
		e += " AND (" + ftsMark(markInexact) + " OR " + ftsMark(markTime) + ")"
	} else {
		e += " NOT " + ftsMark(markInexact) + " NOT " + ftsMark(markTime)
	}
	if m.reposts {
		e += " NOT " + ftsMark(markRepost)
	}
	return e
}

func ftsMark(mark string) string { return "text : " + ftsQuote(mark) }

// union is the SQL of rows (b, id) of every match, b the start of its
// period of width micros, and its arguments; extra is ANDed to the index
// expression, and post to the condition of the posts read.
func (m indexMatch) union(micros int64, extra, post string) (string, []any) {
	idTime := "(((f.rowid >> " + strconv.Itoa(sqlstore.SnowflakeShift) + ") + " +
		strconv.FormatInt(sqlstore.SnowflakeEpochMS, 10) + ") * 1000)"
	where := m.where.sql
	if post != "" {
		where += " AND " + post
	}
	q := "SELECT " + sqlstore.PeriodStart(idTime, micros) + " AS b, f.rowid AS id FROM posts_fts f" +
		" WHERE f.posts_fts MATCH ? AND f.rowid > ? AND f.rowid <= ?" +
		" UNION ALL SELECT " + sqlstore.PeriodStart("p.created_at", micros) + " AS b, p.id AS id" +
		" FROM posts_fts f CROSS JOIN posts p ON p.id = f.rowid" +
		" WHERE f.posts_fts MATCH ? AND " + where + " AND f.rowid > ? AND f.rowid <= ?"
	args := []any{m.match(false, extra), m.lo, m.hi, m.match(true, extra)}
	args = append(append(args, m.where.args...), m.readLo, m.hiRd)
	return q, args
}

// SearchCounts counts the matches by period (social.Researcher), from the
// full-text index where the query allows it.
func (s *Store) SearchCounts(ctx context.Context, q *search.Query, g social.Granularity) ([]social.Bucket, error) {
	if g == social.NoGranularity {
		return s.Research.SearchCounts(ctx, q, g)
	}
	m, ok, err := s.indexMatch(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	if !ok {
		return s.Research.SearchCounts(ctx, q, g)
	}
	sel, args := m.union(g.Micros(), "", "")
	return s.Research.Buckets(ctx, "SELECT b, count(*) FROM ("+sel+") x GROUP BY b ORDER BY b", args)
}

// SearchTop ranks the values of a field among the matches
// (social.Researcher); hashtags come from the full-text index and
// post_tags where the query allows it.
func (s *Store) SearchTop(ctx context.Context, q *search.Query, field social.TopField, limit int,
	g social.Granularity) ([]social.TopPeriod, error) {
	if field != social.TopHashtags || limit <= 0 {
		return s.Research.SearchTop(ctx, q, field, limit, g)
	}
	m, ok, err := s.indexMatch(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("top: %w", err)
	}
	if !ok {
		return s.Research.SearchTop(ctx, q, field, limit, g)
	}
	// post_tags holds "#" and the lower-cased hashtag, once a post, as
	// social.EntityValues keys them; cashtags start with "$".
	sel, args := m.union(g.Micros(), ftsMark(markTags), fmt.Sprintf("(p.flags & %d) <> 0", sqlstore.FlagHashtags))
	return s.Research.TopValues(ctx, "SELECT x.b, t.tag, count(*) FROM ("+sel+") x"+
		" CROSS JOIN post_tags t INDEXED BY post_tags_post ON t.post_id = x.id"+
		" WHERE t.tag >= '#' AND t.tag < '$' GROUP BY x.b, t.tag", args, limit, g)
}
