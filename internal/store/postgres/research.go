package postgres

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// researchMatch compiles a query for the research readers (counts, top
// values, walks): the condition of a search page (search_compile.go) over
// posts p, with ? placeholders as sqlstore writes them. The planner
// chooses how to read it; a walk reads in id order, by the primary key.
func (s *Store) researchMatch(ctx context.Context, q *search.Query, _ bool) (sqlstore.Match, error) {
	if q == nil {
		return sqlstore.Match{}, fmt.Errorf("postgres: research: a query is required: %w", social.ErrInvalid)
	}
	c := &compiler{s: s, pool: s.pool, ctx: ctx}
	where, err := c.where(q)
	if err != nil {
		return sqlstore.Match{}, err
	}
	if c.plan.Never {
		return sqlstore.Match{Empty: true}, nil
	}
	return sqlstore.Match{From: "posts p", Where: "(" + where + ")", Args: c.args, Key: "p.id", Lo: 0, Hi: sqlstore.MaxInt64}, nil
}
