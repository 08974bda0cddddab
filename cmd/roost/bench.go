package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/dev/perf"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
	"github.com/roostapi/roost/internal/world/live"
)

func cmdBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "bench --db DB [--posts N] [--users N] [--requests N] "+
		"[--http [--connections N] [--duration D] [--rounds N] [--against-tuning TUNING [--against-db DB]] | --live RATE [--monitors N] [--rounds N] | --against DB [--rounds N]]")
	db := fs.String("db", "", "database to measure; an empty one is first filled by gen (required)")
	tuningFlag(fs, e)
	posts := fs.Int("posts", 1_000_000, "posts to generate when the database is empty")
	users := fs.Int("users", 20_000, "users to generate when the database is empty")
	requests := fs.Int("requests", 500, "requests per kind of page")
	seed := fs.Uint64("seed", 1, "seed for the choice of users, words and pages")
	overHTTP := fs.Bool("http", false, "serve roost and, beside it, a plain handler of the same pre-encoded pages on loopback ports, "+
		"drive both alternately (roost first 3s unmeasured, then 1s of warm-up before each run), and print requests/s of each and their ratio per page kind, "+
		"with latencies, allocations and the process's processor time per request")
	conns := fs.Int("connections", 16, "with --http: kept-alive connections of the load generator")
	duration := fs.Duration("duration", 6*time.Second, "with --http: each measured run")
	rounds := fs.Int("rounds", 2, "with --http: runs of each server per page kind (the best is reported); "+
		"with --live: rounds of a quiet and a live run, alternating which goes first")
	liveRate := fs.String("live", "", "compare pages without and with the living world writing at most RATE events "+
		"(N/s, N/m or N/h, e.g. 200/s), the admin world control making 10 posts a second beside it, and the monitor service "+
		"delivering webhooks; prints the p99 of each page kind in both, "+
		"their ratio, the events/s achieved, the time from commit to webhook POST (the world control's posts apart too), the paid pages' wait for their debits and "+
		"the living world's write times (see below)")
	against := fs.String("against", "", "a second database to measure in the same run, filled by gen as --db when empty: "+
		"every page kind (and a one-month since:/until: search) on both in turn, --rounds rounds alternating which goes first, "+
		"the same requests on both; prints p50 and p99 of each and the ratio of the second's p99 to the first's")
	monitors := fs.Int("monitors", 1000, "with --live: monitors registered for the bench key, on the most active authors")
	kinds := fs.String("kinds", "", "with --http: measure only these page kinds, comma-separated "+
		"(timeline, search Latest, list, thread, profile); all when empty")
	pageCache := fs.Int("page-cache", httpapi.DefaultPageCacheBytes>>20, "MiB of the page cache of the handler measured, as roost serve --page-cache (0: none)")
	againstTuning := fs.String("against-tuning", "", "with --http: instead of the ceiling, measure roost (--sqlite-tuning) against roost with this SQLite tuning "+
		"(on, off or a list of pieces, as --sqlite-tuning), each on its own copy of --db, and print the ratio of their requests/s")
	againstDB := fs.String("against-db", "", "with --against-tuning: the database the other roost serves (its own history, the same data), "+
		"and --db the first: no copies")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole bench (servers and load generator) to this file")
	fs.Usage = benchUsage(e, fs.Usage)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if *posts <= 0 || *users <= 0 || *requests <= 0 || *conns <= 0 || *duration <= 0 || *rounds <= 0 {
		return usageError("--posts, --users, --requests, --connections, --duration and --rounds must be more than 0")
	}
	if *against != "" && (*overHTTP || *liveRate != "") {
		return usageError("--against is a measure of its own: give it without --http and --live")
	}
	var every time.Duration
	if *liveRate != "" {
		if *overHTTP {
			return usageError("--live and --http are two different measures: give one")
		}
		var err error
		if every, err = live.ParseRate(*liveRate); err != nil {
			return usageError("--live: %v", err)
		}
	}
	var other sqlite.Tuning
	if *againstTuning != "" || *againstDB != "" {
		var err error
		if other, err = sqlite.ParseTuning(*againstTuning); err != nil || *againstTuning == "" {
			return usageError("--against-tuning: %v (want on, off or a list of pieces)", err)
		}
		if !*overHTTP || isPostgres(*db) {
			return usageError("--against-tuning measures two SQLite tunings with --http")
		}
	}
	if *monitors < 0 {
		return usageError("--monitors must be 0 or more")
	}
	if *pageCache < 0 {
		return usageError("--page-cache must be 0 (none) or more MiB")
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	cfg := gen.Config{Seed: 1, Users: *users, Posts: *posts}
	if err := benchFill(ctx, e, s, *db, cfg); err != nil {
		return err
	}
	rigCfg := perf.RigConfig{PageCacheBytes: int64(*pageCache) << 20}
	if *pageCache == 0 {
		rigCfg.PageCacheBytes = -1
	}
	fmt.Fprintf(e.stdout, "page cache: %d MiB\n", *pageCache)
	rig, err := perf.NewRigConfig(ctx, s, rigCfg)
	if err != nil {
		return err
	}
	switch {
	case *against != "":
		err = benchAgainst(ctx, e, rig, rigCfg, *db, *against, cfg, perf.Config{Requests: *requests, Seed: *seed}, *rounds)
	case every > 0:
		fmt.Fprintf(e.stdout, "%d requests of each page kind per kind of run, %d rounds of a quiet and a live run (alternating); "+
			"living world at %s with %d monitors\n", *requests, *rounds, *liveRate, *monitors)
		var rep *perf.LiveReport
		rep, err = rig.CompareLive(ctx, perf.LiveConfig{Every: every, Monitors: *monitors, Requests: *requests, Rounds: *rounds,
			Seed: *seed, Log: e.log, MonitorStore: s.Monitors(), World: s.World()}, e.stderr)
		if err == nil {
			perf.ReportLive(e.stdout, rep)
		}
	case *againstTuning != "":
		fmt.Fprintf(e.stdout, "each page kind: %d connections, %s runs after 1s of warm-up (each roost driven 3s unmeasured first), %d rounds alternating the two\n",
			*conns, *duration, *rounds)
		own, _ := s.(*sqlite.Store) // SQLite: checked above
		err = benchPair(ctx, e, own, own.Tuning(), other, *againstDB, perf.HTTPConfig{Connections: *conns, Duration: *duration,
			Rounds: *rounds, Seed: *seed, Kinds: splitKinds(*kinds)}, rigCfg)
	case *overHTTP:
		fmt.Fprintf(e.stdout, "each page kind: %d connections, %s runs after 1s of warm-up (roost driven 3s unmeasured first), %d rounds alternating roost and the ceiling\n",
			*conns, *duration, *rounds)
		var cs []perf.Comparison
		cs, err = rig.CompareHTTP(ctx, perf.HTTPConfig{Connections: *conns, Duration: *duration, Rounds: *rounds, Seed: *seed,
			Kinds: splitKinds(*kinds)}, e.stderr)
		if err == nil {
			perf.ReportHTTP(e.stdout, cs)
		}
	default:
		err = rig.Report(e.stdout, perf.Config{Requests: *requests, Seed: *seed})
	}
	return errors.Join(err, rig.Close(context.WithoutCancel(ctx)))
}

