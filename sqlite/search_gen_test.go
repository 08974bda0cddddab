package sqlite

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"roost/gen"
)

// TestGenerateBenchDB creates a generated database for BenchmarkSearchMix
// when ROOST_GEN_DB names the file to create (ROOST_GEN_POSTS posts,
// default 1,000,000; ROOST_GEN_USERS users, default posts/50). It stands in
// for `roost gen --db FILE --posts N` and is skipped otherwise:
//
//	ROOST_GEN_DB=/tmp/search10m.db ROOST_GEN_POSTS=10000000 \
//	    go test ./sqlite -run TestGenerateBenchDB -timeout 6h
func TestGenerateBenchDB(t *testing.T) {
	path := os.Getenv("ROOST_GEN_DB")
	if path == "" {
		t.Skip("set ROOST_GEN_DB to generate a benchmark database")
	}
	posts := envInt(t, "ROOST_GEN_POSTS", 1_000_000)
	users := envInt(t, "ROOST_GEN_USERS", max(posts/50, gen.DefaultUsers))
	users = min(users, gen.MaxUsers)
	ctx := context.Background()
	s, err := Open(ctx, path, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	last := time.Now()
	sum, err := gen.Generate(ctx, s, gen.Config{Seed: 1, Users: users, Posts: posts, BatchSize: 20000}, func(n int) {
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			t.Logf("%d posts after %s", n, time.Since(start).Round(time.Second))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated %d users and %d posts in %s", sum.Users, sum.Posts, time.Since(start).Round(time.Second))
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
