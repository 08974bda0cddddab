package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/store/sqlstore"
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
	delivered := 0
	if d.reads == nil {
		return retryRead(ctx, &delivered, func() error {
			return queryOn(ctx, d.pool, query, args, each, &delivered, 0)
		})
	}
	return retryRead(ctx, &delivered, func() error {
		_, err := readOn(ctx, d.reads, d.pool, func(pool *pgxpool.Pool) (struct{}, error) {
			return struct{}{}, queryOn(ctx, pool, query, args, each, &delivered, holdRows)
		}, func() bool { return delivered == 0 })
		return err
	})
}

// holdRows is how many rows a routed read holds back before it hands any
// on: a replica that fails within them (a page of the API is far fewer)
// has handed nothing on yet, so the read runs again on the primary.
const holdRows = 1024

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// queryOn runs query on a pool or a transaction, counting the rows
// handed to each. With hold above 0, up to hold rows are kept until the
// query has ended or passed them, so an error in that span reaches the
// caller with none delivered.
func queryOn(ctx context.Context, on querier, query string, args []any, each func(sqlstore.Rows) error, delivered *int, hold int) error {
	rows, err := on.Query(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	defer rows.Close()
	var held []heldRow
	var types *pgtype.Map
	var fields []pgconn.FieldDescription
	flush := func() error {
		for _, h := range held {
			*delivered++
			if err := each(h); err != nil {
				return err
			}
		}
		held, hold = nil, 0
		return nil
	}
	for rows.Next() {
		if hold > 0 {
			if types == nil {
				// Neither outlives the connection's next query: a map of
				// the same (default) types, and a copy of the columns.
				types, fields = pgtype.NewMap(), slices.Clone(rows.FieldDescriptions())
			}
			held = append(held, holdRow(rows, types, fields))
			if len(held) < hold {
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		*delivered++
		if err := each(rows); err != nil {
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	return flush()
}

// heldRow is a row copied out of its result, scanned later as pgx would
// have scanned it then.
type heldRow struct {
	types  *pgtype.Map
	fields []pgconn.FieldDescription
	values [][]byte
}

// holdRow copies the current row of rows.
func holdRow(rows pgx.Rows, types *pgtype.Map, fields []pgconn.FieldDescription) heldRow {
	raw := rows.RawValues()
	values := make([][]byte, len(raw))
	for i, v := range raw {
		if v != nil {
			values[i] = append([]byte{}, v...)
		}
	}
	return heldRow{types: types, fields: fields, values: values}
}

// Scan decodes the held row into dest, a destination per column (nil
// skips one).
func (h heldRow) Scan(dest ...any) error {
	if len(dest) != len(h.values) {
		return fmt.Errorf("postgres: scan: %d destinations for %d columns", len(dest), len(h.values))
	}
	for i, d := range dest {
		if d == nil {
			continue
		}
		f := h.fields[i]
		if err := h.types.Scan(f.DataTypeOID, f.Format, h.values[i], d); err != nil {
			return fmt.Errorf("postgres: scan column %s: %w", f.Name, err)
		}
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

// txDB runs sqlstore's statements in a write transaction.
type txDB struct{ tx pgx.Tx }

// Query runs query in the transaction and calls each for every row.
func (d txDB) Query(ctx context.Context, query string, args []any, each func(sqlstore.Rows) error) error {
	return unavailable(queryOn(ctx, d.tx, numbered(query), args, each, new(int), 0))
}
