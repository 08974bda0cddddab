package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// compiler compiles a search into one SQL condition over alias p: the
// shared conditions of sqlstore and the text matching of searchDialect,
// with ? placeholders (numbered when the statement runs). Every value is a
// bind parameter: text terms reach the full-text index only through
// phraseto_tsquery('simple', ?) of tokens folded in Go (search.Lower), so
// no query text is ever parsed as tsquery syntax. Screen names of from:
// are resolved to ids first.
type compiler struct {
	s    *Store
	pool *pgxpool.Pool // where the search runs: the primary or a replica
	ctx  context.Context
	args []any
	// plan is the query lowered, once where has run.
	plan *search.Plan
}

// arg binds a value and returns its placeholder: values bind in the order
// of their placeholders in the statement.
func (c *compiler) arg(v any) string {
	c.args = append(c.args, v)
	return "?"
}

// where compiles a query: the repost rule, the condition tree, and id
// bounds for the time bounds at its top level, which the primary key
// serves while every stored post's id agrees with its time (migration
// 0004). A query that can never match (plan.Never) is "false", compiled no
// further.
func (c *compiler) where(q *search.Query) (string, error) {
	c.plan = search.Lower(q)
	if c.plan.Never {
		return "false", nil
	}
	db := poolDB{c.pool}
	conds, err := sqlstore.SearchCompiler{DB: db, Dialect: dialect, Search: searchDialect}.Conds(c.ctx, c.plan)
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	lo, hi, ok, err := sqlstore.TimeIDs(c.ctx, db, c.plan)
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	if ok && !c.plan.Since.IsZero() {
		conds = append(conds, sqlstore.Cond{SQL: "p.id > ?", Args: []any{lo}})
	}
	if ok && !c.plan.Until.IsZero() {
		conds = append(conds, sqlstore.Cond{SQL: "p.id <= ?", Args: []any{hi}})
	}
	if len(conds) == 0 {
		return "true", nil
	}
	x := sqlstore.Join(conds, " AND ")
	c.args = append(c.args, x.Args...)
	return x.SQL, nil
}

// searchDialect is PostgreSQL's part of the search conditions.
var searchDialect = sqlstore.SearchDialect{
	Text: textCond,
	URL:  urlCond,
	// repost_of_id, whose statistics the planner's estimates read.
	NoReposts: sqlstore.Cond{SQL: "p.repost_of_id = 0"},
	// The column itself, whose statistics the planner's estimates read
	// (lower() would hide them).
	Lang: "p.lang",
}

// textCond matches a word or phrase. Each "*" stands for exactly one
// arbitrary token: the runs around k wildcards are joined by
// tsquery_phrase at distance k+1.
func textCond(t search.CondText) sqlstore.Cond {
	q := ""
	var args []any
	for _, r := range t.Runs() {
		args = append(args, strings.Join(r.Tokens, " "))
		p := "phraseto_tsquery('simple', ?::text)"
		if q == "" {
			q = p
		} else {
			q = "tsquery_phrase(" + q + ", " + p + ", " + strconv.Itoa(r.Gap+1) + ")"
		}
	}
	return sqlstore.Cond{SQL: "p.tsv @@ " + q, Args: args, Cost: sqlstore.CostText}
}

// urlCond matches url: by the regular expression of its pattern over the
// lower-cased URLs, and, when it has whole tokens, by the URL index too.
func urlCond(u search.CondURL) sqlstore.Cond {
	pat, ok := urlPattern(u.Sub)
	if !ok {
		return sqlstore.CondFalse
	}
	x := sqlstore.Cond{SQL: fmt.Sprintf("((p.flags & %d) <> 0 AND p.urls ~ ?", sqlstore.FlagLinks), Args: []any{pat}, Cost: sqlstore.CostText}
	if t := urlIndexTokens(u); t != "" {
		x.SQL += " AND p.url_tsv <> ''::tsvector AND p.url_tsv @@ plainto_tsquery('simple', ?::text)"
		x.Args = append(x.Args, t)
	}
	x.SQL += ")"
	return x
}

// indexed reports whether every match of n is found through a GIN
// full-text index: then the set of matches can be gathered from that index
// and sorted, instead of walking all posts in order and testing each.
// (Tags and mentions need not: their b-trees, keyed (tag, post_id), already
// hand the planner matches newest first.)
func indexed(n search.Cond) bool {
	switch n := n.(type) {
	case search.CondText:
		return true
	case search.CondURL:
		return urlIndexTokens(n) != ""
	case search.CondAnd:
		for _, k := range n.Conds {
			if indexed(k) {
				return true
			}
		}
	case search.CondOr:
		for _, k := range n.Conds {
			if !indexed(k) {
				return false
			}
		}
		return len(n.Conds) > 0
	}
	return false
}

// poolDB runs the compiler's look-ups (from: names, time outliers) once on
// the pool the search reads; a search that fails runs again as a whole
// (Store.Search).
type poolDB struct{ pool *pgxpool.Pool }

// Query runs query on the pool and calls each for every row.
func (d poolDB) Query(ctx context.Context, query string, args []any, each func(sqlstore.Rows) error) error {
	return queryOn(ctx, d.pool, numbered(query), args, each, new(int), 0)
}
