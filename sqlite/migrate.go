package sqlite

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/roostapi/roost/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrate applies every step newer than the database's version, each in
// its own IMMEDIATE transaction, so that two processes opening the same
// file at once apply each step exactly once.
func (s *Store) migrate(ctx context.Context) error {
	steps, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	// What is applied is read first, without the write lock: a database
	// that is up to date (roost keys, roost backup beside a busy server)
	// opens without waiting for the server's writes.
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", s.path, err)
	}
	if applied == nil {
		if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("sqlite: open %s: %w", s.path, err)
		}
	}
	for _, m := range steps {
		if applied[m.Version] {
			continue
		}
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations reads the versions applied; nil when the database has
// no schema_migrations table yet.
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	var n int
	if err := s.write.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	rows, err := s.write.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

func (s *Store) applyMigration(ctx context.Context, m migration.Step) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, time.Now().UnixMicro()); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	s.log.Info("applied migration", "db", s.path, "migration", m.Name)
	return nil
}

// Ready reports an error unless the database answers and every migration
// this binary embeds is applied.
func (s *Store) Ready(ctx context.Context) error {
	steps, err := migration.Load(migrationFiles, "migrations")
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	var applied []int
	rows, err := s.read.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("sqlite: ready: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return fmt.Errorf("sqlite: ready: %w", err)
		}
		applied = append(applied, v)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlite: ready: %w", err)
	}
	if p := migration.Pending(steps, applied); len(p) > 0 {
		return fmt.Errorf("sqlite: migrations not applied: %v", p)
	}
	return nil
}
