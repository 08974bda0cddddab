package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// copyThreshold is the batch size from which rows are staged with COPY
// into a temporary table and upserted with one INSERT … SELECT; smaller
// sets go as one round trip of single-row upserts.
const copyThreshold = 64

// column is one column of an upsert: its name, its type, and the SQL
// expression that makes the stored value from the staged one (%[1]s stands
// for the staged value, %[2]s for the staged value of column src; "" means
// the value itself). A column with stageOnly set is a source for another
// column's expression, not a column of the table; such columns come last.
type column struct {
	name, typ, expr, src string
	stageOnly            bool
}

// upsertSpec is an INSERT … ON CONFLICT into one table.
type upsertSpec struct {
	stage    string // name of the temporary staging table
	table    string
	cols     []column
	conflict string // the ON CONFLICT clause, unless target is set
	// target and set, when target is set, make the clause ON CONFLICT
	// (target) DO UPDATE SET set; set names the new values excluded.c as
	// ON CONFLICT does. Only such a spec can upsert into a partitioned
	// table (see upsert).
	target []string
	set    string
	// key is how many leading columns make the table's primary key, in its
	// order: copyInto sends rows sorted by them, so that the key's b-tree
	// is filled page after page rather than all over.
	key int
}

// value is the stored value of column i, ref naming the staged value of a
// column.
func (u *upsertSpec) value(i int, ref func(j int) string) string {
	c := u.cols[i]
	if c.expr == "" {
		return ref(i)
	}
	src := ""
	if c.src != "" {
		src = ref(slices.IndexFunc(u.cols, func(d column) bool { return d.name == c.src }))
	}
	return fmt.Sprintf(c.expr, ref(i), src)
}

// names are the staged columns; targets is how many of them are columns of
// the table (the first ones).
func (u *upsertSpec) names() []string {
	out := make([]string, len(u.cols))
	for i, c := range u.cols {
		out[i] = c.name
	}
	return out
}

func (u *upsertSpec) targets() int {
	n := 0
	for _, c := range u.cols {
		if !c.stageOnly {
			n++
		}
	}
	return n
}

// clause is the ON CONFLICT clause.
func (u *upsertSpec) clause() string {
	if len(u.target) == 0 {
		return u.conflict
	}
	return "ON CONFLICT (" + strings.Join(u.target, ", ") + ") DO UPDATE SET " + u.set
}

// rowSQL is the single-row statement: INSERT … VALUES ($1, …) ON CONFLICT.
func (u *upsertSpec) rowSQL() string {
	n := u.targets()
	vals := make([]string, n)
	for i := range n {
		vals[i] = u.value(i, func(j int) string { return fmt.Sprintf("$%d::%s", j+1, u.cols[j].typ) })
	}
	return "INSERT INTO " + u.table + " (" + strings.Join(u.names()[:n], ", ") + ") VALUES (" +
		strings.Join(vals, ", ") + ") " + u.clause()
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
	n := u.targets()
	vals := make([]string, n)
	for i := range n {
		vals[i] = u.value(i, func(j int) string { return "s." + u.cols[j].name })
	}
	return "INSERT INTO " + u.table + " (" + strings.Join(u.names()[:n], ", ") + ") SELECT " +
		strings.Join(vals, ", ") + " FROM " + u.stage + " s " + u.clause()
}

// run upserts rows into an unpartitioned table; see upsert.
func (u *upsertSpec) run(ctx context.Context, tx pgx.Tx, rows [][]any) error {
	return u.upsert(ctx, tx, rows, false)
}

