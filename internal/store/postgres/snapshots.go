package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Snapshots (social.Snapshots) are schemas of their own beside the
// store's: SCHEMA_snap_NAME, SCHEMA being the store's (current_schema(),
// usually public), holding a copy of each of sqlstore.WorldTables (CREATE
// TABLE … AS TABLE, without indexes: a restore reads each whole). A
// restore is one transaction: it takes the deletions lock exclusively
// (writers wait for it, as for a deletion) and writes only the rows that
// differ (sqlstore.RestoreWorld). The posts' tsvectors are columns of
// their rows, so search needs nothing rebuilt.

// columnsSQL reads a table of the store's schema's columns and their
// places in its primary key (sqlstore.RestoreWorld).
const columnsSQL = `SELECT a.attname::text, coalesce((SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
		WHERE k.attnum = a.attnum), 0)::int
	FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
	WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

// snapshotPrefix is what the schemas of the store's snapshots begin with.
func (s *Store) snapshotPrefix(ctx context.Context) (string, error) {
	var schema string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return "", fmt.Errorf("current schema: %w", unavailable(err))
	}
	return schema + "_snap_", nil
}

// snapshotSchema is the schema of snapshot name, checked.
func (s *Store) snapshotSchema(ctx context.Context, name string) (string, error) {
	if err := sqlstore.CheckSnapshotName(name); err != nil {
		return "", err
	}
	prefix, err := s.snapshotPrefix(ctx)
	if err != nil {
		return "", err
	}
	if len(prefix)+len(name) > 63 {
		return "", fmt.Errorf("snapshot name %q: at most %d characters beside schema %s: %w",
			name, 63-len(prefix), strings.TrimSuffix(prefix, "_snap_"), social.ErrInvalid)
	}
	return prefix + name, nil
}

// schemaExists reports whether schema exists.
func (s *Store) schemaExists(ctx context.Context, schema string) (bool, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil {
		return false, fmt.Errorf("schema %s: %w", schema, unavailable(err))
	}
	return n > 0, nil
}

// SaveSnapshot copies the world into a new schema, in one transaction
// that reads one state of the database.
func (s *Store) SaveSnapshot(ctx context.Context, name string) (social.Snapshot, error) {
	schema, err := s.snapshotSchema(ctx, name)
	if err != nil {
		return social.Snapshot{}, err
	}
	var snap social.Snapshot
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		q := pgx.Identifier{schema}.Sanitize()
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+q); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42P06" { // duplicate_schema
				return fmt.Errorf("snapshot %q exists (DELETE it first): %w", name, social.ErrConflict)
			}
			return fmt.Errorf("create schema: %w", err)
		}
		for _, t := range sqlstore.WorldTables {
			if _, err := tx.Exec(ctx, `CREATE TABLE `+q+`.`+t+` AS TABLE `+t); err != nil {
				return fmt.Errorf("copy %s: %w", t, err)
			}
		}
		if _, err := tx.Exec(ctx, sqlstore.SnapshotInfoDDL(q)); err != nil {
			return fmt.Errorf("create the snapshot's info: %w", err)
		}
		snap, err = sqlstore.WriteSnapshotInfo(ctx, txDB{tx}, q, name, time.Now())
		return err
	})
	if err != nil {
		return snap, fmt.Errorf("postgres: snapshot %s: %w", name, unavailable(err))
	}
	return snap, nil
}

// RestoreSnapshot puts the world back as snapshot name holds it.
func (s *Store) RestoreSnapshot(ctx context.Context, name string) (social.Snapshot, error) {
	schema, err := s.snapshotSchema(ctx, name)
	if err != nil {
		return social.Snapshot{}, err
	}
	if ok, err := s.schemaExists(ctx, schema); err != nil || !ok {
		return social.Snapshot{}, cmpErr(err, fmt.Errorf("snapshot %q: %w", name, social.ErrNotFound))
	}
	q := pgx.Identifier{schema}.Sanitize()
	var snap social.Snapshot
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if snap, err = sqlstore.ReadSnapshotInfo(ctx, txDB{tx}, q); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, deleter.Lock); err != nil {
			return fmt.Errorf("deletions lock: %w", err)
		}
		return sqlstore.RestoreWorld(ctx, txDB{tx}, q, sqlstore.WorldTables, columnsSQL)
	})
	if err != nil {
		return snap, fmt.Errorf("postgres: restore snapshot %s: %w", name, unavailable(err))
	}
	return snap, nil
}

// ListSnapshots reads the info of every snapshot schema of the store's.
func (s *Store) ListSnapshots(ctx context.Context) ([]social.Snapshot, error) {
	prefix, err := s.snapshotPrefix(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname`, prefix)
	if err != nil {
		return nil, fmt.Errorf("postgres: snapshots: %w", unavailable(err))
	}
	schemas, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("postgres: snapshots: %w", unavailable(err))
	}
	out := []social.Snapshot{}
	for _, schema := range schemas {
		snap, err := sqlstore.ReadSnapshotInfo(ctx, s.primary.DB, pgx.Identifier{schema}.Sanitize())
		if err != nil && !errors.Is(err, social.ErrConflict) {
			return nil, fmt.Errorf("postgres: snapshot %s: %w", strings.TrimPrefix(schema, prefix), err)
		}
		out = append(out, snap)
	}
	return out, nil
}

// DropSnapshot drops a snapshot's schema.
func (s *Store) DropSnapshot(ctx context.Context, name string) error {
	schema, err := s.snapshotSchema(ctx, name)
	if err != nil {
		return err
	}
	if ok, err := s.schemaExists(ctx, schema); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("snapshot %q: %w", name, social.ErrNotFound))
	}
	if _, err := s.pool.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
		return fmt.Errorf("postgres: drop snapshot %s: %w", name, unavailable(err))
	}
	return nil
}

// cmpErr is err when there is one, else alt.
func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
