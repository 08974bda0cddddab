package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database, as of one moment, to a
// new file at path (VACUUM INTO): the database stays in use meanwhile
// (WAL readers never block its writer), and the copy is compact and holds
// everything committed before the moment, nothing after it.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("sqlite: backup: %s exists: choose a new file", path)
	}
	// A connection of its own (query_only refuses VACUUM INTO) that
	// writes nothing to the database.
	db, err := openDB(dsn(s.path, false))
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		os.Remove(path)
		return fmt.Errorf("sqlite: backup to %s: %w", path, err)
	}
	return nil
}

// Restore replaces the database at to with the backup at from, after
// checking that the backup is a whole roost database. Nothing may have
// the database at to open (stop roost serve first). The copy is written
// beside to and renamed over it, so a failure leaves to as it was.
func Restore(ctx context.Context, from, to string) error {
	if _, err := os.Stat(from); err != nil {
		return fmt.Errorf("sqlite: restore: %w", err)
	}
	src, err := openDB(dsn(from, false))
	if err != nil {
		return fmt.Errorf("sqlite: restore: %w", err)
	}
	defer src.Close()
	var check string
	if err := src.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return fmt.Errorf("sqlite: restore: %s is not a SQLite database: %w", from, err)
	}
	if check != "ok" {
		return fmt.Errorf("sqlite: restore: %s fails its integrity check: %s", from, check)
	}
	var versions int
	if err := src.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&versions); err != nil || versions == 0 {
		return fmt.Errorf("sqlite: restore: %s is not a roost database", from)
	}
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".restore")
	os.Remove(tmp)
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("sqlite: restore into %s: %w", to, err)
	}
	// The old database's write-ahead log must not be replayed into the
	// restored file.
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Remove(to + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(tmp)
			return fmt.Errorf("sqlite: restore: %w", err)
		}
	}
	if err := os.Rename(tmp, to); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("sqlite: restore: %w", err)
	}
	return nil
}
