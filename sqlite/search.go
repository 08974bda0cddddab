package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"roost/search"
	"roost/social"
)

// Search runs a parsed query (see social.Reader). The AST is compiled into
// SQL with every value bound as a parameter and every full-text term quoted
// into an FTS5 expression; no query text reaches SQL or MATCH unquoted.
func (s *Store) Search(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	c := &compiler{s: s, ctx: ctx}
	plan, err := c.plan(q)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	sortCol := "p.id"
	if order == social.Top {
		sortCol = "p.score"
	}
	var b strings.Builder
	var args []any
	b.WriteString(`SELECT ` + postColumns + `, ` + sortCol + `, p.id FROM `)
	if plan.match != "" {
		b.WriteString(`posts_fts f JOIN posts p ON p.id = f.rowid WHERE posts_fts MATCH ? AND `)
		args = append(args, plan.match)
	} else {
		b.WriteString(`posts p WHERE `)
	}
	b.WriteString(plan.where)
	args = append(args, plan.args...)
	if order == social.Top {
		sc, id := after(p, maxInt64)
		b.WriteString(` AND (p.score, p.id) < (?, ?) ORDER BY p.score DESC, p.id DESC LIMIT ?`)
		args = append(args, sc, id, p.Limit+1)
	} else {
		_, id := after(p, maxInt64)
		if plan.match != "" {
			b.WriteString(` AND f.rowid < ? ORDER BY f.rowid DESC LIMIT ?`)
		} else {
			b.WriteString(` AND p.id < ? ORDER BY p.id DESC LIMIT ?`)
		}
		args = append(args, id, p.Limit+1)
	}
	return s.searchPage(ctx, p.Limit, b.String(), args...)
}

// searchPage runs a compiled search. Compiled statements vary with the
// query, so they are not kept in the statement cache.
func (s *Store) searchPage(ctx context.Context, limit int, query string, args ...any) (social.Page[social.Post], error) {
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return social.Page[social.Post]{}, fmt.Errorf("sqlite: search: %w", err)
	}
	return collectPage(rows, limit, func(r *sql.Rows, k *social.Key) (social.Post, error) {
		return scanPost(r, &k.Sort, &k.ID)
	})
}
