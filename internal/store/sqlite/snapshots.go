package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Snapshots (social.Snapshots) are files of their own in a directory
// beside the database, PATH-snapshots/NAME.db, each holding the world's
// tables (sqlstore.WorldTables and the FTS5 indexes' tables) with the
// database's own definitions and indexes. A save is one INSERT … SELECT *
// per table into an identical empty table, which SQLite carries out by
// copying the records in order (its transfer optimisation). While
// snapshots exist, the database tracks the keys written in those tables
// (sqlstore.Tracking), and a restore writes only the rows of those keys
// (sqlstore.Tracking.Restore). The FTS5 indexes hold after a restore
// what they held at the snapshot, so search answers as it did then: a
// tracked restore indexes again the posts it restored (see tracking), a
// restore by differences copies the indexes' tables. Both run on a
// connection of their own, so that the store's connections find the
// change as any other process's commit (the FTS5 tables re-read their
// structure when another connection committed).

// ftsTables are the tables that hold the FTS5 indexes (posts_fts, post_urls).
var ftsTables = []string{
	"posts_fts_data", "posts_fts_idx", "posts_fts_docsize", "posts_fts_config",
	"post_urls_data", "post_urls_idx", "post_urls_docsize", "post_urls_config",
}

// snapshotTables are what a SQLite snapshot copies.
func snapshotTables() []string {
	return append(append(append([]string{}, sqlstore.WorldTables...), "post_hashtags", "search_count_outliers"), ftsTables...)
}

// snapshotDir is the directory of the database's snapshots.
func (s *Store) snapshotDir() string { return s.path + "-snapshots" }

// snapshotFile is where snapshot name is kept.
func (s *Store) snapshotFile(name string) string {
	return filepath.Join(s.snapshotDir(), name+".db")
}