// benchFill fills an empty database with the network of cfg and prints
// what the database holds.
func benchFill(ctx context.Context, e *env, s store, db string, cfg gen.Config) error {
	counts, err := s.Counts(ctx)
	if err != nil {
		return err
	}
	if counts["posts"] == 0 {
		if _, err := generate(ctx, e, s, cfg); err != nil {
			return err
		}
		if counts, err = s.Counts(ctx); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "database %s: %d posts, %d users\n", db, counts["posts"], counts["users"])
	return nil
}

// benchAgainst measures the pages of rig (over db) and of a rig over the
// database other, filled alike, in the same run (see perf.Rig.Against).
func benchAgainst(ctx context.Context, e *env, rig *perf.Rig, rigCfg perf.RigConfig, db, other string, cfg gen.Config,
	pc perf.Config, rounds int) error {
	s, err := openStore(ctx, e, other)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := benchFill(ctx, e, s, other, cfg); err != nil {
		return err
	}
	rig2, err := perf.NewRigConfig(ctx, s, rigCfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d requests of each page kind on each database per round, %d rounds alternating which goes first\n",
		pc.Requests, rounds)
	pairs, err := rig.Against(rig2, pc, rounds)
	if err == nil {
		perf.ReportAgainst(e.stdout, db, other, pairs)
	}
	return errors.Join(err, rig2.Close(context.WithoutCancel(ctx)))
}

// splitKinds reads --kinds: names separated by commas, spaces around them dropped.
func splitKinds(s string) []string {
	var out []string
	for k := range strings.SplitSeq(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// startCPUProfile writes a CPU profile to path until the returned func is called.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// benchUsage adds what --live measures to the flags' usage.
func benchUsage(e *env, flags func()) func() {
	return func() {
		flags()
		fmt.Fprint(e.stdout, `
With --live RATE, pages are measured in-process as without it, in runs of
two kinds: quiet (no living world, no monitor service: roost serve without
--live) and live (the living world writing at most RATE events as roost
serve --live writes them: on SQLite the ticks due every 50 ms in one
transaction, on PostgreSQL one transaction a tick; and the monitor service
dispatching and delivering webhooks as roost serve runs it), each kind
getting --requests pages of every kind over --rounds rounds, the order
alternating. A live run starts the world and the service, waits 1 s,
measures, stops the world, and waits for its events to be delivered before
the next run. The bench key gets --monitors monitors (7% user_following,
7% user_profile, 1% search_keyword on a common word with a refresh of 1 s,
the rest user_tweets, on the authors of the newest posts, most posts
first) and a default webhook pointing at a receiver in the process, which
checks each signature.

Commit time: when the living world's Write returned (its transaction
committed), as the bench's wrapper around the writer sees it; the POST's
time: when it reached the receiver. A search monitor's events wait for its
next refresh, so they are shown apart from the user monitors'. Ticks the
writer could not keep up with are dropped (not made later) and counted.
The paid pages' wait for their debits (decided and committed durably) is
read off the handler's roost_debit_seconds histogram for each kind of run
(p50/p99 as bucket upper bounds); the living world's writes are timed by
the same wrapper: on SQLite they share the disk with the debits (each file
has its own writer: the data's, the billing file's).
The monitors and the webhook are deleted at the end and the key revoked;
the events written stay in the database, as those of roost live.
`)
	}
}
