// Package live keeps a stored network moving: each tick of the living
// world is one event (a post, reply, quote, repost, like, follow, unfollow
// or profile edit) written as one batch through the store's Write (or
// several ticks in one transaction, world.TickWriter), drawn from the
// seed roost gen recorded and the tick's number alone, so that the same
// database and the same ticks give the same data byte for byte. Ids and
// times continue the database's snowflake timeline; the last tick is
// recorded with each tick's data, so a restart continues where it stopped.
package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world"
	"github.com/roostapi/roost/internal/world/gen"
)

// Clock: tick t happens at a time in [base+(t-1)·TickMS, base+t·TickMS),
// base being a second after the newest post when the first tick was made
// (or EmptyBaseMS in a database without posts).
const (
	TickMS      = 1000
	EmptyBaseMS = 1780272000000 // 2026-06-01T00:00:00Z, where roost gen's year of posts ends
)

// ringSize is how many of the newest posts ticks reply to, quote, repost
// and like.
const ringSize = 4096

// ErrNoUsers: the database holds no profile to act.
var ErrNoUsers = errors.New("the database holds no user profiles: the living world has no one to act")

// World is a living world over one database. Its methods are not safe for
// concurrent use.
type World struct {
	db    world.Store
	w     social.Writer
	log   *slog.Logger
	texts *gen.Texts

	seed   int64
	seeded bool
	tick   int64 // the last tick written
	baseMS int64
	users  []int64         // full profiles, ascending
	ring   []world.PostRef // the newest posts, ascending
}

// Open reads the world's state from db; its ticks are written through w
// (the store db belongs to). A database without a recorded seed (one that
// holds imports only) lives from seed 0.
func Open(ctx context.Context, db world.Store, w social.Writer, log *slog.Logger) (*World, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lw := &World{db: db, w: w, log: log, texts: gen.NewTexts()}
	if err := lw.load(ctx); err != nil {
		return nil, err
	}
	return lw, nil
}

// load reads everything a tick is made from: what a restart reads equals
// what the ticks before it left in memory.
func (lw *World) load(ctx context.Context) error {
	st, err := lw.db.State(ctx)
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	if lw.users, err = lw.db.UserIDs(ctx); err != nil {
		return fmt.Errorf("live: users: %w", err)
	}
	if len(lw.users) == 0 {
		return fmt.Errorf("live: %w", ErrNoUsers)
	}
	if lw.ring, err = lw.db.RecentPosts(ctx, ringSize); err != nil {
		return fmt.Errorf("live: recent posts: %w", err)
	}
	lw.seed, lw.seeded, lw.tick, lw.baseMS = st.Seed, st.Seeded, st.Tick, st.BaseMS
	if lw.baseMS == 0 {
		base := int64(EmptyBaseMS)
		if n := len(lw.ring); n > 0 {
			if ms := snowflakeMS(lw.ring[n-1].ID); ms > social.SnowflakeEpochMS {
				base = ms + TickMS
			}
		}
		if lw.baseMS, err = lw.db.StartClock(ctx, base); err != nil {
			return fmt.Errorf("live: %w", err)
		}
	}
	return nil
}

// Seed is the seed the world lives from, and whether roost gen recorded
// it (else it is 0).
func (lw *World) Seed() (int64, bool) { return lw.seed, lw.seeded }

// Tick is the last tick written (0 before the first).
func (lw *World) Tick() int64 { return lw.tick }

// Event is what a tick did.
type Event struct {
	Tick   int64     `json:"tick"`
	Kind   string    `json:"kind"`                     // one of the Kind constants
	UserID int64     `json:"user_id,string"`           // who acted
	PostID int64     `json:"post_id,string,omitempty"` // the new post, or the post liked
	Target int64     `json:"target,string,omitempty"`  // the post replied to, quoted or reposted; the user followed or unfollowed
	At     time.Time `json:"at"`
}

// Kinds of events.
const (
	KindPost     = "post"
	KindReply    = "reply"
	KindQuote    = "quote"
	KindRepost   = "repost"
	KindLike     = "like"
	KindFollow   = "follow"
	KindUnfollow = "unfollow"
	KindProfile  = "profile"
)

// Step makes and writes the next tick. When another writer wrote that tick
// meanwhile (social.ErrConflict), Step reads the state again and makes the
// tick after the stored one.
func (lw *World) Step(ctx context.Context) (Event, error) {
	for tries := 0; ; tries++ {
		t := lw.tick + 1
		ev, err := lw.writeTick(ctx, t, func(b *social.Batch) error {
			_, err := lw.w.Write(ctx, b)
			return err
		})
		if errors.Is(err, social.ErrConflict) && tries < 3 {
			lw.log.Info("live: another writer wrote this tick: reading the world again", "tick", t)
			if err := lw.load(ctx); err != nil {
				return ev, err
			}
			continue
		}
		if err != nil {
			return ev, err
		}
		lw.tick = t
		return ev, nil
	}
}

// writeTick makes tick t, writes its batch through write and, once
// written, remembers its new posts.
func (lw *World) writeTick(ctx context.Context, t int64, write func(*social.Batch) error) (Event, error) {
	b, ev, err := lw.make(ctx, t)
	if err != nil {
		return ev, fmt.Errorf("live: tick %d: %w", t, err)
	}
	b.LiveTick = t
	if err := write(b); err != nil {
		return ev, fmt.Errorf("live: tick %d: %w", t, err)
	}
	for _, p := range b.Posts {
		lw.remember(p)
	}
	return ev, nil
}

