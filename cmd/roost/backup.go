package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/roostapi/roost/internal/store/sqlite"
)

// errUsePgDump answers backup and restore of PostgreSQL.
var errUsePgDump = errors.New("a PostgreSQL database is backed up with its own tools: " +
	"pg_dump --format=custom --file roost.dump URL, and restored with pg_restore --dbname URL roost.dump " +
	"(or copied with 'roost copy --from URL --to backup.db')")

func cmdBackup(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "backup", "backup --db PATH --to FILE")
	db := fs.String("db", defaultDB, "the SQLite database to copy (it may be serving meanwhile)")
	to := fs.String("to", "", "the new file to write, and its billing file FILE-billing beside it (required; neither may exist)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *to == "" {
		return usageError("--to is required")
	}
	if isPostgres(*db) {
		return errUsePgDump
	}
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	s, err := sqlite.Open(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Backup(ctx, *to); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "backed up %s to %s and %s\n", *db, *to, sqlite.BillingPath(*to))
	return nil
}

func cmdRestore(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "restore", "restore --from FILE --db PATH [--force]")
	from := fs.String("from", "", "a backup made by 'roost backup' (required; its FILE-billing is restored with it)")
	db := fs.String("db", defaultDB, "the SQLite database to replace; stop 'roost serve' on it first")
	force := fs.Bool("force", false, "replace a database that exists")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *from == "" {
		return usageError("--from is required")
	}
	if isPostgres(*db) {
		return errUsePgDump
	}
	if _, err := os.Stat(*db); err == nil && !*force {
		return usageError("%s exists: stop 'roost serve' on it and add --force to replace it", *db)
	}
	if err := sqlite.Restore(ctx, *from, *db); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "restored %s from %s\n", *db, *from)
	return nil
}
