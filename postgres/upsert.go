package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copyThreshold is the batch size from which rows are staged with COPY
// into a temporary table and upserted with one INSERT … SELECT; smaller
// sets go as one round trip of single-row upserts.
const copyThreshold = 64

// column is one column of an upsert: its name, its type, and the SQL
// expression that makes the stored value from the staged one (%s stands
// for the staged value; "" means the value itself).
type column struct {
	name, typ, expr string
}

// upsertSpec is an INSERT … ON CONFLICT into one table.
type upsertSpec struct {
	stage    string // name of the temporary staging table
	table    string
	cols     []column
	conflict string // the ON CONFLICT clause
}

func (u *upsertSpec) value(i int, src string) string {
	if e := u.cols[i].expr; e != "" {
		return fmt.Sprintf(e, src)
	}
	return src
}

func (u *upsertSpec) names() []string {
	out := make([]string, len(u.cols))
	for i, c := range u.cols {
		out[i] = c.name
	}
	return out
}

// rowSQL is the single-row statement: INSERT … VALUES ($1, …) ON CONFLICT.
func (u *upsertSpec) rowSQL() string {
	vals := make([]string, len(u.cols))
	for i, c := range u.cols {
		vals[i] = u.value(i, fmt.Sprintf("$%d::%s", i+1, c.typ))
	}
	return "INSERT INTO " + u.table + " (" + strings.Join(u.names(), ", ") + ") VALUES (" +
		strings.Join(vals, ", ") + ") " + u.conflict
}

// stageSQL creates the staging table and selectSQL upserts from it.
func (u *upsertSpec) stageSQL() string {
	defs := make([]string, len(u.cols))
	for i, c := range u.cols {
		defs[i] = c.name + " " + c.typ
	}
	return "CREATE TEMPORARY TABLE " + u.stage + " (" + strings.Join(defs, ", ") + ") ON COMMIT DROP"
}

func (u *upsertSpec) selectSQL() string {
	vals := make([]string, len(u.cols))
	for i, c := range u.cols {
		vals[i] = u.value(i, "s."+c.name)
	}
	return "INSERT INTO " + u.table + " (" + strings.Join(u.names(), ", ") + ") SELECT " +
		strings.Join(vals, ", ") + " FROM " + u.stage + " s " + u.conflict
}

// run upserts rows (no two with the same conflict key unless the clause is
// DO NOTHING) inside tx.
func (u *upsertSpec) run(ctx context.Context, tx pgx.Tx, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if len(rows) < copyThreshold {
		q := u.rowSQL()
		b := &pgx.Batch{}
		for _, r := range rows {
			b.Queue(q, r...)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("postgres: write %s: %w", u.table, err)
		}
		return nil
	}
	if _, err := tx.Exec(ctx, u.stageSQL()); err != nil {
		return fmt.Errorf("postgres: write %s: stage: %w", u.table, err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{u.stage}, u.names(), pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("postgres: write %s: copy: %w", u.table, err)
	}
	if _, err := tx.Exec(ctx, u.selectSQL()); err != nil {
		return fmt.Errorf("postgres: write %s: %w", u.table, err)
	}
	if _, err := tx.Exec(ctx, "DROP TABLE "+u.stage); err != nil {
		return fmt.Errorf("postgres: write %s: drop stage: %w", u.table, err)
	}
	return nil
}

// setExcluded is "a = excluded.a, …" for the named columns.
func setExcluded(cols ...string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + " = excluded." + c
	}
	return strings.Join(parts, ", ")
}

func cols(typ string, names ...string) []column {
	out := make([]column, len(names))
	for i, n := range names {
		out[i] = column{name: n, typ: typ}
	}
	return out
}

func concat(parts ...[]column) []column {
	var out []column
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
