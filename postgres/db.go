package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/sqlstore"
)

// pgDB runs sqlstore's queries on the pool, numbering their placeholders
// when numbered is set (queries built with $n go as they are). With
// planned set, queries vary with their values (compiled searches): their
// placeholders are numbered without being remembered, and each is planned
// with its values (see Store.searchPage).
type pgDB struct {
	pool     *pgxpool.Pool
	numbered *sync.Map   // query with ? → query with $n
	reads    *readRouter // when set, reads go to its replicas
	planned  bool
}

// Query runs query and calls each for every row.
func (d pgDB) Query(ctx context.Context, query string, args []any, each func(sqlstore.Rows) error) error {
	switch {
	case d.planned:
		query = numbered(query)
		args = append([]any{pgx.QueryExecModeExec}, args...)
	case d.numbered != nil:
		q, ok := d.numbered.Load(query)
		if !ok {
			q, _ = d.numbered.LoadOrStore(query, numbered(query))
		}
		query = q.(string)
	}
	if d.reads == nil {
		return queryOn(ctx, d.pool, query, args, each, new(int))
	}
	delivered := 0
	_, err := readOn(ctx, d.reads, d.pool, func(pool *pgxpool.Pool) (struct{}, error) {
		return struct{}{}, queryOn(ctx, pool, query, args, each, &delivered)
	}, func() bool { return delivered == 0 })
	return err
}

// queryOn runs query on pool, counting the rows handed to each.
func queryOn(ctx context.Context, pool *pgxpool.Pool, query string, args []any, each func(sqlstore.Rows) error, delivered *int) error {
	rows, err := pool.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		*delivered++
		if err := each(rows); err != nil {
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	return nil
}

// dialect is PostgreSQL's side of sqlstore.Dialect.
var dialect = sqlstore.Dialect{
	Fold: func(column string) string { return "lower(" + column + ")" },
}

// numbered turns the ? placeholders of a query into $1, $2, ….
func numbered(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