// snapshotConn opens a connection of its own on the database, with the
// file at path attached as snap (none when path is empty).
func (s *Store) snapshotConn(ctx context.Context, path string, readOnly bool) (*sql.DB, *sql.Conn, error) {
	db, err := openOne(dsn(s.path, false))
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("connect: %w", unavailable(err))
	}
	if path == "" {
		return db, conn, nil
	}
	uri := "file:" + path
	if readOnly {
		uri += "?mode=ro"
	}
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS snap`, uri); err != nil {
		conn.Close()
		db.Close()
		return nil, nil, fmt.Errorf("attach %s: %w", path, unavailable(err))
	}
	return db, conn, nil
}

// SaveSnapshot copies the world into a new snapshot file, written under a
// temporary name and renamed into place once whole. The copy reads one
// consistent state of the database and holds no lock its writers wait
// for.
func (s *Store) SaveSnapshot(ctx context.Context, name string) (social.Snapshot, error) {
	if err := sqlstore.CheckSnapshotName(name); err != nil {
		return social.Snapshot{}, err
	}
	final := s.snapshotFile(name)
	if _, err := os.Stat(final); err == nil {
		return social.Snapshot{}, fmt.Errorf("snapshot %q exists (DELETE it first): %w", name, social.ErrConflict)
	}
	if err := os.MkdirAll(s.snapshotDir(), 0o755); err != nil {
		return social.Snapshot{}, fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	tmp := filepath.Join(s.snapshotDir(), "."+name+".tmp")
	os.Remove(tmp)
	defer os.Remove(tmp)
	db, conn, err := s.snapshotConn(ctx, tmp, false)
	if err != nil {
		return social.Snapshot{}, fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	defer db.Close()
	defer conn.Close()
	// The mark first, in a write of its own: every write under an older
	// generation has committed when the copy begins reading.
	var mark int64
	if err := inConnTx(ctx, conn, func(tx sqlstore.DB) (err error) {
		if err := tracking.Track(ctx, tx, snapshotTables()); err != nil {
			return err
		}
		mark, err = tracking.NextMark(ctx, tx)
		return err
	}); err != nil {
		return social.Snapshot{}, fmt.Errorf("sqlite: snapshot %s: %w", name, err)
	}
	snap, err := s.saveSnapshot(ctx, conn, name)
	if err == nil {
		err = detachRename(ctx, conn, tmp, final)
	}
	if err == nil {
		err = inConnTx(ctx, conn, func(tx sqlstore.DB) error { return sqlstore.SetMark(ctx, tx, name, mark) })
	}
	if err != nil {
		// Tracking stops if no other snapshot is marked.
		bg := context.WithoutCancel(ctx)
		ferr := inConnTx(bg, conn, func(tx sqlstore.DB) error { return tracking.Forget(bg, tx, name, snapshotTables()) })
		return snap, fmt.Errorf("sqlite: snapshot %s: %w", name, errors.Join(err, ferr))
	}
	return snap, nil
}

// detachRename detaches the written snapshot tmp and renames it final.
func detachRename(ctx context.Context, conn *sql.Conn, tmp, final string) error {
	if _, err := conn.ExecContext(ctx, `DETACH DATABASE snap`); err != nil {
		return fmt.Errorf("detach: %w", unavailable(err))
	}
	return os.Rename(tmp, final)
}

// inConnTx runs fn in a write transaction of conn.
func inConnTx(ctx context.Context, conn *sql.Conn, fn func(tx sqlstore.DB) error) error {
	tx, err := conn.BeginTx(ctx, nil) // BEGIN IMMEDIATE (dsn)
	if err != nil {
		return fmt.Errorf("begin: %w", unavailable(err))
	}
	defer tx.Rollback()
	if err := fn(sqlDB(tx.QueryContext)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", unavailable(err))
	}
	return nil
}

// saveSnapshot copies the world into the file attached as snap to conn.
func (s *Store) saveSnapshot(ctx context.Context, conn *sql.Conn, name string) (social.Snapshot, error) {
	// The copy is written once and renamed into place only when whole:
	// no journal needed.
	for _, p := range []string{`PRAGMA snap.journal_mode = OFF`, `PRAGMA snap.synchronous = OFF`} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			return social.Snapshot{}, fmt.Errorf("%s: %w", p, err)
		}
	}
	ddl, err := definitions(ctx, conn, snapshotTables(), "'table', 'index'")
	if err != nil {
		return social.Snapshot{}, err
	}
	// A deferred transaction: it reads one state of the database, and
	// locks only the snapshot's file for writing.
	if _, err := conn.ExecContext(ctx, `BEGIN DEFERRED`); err != nil {
		return social.Snapshot{}, fmt.Errorf("begin: %w", unavailable(err))
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`)
	for _, d := range ddl {
		if _, err := conn.ExecContext(ctx, inSchema(d.sql, "snap")); err != nil {
			return social.Snapshot{}, fmt.Errorf("create %s in the snapshot: %w", d.name, err)
		}
	}
	if _, err := conn.ExecContext(ctx, sqlstore.SnapshotInfoDDL("snap")); err != nil {
		return social.Snapshot{}, fmt.Errorf("create the snapshot's info: %w", err)
	}
	for _, t := range snapshotTables() {
		if _, err := conn.ExecContext(ctx, `INSERT INTO snap.`+t+` SELECT * FROM main.`+t); err != nil {
			return social.Snapshot{}, fmt.Errorf("copy %s: %w", t, unavailable(err))
		}
	}
	snap, err := sqlstore.WriteSnapshotInfo(ctx, sqlDB(conn.QueryContext), "snap", name, time.Now())
	if err != nil {
		return snap, err
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return snap, fmt.Errorf("commit: %w", unavailable(err))
	}
	return snap, nil
}

// RestoreSnapshot puts the world back as snapshot name holds it, in one
// transaction of a connection of its own (writers wait for it as for any
// other write).
func (s *Store) RestoreSnapshot(ctx context.Context, name string) (social.Snapshot, error) {
	if err := sqlstore.CheckSnapshotName(name); err != nil {
		return social.Snapshot{}, err
	}
	path := s.snapshotFile(name)
	if _, err := os.Stat(path); err != nil {
		return social.Snapshot{}, fmt.Errorf("snapshot %q: %w", name, social.ErrNotFound)
	}
	snap, err := s.restoreSnapshot(ctx, name, path)
	if err != nil {
		return snap, fmt.Errorf("sqlite: restore snapshot %s: %w", name, err)
	}
	return snap, nil
}

func (s *Store) restoreSnapshot(ctx context.Context, name, path string) (social.Snapshot, error) {
	db, conn, err := s.snapshotConn(ctx, path, true)
	if err != nil {
		return social.Snapshot{}, err
	}
	defer db.Close()
	defer conn.Close()
	q := sqlDB(conn.QueryContext)
	snap, err := sqlstore.ReadSnapshotInfo(ctx, q, "snap")
	if err != nil {
		return snap, err
	}
	return snap, inConnTx(ctx, conn, func(tx sqlstore.DB) error {
		return tracking.Restore(ctx, tx, "snap", name, snapshotTables())
	})
}

