package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database to a new file at path
// and of its billing file to BillingPath(path) (VACUUM INTO): the database
// stays in use meanwhile (WAL readers never block its writer), and each
// copy is compact and holds everything its file committed before the
// moment it was taken. The billing file is copied second, so its keys and
// ledger are never older than the data beside them.
func (s *Store) Backup(ctx context.Context, path string) error {
	for _, p := range []string{path, BillingPath(path)} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("sqlite: backup: %s exists: choose a new file", p)
		}
	}
	// A connection of its own (query_only refuses VACUUM INTO) that
	// writes nothing to the database.
	db, err := attached(s.path, false)
	if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	defer single(db).Close()
	for _, c := range []struct{ schema, to string }{{"main", path}, {"billing", BillingPath(path)}} {
		if _, err := db.ExecContext(ctx, `VACUUM `+c.schema+` INTO ?`, c.to); err != nil {
			os.Remove(path)
			os.Remove(BillingPath(path))
			return fmt.Errorf("sqlite: backup to %s: %w", c.to, err)
		}
	}
	return nil
}

// Restore replaces the database at to and its billing file with the
// backup at from and its billing file, after checking that each is a
// whole roost database. A backup of one file, made before roost kept
// billing apart, is restored alone: opening it moves its keys and ledger
// into a new billing file. Nothing may have the database at to open (stop
// roost serve first). The copies are written beside to and renamed over
// it, so a failed check or copy leaves to as it was.
func Restore(ctx context.Context, from, to string) error {
	src, moved, err := openBackup(ctx, from)
	if err != nil {
		return err
	}
	defer src.Close()
	type copyTo struct {
		src *sql.DB
		to  string
	}
	// A file that is a symbolic link (a billing file on another disk) is
	// restored where the link points, and the link kept.
	dbTo, billTo := linkTarget(to), linkTarget(BillingPath(to))
	files := []copyTo{{src, dbTo}}
	if _, err := os.Stat(BillingPath(from)); err == nil {
		bsrc, _, err := openBackup(ctx, BillingPath(from))
		if err != nil {
			return err
		}
		defer bsrc.Close()
		files = append(files, copyTo{bsrc, billTo})
	} else if moved {
		return fmt.Errorf("sqlite: restore: %s has no billing file %s beside it: copy the backup's two files together",
			from, BillingPath(from))
	}
	var tmps []string
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	for _, f := range files {
		tmp := filepath.Join(filepath.Dir(f.to), "."+filepath.Base(f.to)+".restore")
		os.Remove(tmp)
		tmps = append(tmps, tmp)
		if _, err := f.src.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
			return fmt.Errorf("sqlite: restore into %s: %w", f.to, err)
		}
	}
	// The old files' write-ahead logs must not be replayed into the
	// restored ones; a billing file the backup lacks is made anew.
	stale := []string{dbTo + "-wal", dbTo + "-shm", billTo + "-wal", billTo + "-shm"}
	if len(files) == 1 {
		stale = append(stale, billTo)
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("sqlite: restore: %w", err)
		}
	}
	for i := len(files) - 1; i >= 0; i-- { // the billing file first
		if err := os.Rename(tmps[i], files[i].to); err != nil {
			return fmt.Errorf("sqlite: restore: %w", err)
		}
	}
	return nil
}

// linkTarget is the file a symbolic link at path points to (followed to
// the end, relative to the link's folder), where SQLite keeps the file's
// log too; path itself when it is no link.
func linkTarget(path string) string {
	for range 40 { // the kernel's own limit on links in a row
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path
		}
		next, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(next) {
			next = filepath.Join(filepath.Dir(path), next)
		}
		path = next
	}
	return path
}

// openBackup opens the file at path, a backup to restore, after checking
// that it is a whole roost database (or billing file), and reports whether
// its billing tables moved out of it. The caller closes it.
func openBackup(ctx context.Context, path string) (*sql.DB, bool, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, false, fmt.Errorf("sqlite: restore: %w", err)
	}
	db, err := openOne(dsn(path, false))
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: restore: %w", err)
	}
	moved, err := checkBackup(ctx, db, path)
	if err != nil {
		db.Close()
		return nil, false, err
	}
	return db, moved, nil
}

// checkBackup checks through db that the file at path is a whole roost
// database (or billing file) and reports whether its billing tables moved
// out of it.
func checkBackup(ctx context.Context, db *sql.DB, path string) (bool, error) {
	var check string
	if err := db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil {
		return false, fmt.Errorf("sqlite: restore: %s is not a SQLite database: %w", path, err)
	}
	if check != "ok" {
		return false, fmt.Errorf("sqlite: restore: %s fails its integrity check: %s", path, check)
	}
	var versions, m int
	if err := db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE version = ?) FROM schema_migrations`,
		billingMove).Scan(&versions, &m); err != nil || versions == 0 {
		return false, fmt.Errorf("sqlite: restore: %s is not a roost database", path)
	}
	return m > 0, nil
}
