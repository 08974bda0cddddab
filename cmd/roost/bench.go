package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/roostapi/roost/gen"
	"github.com/roostapi/roost/perf"
)

func cmdBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "bench --db DB [--posts N] [--users N] [--requests N]")
	db := fs.String("db", "", "database to measure; an empty one is first filled by gen (required)")
	posts := fs.Int("posts", 1_000_000, "posts to generate when the database is empty")
	users := fs.Int("users", 20_000, "users to generate when the database is empty")
	requests := fs.Int("requests", 500, "requests per kind of page")
	seed := fs.Uint64("seed", 1, "seed for the choice of users, words and pages")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if *posts <= 0 || *users <= 0 || *requests <= 0 {
		return usageError("--posts, --users and --requests must be more than 0")
	}
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	counts, err := s.Counts(ctx)
	if err != nil {
		return err
	}
	if counts["posts"] == 0 {
		if _, err := generate(ctx, e, s, gen.Config{Seed: 1, Users: *users, Posts: *posts}); err != nil {
			return err
		}
		if counts, err = s.Counts(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "database %s: %d posts, %d users\n", *db, counts["posts"], counts["users"])
	rig, err := perf.NewRig(ctx, s)
	if err != nil {
		return err
	}
	err = rig.Report(e.stdout, perf.Config{Requests: *requests, Seed: *seed})
	return errors.Join(err, rig.Close(context.WithoutCancel(ctx)))
}
