package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// compiler compiles a search for the planner (search_plan.go). Every
// condition is exact over the posts row (alias p): the shared conditions
// of sqlstore, and the text matching of searchDialect through the SQL
// functions of search_func.go, which re-tokenise the text exactly as
// search.IndexText does. Full-text and index lookups only choose which
// rows to look at; they never decide a match on their own. Every value is
// bound as a parameter; FTS5 terms are quoted.
type compiler struct {
	s   *Store
	ctx context.Context
}

// searchDialect is SQLite's part of the search conditions.
var searchDialect = sqlstore.SearchDialect{
	Text: func(t search.CondText) sqlstore.Cond {
		return sqlstore.Cond{SQL: fnMatch + "(p.text, ?)", Args: []any{strings.Join(t.Tokens, " ")}, Cost: sqlstore.CostText}
	},
	URL: func(u search.CondURL) sqlstore.Cond {
		return sqlstore.Cond{SQL: fmt.Sprintf("((p.flags & %d) != 0 AND %s(p.entities, ?))", sqlstore.FlagLinks, fnURL),
			Args: []any{u.Sub}, Cost: sqlstore.CostText}
	},
	// The flag, not repost_of_id: posts_bucket_score holds flags.
	NoReposts: sqlstore.Cond{SQL: fmt.Sprintf("(p.flags & %d) = 0", sqlstore.FlagRepost)},
	// Languages are stored as written; lang: matches any case.
	Lang: "lower(p.lang)",
}

// shared is the shared compiler on this store: from: names are looked up
// through the read statement cache.
func (c *compiler) shared() sqlstore.SearchCompiler {
	return sqlstore.SearchCompiler{DB: sqlDB(c.s.query), Dialect: dialect, Search: searchDialect}
}
