package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
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
	where          sqlstore.Cond
	readLo, readHi int64
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
	if fts == nil || len(fts.cond.Args) != 1 {
		return m, false, nil
	}
	m = indexMatch{reposts: q.Reposts == search.RepostsExcluded, lo: pl.lo, hi: pl.hi, readLo: pl.lo, readHi: pl.hi}
	if base := len(pl.conds) - len(pl.kids); base != 0 && !(base == 1 && m.reposts) {
		return m, false, nil
	}
	words := 0
	for _, k := range pl.kids {
		switch k := k.(type) {
		case search.CondID:
		case search.CondTime:
			ms := k.T.UnixMilli()
			if k.T.Nanosecond() != 0 || ms%1000 != 0 {
				return m, false, nil
			}
			// created_at and the id lie in the same second: a whole
			// second bounds both alike.
			if b := social.SnowflakeFloor(ms) - 1; k.Since {
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
	m.expr, _ = fts.cond.Args[0].(string)
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
	// One NOT of an OR: FTS5 walks it faster than a NOT of each marker.
	not := []string{ftsMark(markInexact), ftsMark(markTime)}
	if m.reposts {
		not = append(not, ftsMark(markRepost))
	}
	if marked {
		e += " AND (" + not[0] + " OR " + not[1] + ")"
		not = not[2:]
	}
	if len(not) > 0 {
		e += " NOT (" + strings.Join(not, " OR ") + ")"
	}
	return e
}

func ftsMark(mark string) string { return "text : " + ftsQuote(mark) }

// parts are the id ranges (lo, hi] of the stored posts the matches of m
// counted from the index are read in, one per CPU at most: each is read on
// a connection of its own, at once.
func (s *Store) parts(ctx context.Context, m indexMatch) ([][2]int64, error) {
	var lo, hi sql.NullInt64
	if err := s.read.QueryRowContext(ctx, `SELECT (SELECT min(id) FROM posts), (SELECT max(id) FROM posts)`).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("id range: %w", err)
	}
	a, b := max(m.lo, lo.Int64-1), min(m.hi, hi.Int64)
	n := int64(min(runtime.GOMAXPROCS(0), researchParts))
	if !lo.Valid || b-a < n*researchPartMin {
		return [][2]int64{{m.lo, m.hi}}, nil
	}
	var out [][2]int64
	for i := range n {
		out = append(out, [2]int64{a + (b-a)/n*i, a + (b-a)/n*(i+1)})
	}
	out[0][0], out[n-1][1] = m.lo, m.hi
	return out, nil
}

// researchParts is how many parts of an id range a count reads at once at
// most; researchPartMin the least span of ids worth a part of its own.
const (
	researchParts   = 4
	researchPartMin = 1 << 32
)

// idTime is the SQL of the time (micros) of a full-text row's id.
var idTime = "(((f.rowid >> " + strconv.Itoa(social.SnowflakeShift) + ") + " +
	strconv.FormatInt(social.SnowflakeEpochMS, 10) + ") * 1000)"

// aggregate runs the one-row statements of an aggregate at once, each on a
// connection of its own, and hands each value to add (serially).
func (s *Store) aggregate(ctx context.Context, stmts []string, args [][]any, add func(string) error) error {
	vals := make([]sql.NullString, len(stmts))
	g, ctx := errgroup.WithContext(ctx)
	for i := range stmts {
		g.Go(func() error {
			return s.read.QueryRowContext(ctx, stmts[i], args[i]...).Scan(&vals[i])
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, v := range vals {
		if err := add(v.String); err != nil {
			return err
		}
	}
	return nil
}

// statements are the statements of an aggregate agg over the matches of m:
// one per part of the matches the index decides (with the join and where
// after "WHERE"), then the one of the posts read (with postJoin and
// postWhere); extra is ANDed to the index expression.
func (s *Store) statements(ctx context.Context, m indexMatch, extra, agg, postAgg, join, postJoin, where, postWhere string) ([]string, [][]any, error) {
	parts, err := s.parts(ctx, m)
	if err != nil {
		return nil, nil, err
	}
	var stmts []string
	var args [][]any
	for _, p := range parts {
		stmts = append(stmts, "SELECT "+agg+" FROM posts_fts f"+join+
			" WHERE f.posts_fts MATCH ? AND f.rowid > ? AND f.rowid <= ?"+where)
		args = append(args, []any{m.match(false, extra), p[0], p[1]})
	}
	stmts = append(stmts, "SELECT "+postAgg+" FROM posts_fts f CROSS JOIN posts p ON p.id = f.rowid"+postJoin+
		" WHERE f.posts_fts MATCH ? AND "+m.where.SQL+" AND f.rowid > ? AND f.rowid <= ?"+postWhere)
	a := append([]any{m.match(true, extra)}, m.where.Args...)
	args = append(args, append(a, m.readLo, m.readHi))
	return stmts, args, nil
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
	w := strconv.FormatInt(g.Micros(), 10)
	stmts, args, err := s.statements(ctx, m, "", fnPeriods+"("+idTime+", "+w+")", fnPeriods+"(p.created_at, "+w+")",
		"", "", "", "")
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	counts := map[int64]int64{}
	err = s.aggregate(ctx, stmts, args, func(v string) error {
		f := strings.Fields(v)
		for i := 0; i+1 < len(f); i += 2 {
			b, err1 := strconv.ParseInt(f[i], 10, 64)
			n, err2 := strconv.ParseInt(f[i+1], 10, 64)
			if err := errors.Join(err1, err2); err != nil {
				return err
			}
			counts[b] += n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	out := make([]social.Bucket, 0, len(counts))
	for b, n := range counts {
		out = append(out, social.Bucket{Start: sqlstore.FromMicros(b), Count: n})
	}
	slices.SortFunc(out, func(a, b social.Bucket) int { return a.Start.Compare(b.Start) })
	return out, nil
}

// SearchTop ranks the values of a field among the matches
// (social.Researcher); hashtags come from the full-text index and
// post_hashtags where the query allows it.
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
	// post_hashtags holds each post's hashtags as post_tags keys them ("#"
	// and lower case, once a post), as social.EntityValues does.
	w := g.Micros()
	stmts, args, err := s.statements(ctx, m, ftsMark(markTags),
		fnTallyTags+"("+sqlstore.PeriodStart(idTime, w)+", h.tags)",
		fnTallyTags+"("+sqlstore.PeriodStart("p.created_at", w)+", h.tags)",
		" CROSS JOIN post_hashtags h ON h.id = f.rowid",
		" CROSS JOIN post_hashtags h ON h.id = p.id",
		"", fmt.Sprintf(" AND (p.flags & %d) <> 0", sqlstore.FlagHashtags))
	if err != nil {
		return nil, fmt.Errorf("top: %w", err)
	}
	t := sqlstore.NewTally(limit)
	err = s.aggregate(ctx, stmts, args, func(v string) error {
		if v == "" {
			return nil
		}
		var rows []tallyRow
		if err := json.Unmarshal([]byte(v), &rows); err != nil {
			return err
		}
		for _, r := range rows {
			t.Add(r.B, r.Key, social.TopValue{Value: r.Key}, r.N)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("top: %w", err)
	}
	return t.Periods(g), nil
}