// upsert upserts rows (no two with the same conflict key unless the clause
// is DO NOTHING) inside tx. With parted, the table is partitioned and has
// no unique index ON CONFLICT (target) could name (its partitions have
// them): a spec with a target then updates the stored rows and inserts the
// others in one statement (partedSQL). A clause without a target (DO
// NOTHING) works on either.
func (u *upsertSpec) upsert(ctx context.Context, tx pgx.Tx, rows [][]any, parted bool) error {
	if len(rows) == 0 {
		return nil
	}
	parted = parted && len(u.target) > 0
	if len(rows) < copyThreshold {
		q := u.rowSQL()
		if parted {
			q = u.partedSQL(func(j int) string { return fmt.Sprintf("$%d::%s", j+1, u.cols[j].typ) }, "")
		}
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
	if err := copyTo(ctx, tx, u.stage, u, len(u.cols), rows); err != nil {
		return fmt.Errorf("postgres: write %s: copy: %w", u.table, err)
	}
	q := u.selectSQL()
	if parted {
		// The planner then knows how few rows the stage holds, and finds
		// each stored row by its partition's primary key.
		if _, err := tx.Exec(ctx, "ANALYZE "+u.stage); err != nil {
			return fmt.Errorf("postgres: write %s: analyze stage: %w", u.table, err)
		}
		q = u.partedSQL(func(j int) string { return "s." + u.cols[j].name }, u.stage)
	}
	if _, err := tx.Exec(ctx, q); err != nil {
		return fmt.Errorf("postgres: write %s: %w", u.table, err)
	}
	if _, err := tx.Exec(ctx, "DROP TABLE "+u.stage); err != nil {
		return fmt.Errorf("postgres: write %s: drop stage: %w", u.table, err)
	}
	return nil
}

// excludedRef is a reference to a new value in an ON CONFLICT clause.
var excludedRef = regexp.MustCompile(`excluded\.([a-z_]+)`)

// partedSQL is the upsert of a partitioned table as one statement: a CTE
// updates the stored rows (set, its excluded.c made the new values), and
// the rows it did not update are inserted, ON CONFLICT DO NOTHING (the
// partitions' primary keys are its arbiters). ref names the new value of
// column j; stage, when not "", is the staging table they are read from
// (as s), else ref names parameters of one row. Two writers inserting the
// same new row at once: the later one's insert does nothing, where ON
// CONFLICT DO UPDATE would have made its values the stored ones.
func (u *upsertSpec) partedSQL(ref func(j int) string, stage string) string {
	n := u.targets()
	index := func(name string) int { return slices.IndexFunc(u.cols, func(c column) bool { return c.name == name }) }
	set := excludedRef.ReplaceAllStringFunc(u.set, func(m string) string {
		return "(" + u.value(index(excludedRef.FindStringSubmatch(m)[1]), ref) + ")"
	})
	match := make([]string, len(u.target))
	for i, k := range u.target {
		match[i] = u.table + "." + k + " = " + ref(index(k))
	}
	vals := make([]string, n)
	for i := range n {
		vals[i] = u.value(i, ref)
	}
	from, returning, found := "", "1", "SELECT 1 FROM u"
	if stage != "" {
		from = " FROM " + stage + " s"
		ret, on := make([]string, len(u.target)), make([]string, len(u.target))
		for i, k := range u.target {
			ret[i] = u.table + "." + k
			on[i] = "u." + k + " = s." + k
		}
		returning, found = strings.Join(ret, ", "), "SELECT 1 FROM u WHERE "+strings.Join(on, " AND ")
	}
	return "WITH u AS (UPDATE " + u.table + " SET " + set + from + " WHERE " + strings.Join(match, " AND ") +
		" RETURNING " + returning + ") INSERT INTO " + u.table + " (" + strings.Join(u.names()[:n], ", ") + ") SELECT " +
		strings.Join(vals, ", ") + from + " WHERE NOT EXISTS (" + found + ") ON CONFLICT DO NOTHING"
}

// errCopyConflict marks a failed copy of rows that were to be new straight
// into their table: one of them exists (a unique constraint refused it).
var errCopyConflict = errors.New("a copied row exists already")

// copyInto copies rows (the table's columns of u, in order) straight into
// u's table, inside tx: for rows known to be new, it saves the staging
// table and the conflict checks of run. A unique violation (a row exists
// after all) is reported as errCopyConflict; tx is then failed.
func copyInto(ctx context.Context, tx pgx.Tx, u *upsertSpec, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if u.key > 0 {
		slices.SortFunc(rows, func(a, b []any) int { return compareKeys(a[:u.key], b[:u.key]) })
	}
	err := copyTo(ctx, tx, u.table, u, u.targets(), rows)
	if isUniqueViolation(err) {
		return fmt.Errorf("postgres: write %s: %w: %w", u.table, errCopyConflict, err)
	}
	if err != nil {
		return fmt.Errorf("postgres: write %s: copy: %w", u.table, err)
	}
	return nil
}

// compareKeys orders two rows' keys (int64 and string values) column by
// column, as PostgreSQL orders them (strings bytewise: the key columns of
// text hold folded names and tags, for which the collation's order and the
// bytes' order need not agree, but any order keeps pages together).
func compareKeys(a, b []any) int {
	for i := range a {
		var c int
		switch x := a[i].(type) {
		case int64:
			y, _ := b[i].(int64)
			c = cmp.Compare(x, y)
		case string:
			y, _ := b[i].(string)
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return 0
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
