package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one numbered schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded steps in order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, fmt.Errorf("postgres: list migrations: %w", err)
	}
	var out []migration
	for _, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("postgres: migration %q is not named NNNN_name.sql", base)
		}
		body, err := migrationFiles.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("postgres: read migration %s: %w", base, err)
		}
		out = append(out, migration{version: v, name: base, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies every step newer than the schema's version in one
// transaction that first takes an advisory lock named after the schema, so
// that processes starting at once apply each step exactly once: the others
// wait, then find the steps recorded.
func (s *Store) migrate(ctx context.Context) error {
	steps, err := migrations()
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var schema *string
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
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, m.version).Scan(&n); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.name, err)
			}
			if n > 0 {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.version, m.name, time.Now().UnixMicro()); err != nil {
				return fmt.Errorf("postgres: migration %s: %w", m.name, err)
			}
			s.log.Info("applied migration", "db", s.name, "schema", *schema, "migration", m.name)
		}
		return nil
	})
}
