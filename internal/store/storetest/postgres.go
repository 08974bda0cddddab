package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresURL is the test database named by ROOST_TEST_POSTGRES. Unset, the
// test is skipped, unless CI=true, where it fails: CI must run on both
// engines. Set but unreachable, it fails.
func PostgresURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("ROOST_TEST_POSTGRES")
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ROOST_TEST_POSTGRES is not set; CI runs the store suite on PostgreSQL too")
		}
		t.Skip("ROOST_TEST_POSTGRES is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable): skipping PostgreSQL")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("ROOST_TEST_POSTGRES: cannot connect: %v", err)
	}
	conn.Close(ctx)
	return u
}

// FreshSchema creates an empty schema roost_test_<random> in the database
// at base, drops it when the test ends, and returns base with its
// search_path set to it.
func FreshSchema(t testing.TB, base string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	schema := "roost_test_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test database: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		// The schemas of the store's world snapshots (package postgres).
		rows, err := conn.Query(ctx, `SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)`, schema+"_snap_")
		if err != nil {
			t.Errorf("snapshots of schema %s: %v", schema, err)
			return
		}
		snaps, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Errorf("snapshots of schema %s: %v", schema, err)
		}
		for _, s := range snaps {
			if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s}.Sanitize()+" CASCADE"); err != nil {
				t.Errorf("drop schema %s: %v", s, err)
			}
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse ROOST_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
