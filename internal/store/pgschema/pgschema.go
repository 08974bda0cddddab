// Package pgschema makes a fresh, empty PostgreSQL schema for one test or
// one test server, and drops it afterwards with the schemas of its world
// snapshots (package postgres keeps a snapshot of schema S in S_snap_NAME).
package pgschema

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// Create creates an empty schema named prefix followed by 12 random hex
// digits in the database at base, and returns base with its search_path
// set to it, and drop, which drops it and its snapshots' schemas.
func Create(ctx context.Context, base, prefix string) (string, func(context.Context) error, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", nil, fmt.Errorf("pgschema: parse the database URL: %w", err)
	}
	var b [6]byte
	rand.Read(b[:])
	schema := prefix + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", nil, fmt.Errorf("pgschema: connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return "", nil, fmt.Errorf("pgschema: create schema %s: %w", schema, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func(ctx context.Context) error { return drop(ctx, base, schema) }, nil
}

// drop drops schema and the schemas of its snapshots.
func drop(ctx context.Context, base, schema string) error {
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return fmt.Errorf("pgschema: drop schema %s: %w", schema, err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE nspname = $1 OR starts_with(nspname, $2)`,
		schema, schema+"_snap_")
	if err != nil {
		return fmt.Errorf("pgschema: schemas of %s: %w", schema, err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("pgschema: schemas of %s: %w", schema, err)
	}
	var errs []error
	for _, s := range names {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s}.Sanitize()+" CASCADE"); err != nil {
			errs = append(errs, fmt.Errorf("pgschema: drop schema %s: %w", s, err))
		}
	}
	return errors.Join(errs...)
}