// Steps makes and writes the next n ticks: in one transaction when the
// writer is a world.TickWriter (the data and events are those of n
// Steps), else one by one. When another writer wrote one of them meanwhile
// (social.ErrConflict), Steps reads the state again and makes the n ticks
// after the stored one.
func (lw *World) Steps(ctx context.Context, n int) ([]Event, error) {
	tw, ok := lw.w.(world.TickWriter)
	if !ok || n <= 1 {
		evs := make([]Event, 0, n)
		for range n {
			ev, err := lw.Step(ctx)
			if err != nil {
				return evs, err
			}
			evs = append(evs, ev)
		}
		return evs, nil
	}
	for tries := 0; ; tries++ {
		evs, err := lw.group(ctx, tw, n)
		if err == nil {
			return evs, nil
		}
		// The transaction rolled back, and with it what its ticks left in
		// memory (the newest posts).
		if lerr := lw.load(ctx); lerr != nil {
			return nil, errors.Join(err, lerr)
		}
		if !errors.Is(err, social.ErrConflict) || tries == 3 {
			return nil, err
		}
		lw.log.Info("live: another writer wrote these ticks: reading the world again", "from", lw.tick+1)
	}
}

// group makes and writes the next n ticks in one transaction of tw, each
// made from what the ticks before it wrote.
func (lw *World) group(ctx context.Context, tw world.TickWriter, n int) ([]Event, error) {
	evs := make([]Event, 0, n)
	base, stored := lw.tick, lw.db
	defer func() { lw.db = stored }()
	err := tw.WriteTicks(ctx, func(w world.Store, write func(*social.Batch) error) error {
		lw.db = w
		for i := range int64(n) {
			ev, err := lw.writeTick(ctx, base+1+i, write)
			if err != nil {
				return err
			}
			evs = append(evs, ev)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	lw.tick = base + int64(n)
	return evs, nil
}

// remember puts a new post into the ring of the newest posts, as a load
// would find it.
func (lw *World) remember(p social.Post) {
	ref := world.PostRef{ID: p.ID, AuthorID: p.AuthorID, RepostOfID: p.RepostOfID}
	i, found := slices.BinarySearchFunc(lw.ring, p.ID, func(r world.PostRef, id int64) int { return compare(r.ID, id) })
	if found {
		return
	}
	if len(lw.ring) == ringSize {
		if i == 0 {
			return
		}
		lw.ring = slices.Delete(lw.ring, 0, 1)
		i--
	}
	lw.ring = slices.Insert(lw.ring, i, ref)
}

func compare(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// maxPause is the longest pause after ticks that failed one after another.
const maxPause = 5 * time.Second

// groupEvery is how often Run writes the ticks due, in one transaction
// when the store takes several (world.TickWriter): at 200 ticks a
// second, ten a commit. A commit makes every reader of a SQLite database
// start its page cache over, and writes again the pages every tick writes
// (the world's row, the counters, the newest posts' pages).
const groupEvery = 50 * time.Millisecond

// Run makes ticks at one every interval until ctx ends, writing those due
// every groupEvery (or every interval, if longer) together (Steps). Ticks
// that fail are logged and made again after a pause that doubles, up to
// maxPause, while they keep failing; a writer slower than the rate makes
// fewer ticks: at most two wakes' worth at a time, the rest dropped, as a
// ticker drops the ticks its reader missed.
func (lw *World) Run(ctx context.Context, interval time.Duration) {
	wake := max(interval, groupEvery)
	tk := time.NewTicker(wake)
	defer tk.Stop()
	start, first := time.Now(), lw.tick
	defer func() {
		n := lw.tick - first
		lw.log.Info("live world stopped", "ticks", n, "last_tick", lw.tick,
			"per_second", float64(n)/max(time.Since(start).Seconds(), 1e-9))
	}()
	most := 2 * max(int64(wake/interval), 1)
	made := int64(0) // ticks made or dropped since start
	pause := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		due := int64(time.Since(start)/interval) - made
		if due <= 0 {
			continue
		}
		if due > most {
			made += due - most
			due = most
		}
		evs, err := lw.Steps(ctx, int(due))
		made += int64(len(evs)) // the rest, when some failed, is due again
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			pause = min(max(2*pause, interval), maxPause)
			lw.log.Warn("live: ticks failed; trying again", "err", err, "in", pause)
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
			continue
		}
		pause = 0
		for _, ev := range evs {
			lw.log.Debug("live tick", "tick", ev.Tick, "kind", ev.Kind, "user", ev.UserID, "post", ev.PostID, "target", ev.Target)
		}
	}
}

// snowflakeMS is the Unix millisecond time of a snowflake id.
func snowflakeMS(id int64) int64 { return id>>social.SnowflakeShift + social.SnowflakeEpochMS }

// snowflake is the id of millisecond ms from worker and sequence.
func snowflake(ms, worker, seq int64) int64 {
	return (ms-social.SnowflakeEpochMS)<<social.SnowflakeShift | (worker&1023)<<12 | seq&4095
}
