package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Change tracking of snapshots. While a snapshot exists, triggers on each
// world table record the primary key of every row written (inserted,
// updated or deleted) into a dirty table of its own,
// snapshot_dirty_TABLE (the key's columns and seq, one row a key), with
// seq the generation current when the row was last written. Each save
// advances the generation and records the new one as its snapshot's mark
// (snapshot_marks): the rows that may differ from snapshot S are those
// whose key is dirty with seq >= S's mark. A restore of S writes only
// those (TrackedRestore): it deletes them, copies S's rows of those keys
// back, and gives S a mark above the generation it wrote under, so that
// what it wrote is dirty for every other snapshot and not for S. When the
// last mark is dropped, the triggers and tables go (Untrack): a database
// without snapshots pays nothing on its writes.
//
// A snapshot without a mark (saved before its database tracked changes,
// or when a save failed half-way) is restored by its differences
// (Restore), which marks it.

// MarksTable holds each tracked snapshot's mark.
const MarksTable = "snapshot_marks"

// Tracking is an engine's part of change tracking.
type Tracking struct {
	// ColumnsSQL reads a table's columns (see restoreByDiff).
	ColumnsSQL string
	// InstalledSQL counts the marks table (0: tracking is off).
	InstalledSQL string
	// GenDDL creates the generation counter, at 0.
	GenDDL []string
	// NextGen advances the generation and returns the new one.
	NextGen string
	// Triggers are the statements that create the triggers on table
	// recording the keys written into dirty.
	Triggers func(table, dirty string, key []string) []string
	// DropTriggers are the statements that drop them.
	DropTriggers func(table string) []string
	// DropGen drops the generation counter.
	DropGen []string
	// Derived are tables of an engine's own that it keeps from the rows of
	// the world's (SQLite: its FTS5 indexes' tables), which tracking
	// leaves alone: a restore by differences copies them as any other; a
	// tracked restore has Reindex put back what they hold of the rows it
	// restored.
	Derived []string
	// Reindex, when set, runs in a tracked restore once the tables are
	// restored, with the snapshot's mark (see DirtySince).
	Reindex func(ctx context.Context, tx DB, mark int64) error
	// Analyze, when set, is the statement (before a dirty table's name)
	// that gives the planner the dirty table's size before a restore
	// joins it: PostgreSQL otherwise takes a table it never analyzed for
	// a large one, and scans the world's table instead of looking the
	// few keys up.
	Analyze string
}

// tracked are tables but the derived ones.
func (tr Tracking) tracked(tables []string) []string {
	var out []string
	for _, t := range tables {
		if !slices.Contains(tr.Derived, t) {
			out = append(out, t)
		}
	}
	return out
}

// DirtySince is the query of the keys (quoted columns) of table written
// since a mark, its one argument.
func DirtySince(table string, key ...string) string {
	return `SELECT ` + strings.Join(key, ", ") + ` FROM ` + DirtyTable(table) + ` WHERE seq >= ?`
}

// DirtyTable is the table of the keys of table written since a mark.
func DirtyTable(table string) string { return "snapshot_dirty_" + table }

