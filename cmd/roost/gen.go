package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/world/gen"
)

func cmdGen(ctx context.Context, e *env, args []string) error {
	def := gen.DefaultConfig()
	fs := newFlags(e, "gen", "gen --db DB [--seed N] [--users N] [--posts N]")
	db := fs.String("db", "", "database to write into: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	seed := fs.Int64("seed", def.Seed, "random seed; the same seed and sizes give the same network (recorded in the database for roost live and serve --live)")
	users := fs.Int("users", def.Users, "number of accounts")
	posts := fs.Int("posts", def.Posts, "number of posts of every kind (replies, quotes, reposts included)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if *users <= 0 || *posts <= 0 {
		return usageError("--users and --posts must be more than 0")
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	sum, err := generate(ctx, e, s, gen.Config{Seed: *seed, Users: *users, Posts: *posts})
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(sum)
}

// generate writes a network into s, records its seed for the living
// world and reports progress on stderr.
func generate(ctx context.Context, e *env, s store, cfg gen.Config) (gen.Summary, error) {
	start := time.Now()
	p := newBar(e, "generating", int64(cfg.Posts), "posts")
	sum, err := gen.Generate(ctx, s, cfg, func(n int) { p.Set(int64(n)) })
	p.Finish()
	if err != nil {
		return sum, fmt.Errorf("generate: %w", err)
	}
	if err := s.World().SetSeed(ctx, cfg.Seed); err != nil {
		return sum, fmt.Errorf("generate: %w", err)
	}
	el := time.Since(start)
	fmt.Fprintf(e.stderr, "generated %d users and %d posts in %s (%.0f posts/s)\n",
		sum.Users, sum.Posts, el.Round(time.Millisecond), float64(sum.Posts)/el.Seconds())
	return sum, nil
}
