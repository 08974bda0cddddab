package sqlstore

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/roostapi/roost/internal/search"
)

// Search compilation shared by the engines. A lowered query (search.Lower)
// compiles to exact conditions over the posts row (alias p), every value
// bound as a ? parameter: the non-text conditions here (search_conds.go),
// the text matching by the engine's SearchDialect. Which rows an engine
// reads to find the matches (full-text drivers, index choices) is its
// planner's, and never decides a match on its own.

// Cost classes a condition by what testing it on one row takes. SQLite
// tests the terms of an AND in the order written, so a conjunction puts
// cheaper terms first: a row that fails a column test never reaches the
// lookups or the text.
type Cost int

// Costs of a condition.
const (
	CostColumn Cost = iota // columns of the row only
	CostLookup             // an index lookup in another table
	CostText               // matching the text
)

// Cond is a compiled search condition over posts p and its arguments.
type Cond struct {
	SQL  string
	Args []any
	Cost Cost
}

// The conditions of every post and of none.
var (
	CondTrue  = Cond{SQL: "true"}
	CondFalse = Cond{SQL: "false"}
)

// Join joins conditions with op (" AND " or " OR "), in parentheses; the
// terms of an AND go cheapest first (see Cost).
func Join(cs []Cond, op string) Cond {
	if op == " AND " {
		cs = slices.Clone(cs)
		slices.SortStableFunc(cs, func(a, b Cond) int { return cmp.Compare(a.Cost, b.Cost) })
	}
	parts := make([]string, 0, len(cs))
	var args []any
	var c Cost
	for _, x := range cs {
		parts = append(parts, x.SQL)
		args = append(args, x.Args...)
		c = max(c, x.Cost)
	}
	return Cond{SQL: "(" + strings.Join(parts, op) + ")", Args: args, Cost: c}
}

// SearchDialect is an engine's part of search compilation: how it matches
// text, and the form of two conditions its planner reads. Text and URL
// give a condition that NOT and AND take as it is (a call, a comparison,
// or in parentheses).
type SearchDialect struct {
	// Text is the exact condition of a word or phrase with tokens.
	Text func(search.CondText) Cond
	// URL is the exact condition of url:.
	URL func(search.CondURL) Cond
	// NoReposts leaves native reposts out, the default repost rule.
	NoReposts Cond
	// Lang is the expression of a post's language compared with a
	// lower-case code.
	Lang string
}

// SearchCompiler compiles lowered queries on one engine.
type SearchCompiler struct {
	// DB is where from: names are looked up.
	DB      DB
	Dialect Dialect
	Search  SearchDialect
}

// Conds compiles a plan's conditions: the repost rule when the plan leaves
// native reposts out, then one condition for each of p.Kids, in order.
func (c SearchCompiler) Conds(ctx context.Context, p *search.Plan) ([]Cond, error) {
	var conds []Cond
	if p.Reposts == search.RepostsExcluded {
		conds = append(conds, c.Search.NoReposts)
	}
	for _, k := range p.Kids {
		x, err := c.Cond(ctx, k)
		if err != nil {
			return nil, err
		}
		conds = append(conds, x)
	}
	return conds, nil
}
