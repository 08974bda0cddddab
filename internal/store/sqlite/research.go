package sqlite

import (
	"context"
	"fmt"
	"slices"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// researchCap is how many rows of each candidate driver a research query
// counts before it chooses the one to read the whole set through: reading
// every match, unlike a page, pays for a closer look.
const researchCap = 200_000

// researchMatch compiles a query for the research readers (counts, top
// values, walks): the plan of a search page (search_plan.go) with no page
// bound, read through the driver with the fewest rows. A walk reads in id
// order, so a driver whose rows are not in id order is taken for it only
// when it has fewer than sortedCap rows (each chunk sorts them).
func (s *Store) researchMatch(ctx context.Context, q *search.Query, walk bool) (sqlstore.Match, error) {
	if q == nil {
		return sqlstore.Match{}, fmt.Errorf("sqlite: research: a query is required: %w", social.ErrInvalid)
	}
	c := &compiler{s: s, ctx: ctx}
	pl, err := c.plan(q)
	if err != nil {
		return sqlstore.Match{}, err
	}
	if pl.never || pl.hi <= pl.lo {
		return sqlstore.Match{Empty: true}, nil
	}
	d := scanAccess
	if len(pl.drivers) > 0 {
		var n int64
		if d, n, err = s.smallest(ctx, pl, pl.drivers, researchCap); err != nil {
			return sqlstore.Match{}, err
		}
		if walk && d.sorted && n >= sortedCap {
			d = scanAccess
			for _, x := range pl.drivers {
				if !x.sorted {
					d = x
					break
				}
			}
		}
	}
	where := pl.where
	if d.name == "fts" {
		where = trustFTS(pl)
	}
	args := append(append([]any{}, d.cond.Args...), where.Args...)
	return sqlstore.Match{From: d.from, Where: "(" + d.cond.SQL + ") AND " + where.SQL, Args: args,
		Key: d.key, Lo: pl.lo, Hi: pl.hi}, nil
}

// trustFTS is the condition of a plan driven by the full-text index, with
// every top-level condition that the index holds exactly (exactFTS) tested
// with roost_match only for the posts flagged flagFTSInexact.
func trustFTS(pl plan) sqlstore.Cond {
	conds := slices.Clone(pl.conds)
	base := len(conds) - len(pl.kids)
	for i, k := range pl.kids {
		if exactFTS(k) {
			x := conds[base+i]
			conds[base+i] = sqlstore.Cond{SQL: fmt.Sprintf("((p.flags & %d) = 0 OR %s)", flagFTSInexact, x.SQL), Args: x.Args, Cost: x.Cost}
		}
	}
	return sqlstore.Join(conds, " AND ")
}
