package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

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
	if q.Root != nil && search.Unsatisfiable(q.Root) {
		return sqlstore.Match{Empty: true}, nil
	}
	c := &compiler{s: s, pool: s.pool, ctx: ctx}
	where, err := c.where(q)
	if err != nil {
		return sqlstore.Match{}, err
	}
	w, args := questionMarks(where, c.args)
	return sqlstore.Match{From: "posts p", Where: "(" + w + ")", Args: args, Key: "p.id", Lo: 0, Hi: sqlstore.MaxInt64}, nil
}

// questionMarks rewrites the $n placeholders of a compiled condition as ?
// and orders (and repeats) the arguments as the marks occur. The compiler
// writes no literal text, so every $ is a placeholder.
func questionMarks(q string, args []any) (string, []any) {
	var b strings.Builder
	out := make([]any, 0, len(args))
	for i := 0; i < len(q); i++ {
		if q[i] != '$' {
			b.WriteByte(q[i])
			continue
		}
		j := i + 1
		for j < len(q) && q[j] >= '0' && q[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(q[i+1 : j])
		if err != nil || n < 1 || n > len(args) {
			b.WriteByte(q[i])
			continue
		}
		b.WriteByte('?')
		out = append(out, args[n-1])
		i = j - 1
	}
	return b.String(), out
}
