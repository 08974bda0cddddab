package storetest

import (
	"context"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/store/pgschema"
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
// at base, drops it (with its world snapshots' schemas) when the test
// ends, and returns base with its search_path set to it. With
// ROOST_TEST_PG_PARTITION=month the URL also asks for partitioned post
// tables (partition=month), so that every test opening it runs on a
// partitioned database.
func FreshSchema(t testing.TB, base string) string {
	t.Helper()
	u, drop, err := pgschema.Create(context.Background(), base, "roost_test_")
	if err != nil {
		t.Fatalf("fresh schema: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(context.Background()); err != nil {
			t.Error(err)
		}
	})
	if p := os.Getenv("ROOST_TEST_PG_PARTITION"); p != "" {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatalf("parse the fresh schema's URL: %v", err)
		}
		q := pu.Query()
		q.Set("partition", p)
		pu.RawQuery = q.Encode()
		u = pu.String()
	}
	return u
}