// tableColumns reads table's columns, and those of its primary key in
// the key's order.
func tableColumns(ctx context.Context, tx DB, columnsSQL, table string) (all, key []string, err error) {
	var places []int
	if err := tx.Query(ctx, columnsSQL, []any{table}, func(r Rows) error {
		var name string
		var place int
		if err := r.Scan(&name, &place); err != nil {
			return err
		}
		all = append(all, `"`+name+`"`)
		if place > 0 {
			key, places = append(key, `"`+name+`"`), append(places, place)
		}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("columns of %s: %w", table, err)
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("table %s has no columns", table)
	}
	sortByPlace(key, places)
	return all, key, nil
}

// Tracked reports whether the database tracks changes.
func (tr Tracking) Tracked(ctx context.Context, tx DB) (bool, error) {
	var n int
	if err := tx.Query(ctx, tr.InstalledSQL, nil, func(r Rows) error { return r.Scan(&n) }); err != nil {
		return false, fmt.Errorf("snapshot tracking: %w", err)
	}
	return n > 0, nil
}

// Track starts tracking the changes of tables, unless it has started:
// the marks, the generation, and each table's dirty table and triggers
// (a table without a primary key is refused).
func (tr Tracking) Track(ctx context.Context, tx DB, tables []string) error {
	if on, err := tr.Tracked(ctx, tx); err != nil || on {
		return err
	}
	stmts := append([]string{`CREATE TABLE ` + MarksTable + ` (name TEXT PRIMARY KEY, mark BIGINT NOT NULL)`}, tr.GenDDL...)
	for _, t := range tr.tracked(tables) {
		_, key, err := tableColumns(ctx, tx, tr.ColumnsSQL, t)
		if err != nil {
			return fmt.Errorf("snapshot tracking: %w", err)
		}
		if len(key) == 0 {
			return fmt.Errorf("snapshot tracking: table %s has no primary key to track", t)
		}
		d, k := DirtyTable(t), strings.Join(key, ", ")
		stmts = append(stmts,
			`CREATE TABLE `+d+` AS SELECT `+k+`, CAST(0 AS BIGINT) AS seq FROM `+t+` WHERE 1 = 0`,
			`CREATE UNIQUE INDEX `+d+`_key ON `+d+` (`+k+`)`)
		stmts = append(stmts, tr.Triggers(t, d, key)...)
	}
	for _, s := range stmts {
		if err := exec(ctx, tx, s); err != nil {
			return fmt.Errorf("snapshot tracking: %w", err)
		}
	}
	return nil
}

// Untrack stops tracking: the triggers, the dirty tables, the generation
// and the marks go.
func (tr Tracking) Untrack(ctx context.Context, tx DB, tables []string) error {
	var stmts []string
	for _, t := range tables {
		stmts = append(stmts, tr.DropTriggers(t)...)
		stmts = append(stmts, `DROP TABLE IF EXISTS `+DirtyTable(t))
	}
	stmts = append(append(stmts, tr.DropGen...), `DROP TABLE IF EXISTS `+MarksTable)
	for _, s := range stmts {
		if err := exec(ctx, tx, s); err != nil {
			return fmt.Errorf("snapshot untracking: %w", err)
		}
	}
	return nil
}

// NextMark advances the generation and returns the new one: the mark of
// a snapshot whose copy begins after it (what is written from then on is
// dirty for it), tracking already on.
func (tr Tracking) NextMark(ctx context.Context, tx DB) (int64, error) {
	var g int64
	if err := tx.Query(ctx, tr.NextGen, nil, func(r Rows) error { return r.Scan(&g) }); err != nil {
		return 0, fmt.Errorf("snapshot generation: %w", err)
	}
	return g, nil
}

// SetMark records snapshot name's mark.
func SetMark(ctx context.Context, tx DB, name string, mark int64) error {
	if err := exec(ctx, tx, `INSERT INTO `+MarksTable+` (name, mark) VALUES (?, ?)
		ON CONFLICT (name) DO UPDATE SET mark = excluded.mark`, name, mark); err != nil {
		return fmt.Errorf("snapshot %s: mark: %w", name, err)
	}
	return nil
}

// Mark is snapshot name's mark, ok false when it has none (or tracking
// is off).
func (tr Tracking) Mark(ctx context.Context, tx DB, name string) (mark int64, ok bool, err error) {
	if on, err := tr.Tracked(ctx, tx); err != nil || !on {
		return 0, false, err
	}
	err = tx.Query(ctx, `SELECT mark FROM `+MarksTable+` WHERE name = ?`, []any{name}, func(r Rows) error {
		ok = true
		return r.Scan(&mark)
	})
	if err != nil {
		return 0, false, fmt.Errorf("snapshot %s: mark: %w", name, err)
	}
	return mark, ok, nil
}

// Forget drops snapshot name's mark, then stops tracking when no mark is
// left, or else deletes the dirty keys older than every mark.
func (tr Tracking) Forget(ctx context.Context, tx DB, name string, tables []string) error {
	on, err := tr.Tracked(ctx, tx)
	if err != nil || !on {
		return err
	}
	if err := exec(ctx, tx, `DELETE FROM `+MarksTable+` WHERE name = ?`, name); err != nil {
		return fmt.Errorf("snapshot %s: forget: %w", name, err)
	}
	return tr.collect(ctx, tx, tables, nil)
}

// collect stops tracking when no mark is left, or else deletes the dirty
// keys older than every mark from the tables that hold any (dirty: see
// dirtyTables; nil: every table).
func (tr Tracking) collect(ctx context.Context, tx DB, tables []string, dirty map[string]bool) error {
	var left int
	if err := tx.Query(ctx, `SELECT count(*) FROM `+MarksTable, nil, func(r Rows) error { return r.Scan(&left) }); err != nil {
		return fmt.Errorf("snapshot marks: %w", err)
	}
	if left == 0 {
		return tr.Untrack(ctx, tx, tables)
	}
	for _, t := range tr.tracked(tables) {
		if dirty != nil && !dirty[t] {
			continue
		}
		if err := exec(ctx, tx, `DELETE FROM `+DirtyTable(t)+` WHERE seq < (SELECT min(mark) FROM `+MarksTable+`)`); err != nil {
			return fmt.Errorf("snapshot marks: collect %s: %w", t, err)
		}
	}
	return nil
}

// dirtyTables reads, in one query, which tables (tracked) hold keys
// written since mark (since), and which hold any (held).
func (tr Tracking) dirtyTables(ctx context.Context, tx DB, tables []string, mark int64) (since, held map[string]bool, err error) {
	var parts []string
	var args []any
	for _, t := range tr.tracked(tables) {
		d := DirtyTable(t)
		parts = append(parts, `SELECT '`+t+`', (SELECT count(*) FROM (SELECT 1 FROM `+d+` WHERE seq >= ? LIMIT 1) AS s),
			(SELECT count(*) FROM (SELECT 1 FROM `+d+` LIMIT 1) AS h)`)
		args = append(args, mark)
	}
	since, held = map[string]bool{}, map[string]bool{}
	if len(parts) == 0 {
		return since, held, nil
	}
	err = tx.Query(ctx, strings.Join(parts, ` UNION ALL `), args, func(r Rows) error {
		var t string
		var s, h int
		if err := r.Scan(&t, &s, &h); err != nil {
			return err
		}
		since[t], held[t] = s > 0, h > 0
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("dirty tables: %w", err)
	}
	return since, held, nil
}

// Restore puts tables back as snapshot name, in schema from, holds
// them, through tx, a DB on the restore's transaction, then does
// AfterRestore: by its dirty keys when it has a mark (TrackedRestore),
// else by its differences (restoreByDiff), after which it is marked, the
// world being the snapshot's.
func (tr Tracking) Restore(ctx context.Context, tx DB, from, name string, tables []string) error {
	mark, ok, err := tr.Mark(ctx, tx, name)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if ok {
		return tr.TrackedRestore(ctx, tx, from, name, tables, mark)
	}
	if err := restoreByDiff(ctx, tx, from, tables, tr.ColumnsSQL); err != nil {
		return err
	}
	if err := tr.Track(ctx, tx, tables); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := tr.remark(ctx, tx, name, tables, nil); err != nil {
		return err
	}
	return AfterRestore(ctx, tx)
}

// remark gives snapshot name, which the world equals, a mark above
// every key written so far, and collects the dirty keys no mark needs
// (from the tables in held; nil: every table).
func (tr Tracking) remark(ctx context.Context, tx DB, name string, tables []string, held map[string]bool) error {
	next, err := tr.NextMark(ctx, tx)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := SetMark(ctx, tx, name, next); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if err := tr.collect(ctx, tx, tables, held); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}

// TrackedRestore puts tables back as the snapshot name in schema from
// holds them, whose mark is mark, through tx, a DB on the restore's
// transaction, then does AfterRestore: in each table (in order: the
// tables kept by triggers after those they watch) the rows of the keys
// dirty since mark are deleted and the snapshot's rows of those keys
// copied back (in one query, the tables holding none are skipped); then
// Reindex puts the derived tables back. The
// snapshot's mark then moves above the generation the restore wrote
// under, and the dirty keys no mark needs go.
func (tr Tracking) TrackedRestore(ctx context.Context, tx DB, from, name string, tables []string, mark int64) error {
	since, held, err := tr.dirtyTables(ctx, tx, tables, mark)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	for _, t := range tr.tracked(tables) {
		if !since[t] {
			continue
		}
		all, key, err := tableColumns(ctx, tx, tr.ColumnsSQL, t)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if tr.Analyze != "" {
			if err := exec(ctx, tx, tr.Analyze+` `+DirtyTable(t)); err != nil {
				return fmt.Errorf("restore %s: %w", t, err)
			}
		}
		dirty := `(` + strings.Join(key, ", ") + `) IN (` + DirtySince(t, key...) + `)`
		if err := exec(ctx, tx, `DELETE FROM `+t+` WHERE `+dirty, mark); err != nil {
			return fmt.Errorf("restore %s: delete what changed: %w", t, err)
		}
		cols := strings.Join(all, ", ")
		if err := exec(ctx, tx, `INSERT INTO `+t+` (`+cols+`) SELECT `+cols+` FROM `+from+`.`+t+` WHERE `+dirty,
			mark); err != nil {
			return fmt.Errorf("restore %s: copy back: %w", t, err)
		}
	}
	if tr.Reindex != nil {
		if err := tr.Reindex(ctx, tx, mark); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	// The tables the restore wrote hold keys now, which the next
	// restore of another snapshot needs.
	for t, ok := range since {
		held[t] = held[t] || ok
	}
	if err := tr.remark(ctx, tx, name, tables, held); err != nil {
		return err
	}
	return AfterRestore(ctx, tx)
}

// TableKey reads the columns of table's primary key, in order, quoted
// (none: it has no primary key); columnsSQL as in Tracking.
func TableKey(ctx context.Context, tx DB, columnsSQL, table string) ([]string, error) {
	_, key, err := tableColumns(ctx, tx, columnsSQL, table)
	return key, err
}
