package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"slices"
	"time"

	"github.com/roostapi/roost/internal/store/migration"
)

//go:embed migrations/*.sql migrations/billing/*.sql
var migrationFiles embed.FS

// Where the migrations of the database and of its billing file are.
const (
	migrationsDir        = "migrations"
	billingMigrationsDir = "migrations/billing"
)

// migrate brings the billing file, then the database, to the current
// schema; the database's step billingMove copies the billing tables into
// the billing file first (moveBilling). The steps this process applied
// are logged once, at the end: how many and the last.
func (s *Store) migrate(ctx context.Context) error {
	var done applied
	err := s.migrateFile(ctx, s.bill, BillingPath(s.path), billingMigrationsDir, nil, &done)
	if err == nil {
		err = s.migrateFile(ctx, s.write, s.path, migrationsDir, func(m migration.Step) error {
			if m.Version == billingMove {
				return s.moveBilling(ctx)
			}
			return nil
		}, &done)
	}
	if done.n > 0 {
		s.log.Info("applied migrations", "db", s.path, "count", done.n, "last", done.last)
	}
	return err
}

// applied counts the steps a migration applied, and names the last.
type applied struct {
	n    int
	last string
}

// migrateFile applies every step of dir newer than the version of the
// file at path, written through db, each in its own IMMEDIATE
// transaction, so that two processes opening the same file at once apply
// each step exactly once; before, when set, runs ahead of each step not
// yet applied. Each step it applies is counted in done.
func (s *Store) migrateFile(ctx context.Context, db *sql.DB, path, dir string, before func(migration.Step) error, done *applied) error {
	steps, err := migration.Load(migrationFiles, dir)
	if err != nil {
		return fmt.Errorf("sqlite: %w", err)
	}
	// What is applied is read first, without the write lock: a database
	// that is up to date (roost keys, roost backup beside a busy server)
	// opens without waiting for the server's writes.
	exists, err := hasMigrations(ctx, db)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	var applied []int
	if !exists {
		if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	} else if applied, err = appliedVersions(ctx, db, ""); err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	for _, m := range steps {
		if slices.Contains(applied, m.Version) {
			continue
		}
		if before != nil {
			if err := before(m); err != nil {
				return err
			}
		}
		ok, err := applyMigration(ctx, db, m)
		if err != nil {
			return err
		}
		if ok {
			done.n++
			done.last = m.Name
		}
	}
	return nil
}

// hasMigrations reports whether the file db writes has its
// schema_migrations table.
func hasMigrations(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master
		WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n)
	return n > 0, err
}

// appliedVersions reads the versions schema_migrations holds through db,
// in the schema named by schema ("" for main, or "billing.").
func appliedVersions(ctx context.Context, db *sql.DB, schema string) ([]int, error) {
	rows, err := db.QueryContext(ctx, `SELECT version FROM `+schema+`schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var applied []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied = append(applied, v)
	}
	return applied, rows.Err()
}

// applyMigration applies step m through db unless another process
// applied it first, and reports whether it did.
func applyMigration(ctx context.Context, db *sql.DB, m migration.Step) (bool, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, time.Now().UnixMicro()); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
	}
	return true, nil
}

// Ready reports an error unless the database answers and every migration
// this binary embeds is applied.
func (s *Store) Ready(ctx context.Context) error {
	for _, f := range []struct{ dir, schema string }{{migrationsDir, ""}, {billingMigrationsDir, "billing."}} {
		steps, err := migration.Load(migrationFiles, f.dir)
		if err != nil {
			return fmt.Errorf("sqlite: %w", err)
		}
		applied, err := appliedVersions(ctx, s.read, f.schema)
		if err != nil {
			return fmt.Errorf("sqlite: ready: %w", err)
		}
		if p := migration.Pending(steps, applied); len(p) > 0 {
			return fmt.Errorf("sqlite: migrations not applied: %v", p)
		}
	}
	return nil
}
