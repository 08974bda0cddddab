package postgres

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/store/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies every step newer than the schema's version in one
// transaction that first takes an advisory lock named after the schema, so
// that processes starting at once apply each step exactly once: the others
// wait, then find the steps recorded. The steps it applied are logged
// once, when they are committed: how many and the last. With partition
// PartitionMonth, the post tables are made partitioned in the same
// transaction (partitionTables: refused when they hold rows); whether
// they are is then read from the catalog into s.parts.
func (s *Store) migrate(ctx context.Context, partition string) error {
	steps, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	var done int
	var last string
	var schema *string
	var parted bool
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		done, last = 0, ""
		if err := tx.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return fmt.Errorf("postgres: open %s: %w", s.name, err)
		}
		if schema == nil {
			return fmt.Errorf("postgres: open %s: no schema of the search_path exists", s.name)
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('roost migrate ' || $1))`, *schema); err != nil {
			return fmt.Errorf("postgres: open %s: migration lock: %w", s.name, err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version bigint PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`); err != nil {
			return fmt.Errorf("postgres: open %s: %w", s.name, err)
		}
		for _, m := range steps {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.Version).Scan(&n); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.Name, err)
			}
			if n > 0 {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.Name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, time.Now().UnixMicro()); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.Name, err)
			}
			done, last = done+1, m.Name
		}
		if parted, err = isPartitioned(ctx, tx); err != nil || parted || partition == "" {
			return err
		}
		parted = true
		return partitionTables(ctx, tx)
	})
	if err == nil && done > 0 {
		s.log.Info("applied migrations", "db", s.name, "schema", *schema, "count", done, "last", last)
	}
	if err == nil && parted {
		s.parts = &partitions{pool: s.pool, log: s.log, have: map[month]bool{}}
	}
	return err
}

// Ready reports an error unless the database answers and every migration
// this binary embeds is applied.
func (s *Store) Ready(ctx context.Context) error {
	steps, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("postgres: ready: %w", unavailable(err))
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return fmt.Errorf("postgres: ready: %w", err)
	}
	if p := migration.Pending(steps, applied); len(p) > 0 {
		return fmt.Errorf("postgres: migrations not applied: %v", p)
	}
	return nil
}
