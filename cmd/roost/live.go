package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/world/live"
)

// liveGroup is how many ticks roost live writes in one transaction when
// no rate holds it back.
const liveGroup = 64

// openLive opens the living world of store s and says on stderr where it
// starts.
func openLive(ctx context.Context, e *env, s store) (*live.World, error) {
	lw, err := live.Open(ctx, s.World(), s, e.log)
	if err != nil {
		return nil, err
	}
	seed, recorded := lw.Seed()
	from := "the seed roost gen recorded"
	if !recorded {
		from = "no seed recorded (not made by roost gen): seed 0"
	}
	fmt.Fprintf(e.stderr, "living world of seed %d (%s), after tick %d\n", seed, from, lw.Tick())
	return lw, nil
}

func cmdLive(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "live", "live --db DB --events N [--rate RATE]")
	db := fs.String("db", "", "database to move: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	events := fs.Int("events", 0, "events to make, one per tick, continuing from the last tick written (required)")
	rate := fs.String("rate", "", "at most this many events: N/s, N/m or N/h (default: as fast as the database takes them)")
	fs.Usage = liveUsage(e, fs.Usage)
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if *events <= 0 {
		return usageError("--events must be more than 0")
	}
	var every time.Duration
	if *rate != "" {
		var err error
		if every, err = live.ParseRate(*rate); err != nil {
			return usageError("--rate: %v", err)
		}
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	lw, err := openLive(ctx, e, s)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(e.stdout)
	start := time.Now()
	// As fast as the database takes them: the ticks in transactions of up
	// to liveGroup, the same data as one by one; at a rate, one a tick.
	group := liveGroup
	var tk *time.Ticker
	if every > 0 {
		group, tk = 1, time.NewTicker(every)
		defer tk.Stop()
	}
	for left := *events; left > 0; {
		if tk != nil && left < *events {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tk.C:
			}
		}
		evs, err := lw.Steps(ctx, min(left, group))
		for _, ev := range evs {
			if err := enc.Encode(ev); err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
		left -= len(evs)
	}
	el := time.Since(start)
	fmt.Fprintf(e.stderr, "made %d events (to tick %d) in %s (%.0f events/s)\n", *events, lw.Tick(),
		el.Round(time.Millisecond), float64(*events)/el.Seconds())
	return nil
}

// liveUsage adds what an event is to the flags' usage.
func liveUsage(e *env, flags func()) func() {
	return func() {
		flags()
		fmt.Fprint(e.stdout, `
Each event is one tick of the living world, written with the tick's
number: a post, reply, quote, repost, like, follow, unfollow or profile
edit, drawn from the seed roost gen recorded in the database (seed 0
when none was: a database of imports) and the tick's number alone. The
same database and the same ticks give the same data.
Ids and times continue the database's snowflake timeline, one second of
network time per tick. Each event is printed on stdout as a JSON line.
Without --rate, a SQLite database takes the ticks in transactions of up
to 64 (the same data as one by one, fewer commits); with it, each tick
commits on its own. roost serve --live writes the ticks due every 50 ms
in one transaction.
`)
	}
}
