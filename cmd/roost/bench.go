package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/roostapi/roost/gen"
	"github.com/roostapi/roost/perf"
)

func cmdBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "bench --db DB [--posts N] [--users N] [--requests N] [--http [--connections N] [--duration D] [--rounds N]]")
	db := fs.String("db", "", "database to measure; an empty one is first filled by gen (required)")
	posts := fs.Int("posts", 1_000_000, "posts to generate when the database is empty")
	users := fs.Int("users", 20_000, "users to generate when the database is empty")
	requests := fs.Int("requests", 500, "requests per kind of page")
	seed := fs.Uint64("seed", 1, "seed for the choice of users, words and pages")
	overHTTP := fs.Bool("http", false, "serve roost and, beside it, a plain handler of the same pre-encoded pages on loopback ports, "+
		"drive both alternately, and print requests/s of each and their ratio per page kind")
	conns := fs.Int("connections", 16, "with --http: kept-alive connections of the load generator")
	duration := fs.Duration("duration", 6*time.Second, "with --http: each measured run")
	rounds := fs.Int("rounds", 2, "with --http: runs of each server per page kind (the best is reported)")
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if *posts <= 0 || *users <= 0 || *requests <= 0 || *conns <= 0 || *duration <= 0 || *rounds <= 0 {
		return usageError("--posts, --users, --requests, --connections, --duration and --rounds must be more than 0")
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
	if *overHTTP {
		fmt.Fprintf(e.stdout, "each page kind: %d connections, %s runs after 1s of warm-up, %d rounds alternating roost and the ceiling\n",
			*conns, *duration, *rounds)
		var cs []perf.Comparison
		cs, err = rig.CompareHTTP(ctx, perf.HTTPConfig{Connections: *conns, Duration: *duration, Rounds: *rounds, Seed: *seed}, e.stderr)
		if err == nil {
			perf.ReportHTTP(e.stdout, cs)
		}
	} else {
		err = rig.Report(e.stdout, perf.Config{Requests: *requests, Seed: *seed})
	}
	return errors.Join(err, rig.Close(context.WithoutCancel(ctx)))
}
