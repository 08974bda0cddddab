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
// search_path set to it. With ROOST_TEST_PG_PARTITION=month the URL also
// asks for partitioned post tables (partition=month), so that every test
// opening it runs on a partitioned database.
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
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse ROOST_TEST_POSTGRES: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	if p := os.Getenv("ROOST_TEST_PG_PARTITION"); p != "" {
		q.Set("partition", p)
	}
	u.RawQuery = q.Encode()
	return u.String()
}