// ListSnapshots reads the info of every snapshot file.
func (s *Store) ListSnapshots(ctx context.Context) ([]social.Snapshot, error) {
	files, err := filepath.Glob(filepath.Join(s.snapshotDir(), "*.db"))
	if err != nil {
		return nil, fmt.Errorf("sqlite: snapshots: %w", err)
	}
	sort.Strings(files)
	out := []social.Snapshot{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".db")
		if sqlstore.CheckSnapshotName(name) != nil {
			continue
		}
		snap, err := s.snapshotInfo(ctx, f)
		if err != nil && !errors.Is(err, social.ErrConflict) {
			return nil, fmt.Errorf("sqlite: snapshot %s: %w", name, err)
		}
		out = append(out, snap)
	}
	return out, nil
}

// snapshotInfo reads a snapshot file's info.
func (s *Store) snapshotInfo(ctx context.Context, path string) (social.Snapshot, error) {
	db, conn, err := s.snapshotConn(ctx, path, true)
	if err != nil {
		return social.Snapshot{}, err
	}
	defer db.Close()
	defer conn.Close()
	return sqlstore.ReadSnapshotInfo(ctx, sqlDB(conn.QueryContext), "snap")
}

// DropSnapshot deletes a snapshot's file and its mark; the database
// stops tracking changes when no marked snapshot is left.
func (s *Store) DropSnapshot(ctx context.Context, name string) error {
	if err := sqlstore.CheckSnapshotName(name); err != nil {
		return err
	}
	err := os.Remove(s.snapshotFile(name))
	if err == nil || errors.Is(err, os.ErrNotExist) {
		if ferr := s.forgetSnapshot(ctx, name); ferr != nil {
			return fmt.Errorf("sqlite: drop snapshot %s: %w", name, ferr)
		}
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("snapshot %q: %w", name, social.ErrNotFound)
	case err != nil:
		return fmt.Errorf("sqlite: drop snapshot %s: %w", name, err)
	}
	return nil
}

// columnsSQL reads a table's columns and their places in its primary
// key (sqlstore.Tracking).
const columnsSQL = `SELECT name, pk FROM pragma_table_info(?, 'main') ORDER BY cid`

// definition is a table's, index's or trigger's name and SQL.
type definition struct{ name, sql string }

// definitions are the definitions of the given types (an SQL list) of
// the main database's tables, tables before indexes.
func definitions(ctx context.Context, conn *sql.Conn, tables []string, types string) ([]definition, error) {
	args := make([]any, len(tables))
	for i, t := range tables {
		args[i] = t
	}
	rows, err := conn.QueryContext(ctx, `SELECT name, sql FROM main.sqlite_schema WHERE type IN (`+types+`)
		AND tbl_name IN (`+sqlstore.Placeholders(len(tables))+`) AND sql IS NOT NULL ORDER BY type = 'index', rowid`, args...)
	if err != nil {
		return nil, fmt.Errorf("read the schema: %w", unavailable(err))
	}
	defer rows.Close()
	var out []definition
	for rows.Next() {
		var d definition
		if err := rows.Scan(&d.name, &d.sql); err != nil {
			return nil, fmt.Errorf("read the schema: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the schema: %w", err)
	}
	return out, nil
}

// createName is where a CREATE TABLE or CREATE INDEX statement names
// what it creates.
var createName = regexp.MustCompile(`(?is)^\s*CREATE\s+(UNIQUE\s+)?(TABLE|INDEX)\s+(IF\s+NOT\s+EXISTS\s+)?`)

// inSchema makes a CREATE TABLE or CREATE INDEX statement create in schema.
func inSchema(stmt, schema string) string {
	loc := createName.FindStringIndex(stmt)
	if loc == nil {
		return stmt
	}
	return stmt[:loc[1]] + schema + "." + stmt[loc[1]:]
}

// forgetSnapshot drops snapshot name's mark (sqlstore.Tracking.Forget).
func (s *Store) forgetSnapshot(ctx context.Context, name string) error {
	db, conn, err := s.snapshotConn(ctx, "", false)
	if err != nil {
		return err
	}
	defer db.Close()
	defer conn.Close()
	return inConnTx(ctx, conn, func(tx sqlstore.DB) error { return tracking.Forget(ctx, tx, name, snapshotTables()) })
}
