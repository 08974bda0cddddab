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
// TABLE … AS TABLE, then its primary key, by which a restore finds the
// rows it copies back). While snapshots exist, the store tracks the keys
// written in those tables (sqlstore.Tracking). A restore is one
// transaction: it takes the deletions lock and the snapshots lock
// exclusively (writers wait for it, as for a deletion) and writes only
// the rows of the keys written since the snapshot
// (sqlstore.Tracking.Restore). The posts' tsvectors are columns of their
// rows, so search needs nothing rebuilt.

// columnsSQL reads a table of the store's schema's columns and their
// places in its primary key (sqlstore.Tracking). A table partitioned by
// month has no key of its own: each partition has the same one, read from
// the first partition that has a key (a foreign partition has none).
const columnsSQL = `WITH t AS (SELECT to_regclass(?) AS rel),
	k AS (SELECT coalesce((SELECT h.inhrelid FROM pg_inherits h JOIN pg_index pi ON pi.indrelid = h.inhrelid AND pi.indisprimary
		WHERE h.inhparent = t.rel ORDER BY h.inhrelid LIMIT 1), t.rel) AS rel FROM t)
	SELECT a.attname::text, coalesce((SELECT c.n FROM pg_index i, unnest(i.indkey::int2[]) WITH ORDINALITY AS c(attnum, n), pg_attribute ka
		WHERE i.indrelid = k.rel AND i.indisprimary AND ka.attrelid = k.rel AND ka.attnum = c.attnum AND ka.attname = a.attname), 0)::int
	FROM t, k, pg_attribute a
	WHERE a.attrelid = t.rel AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

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
// that reads one state of the database, after a transaction of its own
// that starts tracking changes and advances the generation (the
// snapshot's mark).
func (s *Store) SaveSnapshot(ctx context.Context, name string) (social.Snapshot, error) {
	schema, err := s.snapshotSchema(ctx, name)
	if err != nil {
		return social.Snapshot{}, err
	}
	var mark int64
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, snapshotLock); err != nil {
			return fmt.Errorf("snapshots lock: %w", err)
		}
		if err := tracking.Track(ctx, txDB{tx}, sqlstore.WorldTables); err != nil {
			return err
		}
		mark, err = tracking.NextMark(ctx, txDB{tx})
		return err
	})
	if err != nil {
		return social.Snapshot{}, fmt.Errorf("postgres: snapshot %s: %w", name, unavailable(err))
	}
	snap, err := s.saveSnapshot(ctx, name, schema, mark)
	if err != nil {
		// Tracking stops if no other snapshot is marked.
		bg := context.WithoutCancel(ctx)
		ferr := pgx.BeginFunc(bg, s.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(bg, snapshotLock); err != nil {
				return fmt.Errorf("snapshots lock: %w", err)
			}
			return tracking.Forget(bg, txDB{tx}, name, sqlstore.WorldTables)
		})
		return snap, errors.Join(err, ferr)
	}
	return snap, nil
}

// saveSnapshot copies the world into schema, and records its mark.
func (s *Store) saveSnapshot(ctx context.Context, name, schema string, mark int64) (social.Snapshot, error) {
	var snap social.Snapshot
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
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
			key, err := sqlstore.TableKey(ctx, txDB{tx}, columnsSQL, t)
			if err != nil {
				return err
			}
			if len(key) > 0 {
				if _, err := tx.Exec(ctx, `ALTER TABLE `+q+`.`+t+` ADD PRIMARY KEY (`+strings.Join(key, ", ")+`)`); err != nil {
					return fmt.Errorf("key %s: %w", t, err)
				}
			}
		}
		if _, err := tx.Exec(ctx, sqlstore.SnapshotInfoDDL(q)); err != nil {
			return fmt.Errorf("create the snapshot's info: %w", err)
		}
		var err error
		if snap, err = sqlstore.WriteSnapshotInfo(ctx, txDB{tx}, q, name, time.Now()); err != nil {
			return err
		}
		return sqlstore.SetMark(ctx, txDB{tx}, name, mark)
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
		// The locks before the snapshot's tables, as a drop takes them.
		if _, err := tx.Exec(ctx, deleter.Lock); err != nil {
			return fmt.Errorf("deletions lock: %w", err)
		}
		if _, err := tx.Exec(ctx, snapshotLock); err != nil {
			return fmt.Errorf("snapshots lock: %w", err)
		}
		if snap, err = sqlstore.ReadSnapshotInfo(ctx, txDB{tx}, q); err != nil {
			return err
		}
		return tracking.Restore(ctx, txDB{tx}, q, name, sqlstore.WorldTables)
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

// DropSnapshot drops a snapshot's schema and its mark; the store stops
// tracking changes when no marked snapshot is left.
func (s *Store) DropSnapshot(ctx context.Context, name string) error {
	schema, err := s.snapshotSchema(ctx, name)
	if err != nil {
		return err
	}
	if ok, err := s.schemaExists(ctx, schema); err != nil || !ok {
		return cmpErr(err, fmt.Errorf("snapshot %q: %w", name, social.ErrNotFound))
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The lock before the schema, as a restore takes it.
		if _, err := tx.Exec(ctx, snapshotLock); err != nil {
			return fmt.Errorf("snapshots lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			return err
		}
		return tracking.Forget(ctx, txDB{tx}, name, sqlstore.WorldTables)
	})
	if err != nil {
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
