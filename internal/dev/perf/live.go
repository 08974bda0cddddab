package perf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/world"
	"github.com/roostapi/roost/internal/world/edit"
	"github.com/roostapi/roost/internal/world/fixture"
	"github.com/roostapi/roost/internal/world/live"
)

// LiveConfig says how pages are measured with and without the living
// world.
type LiveConfig struct {
	// Every is the time between two ticks of the living world (200/s: 5 ms).
	Every time.Duration
	// Monitors registered for the rig's key (0: none, and no change log).
	Monitors int
	// Requests per page kind and kind of run, over all rounds (default 500).
	Requests int
	// Rounds of a quiet and a live run, their order alternating (default 2).
	Rounds int
	// Warmup of each live run before its pages are measured (default 1 s).
	Warmup time.Duration
	Seed   uint64
	// Log receives the living world's and the monitors' warnings; nil: none.
	Log *slog.Logger
	// MonitorStore and World are the rig's store's storage of the monitors
	// and of the living world (required).
	MonitorStore monitor.Store
	World        world.Store
	// ControlEvery is the time between two posts the admin world control
	// (package edit) makes during a live run, beside the living world,
	// by authors a user_tweets monitor watches (0: 100 ms; below 0:
	// none). It needs World to be the store's world (a fixture.Lookup).
	ControlEvery time.Duration
}

// ControlPosts is the Latency type of the user_tweets events of the
// posts the world control made.
const ControlPosts = "world control's posts"

// searchRefresh is the refresh frequency of the bench's search monitors,
// in seconds (the smallest the API takes).
const searchRefresh = 1

// drainMax bounds the wait, after a live run, for its events to arrive.
const drainMax = time.Minute

// LiveReport is what CompareLive measured.
type LiveReport struct {
	Quiet, Live []Stats // per page kind, without and with the living world
	Every       time.Duration
	Monitors    map[string]int // registered, by type
	Ticks       int64          // events the living world wrote in the live runs
	Asked       int64          // events the rate asked for in that time
	LiveTime    time.Duration  // the live runs' time, from the world's start to its stop
	Received    int            // events that arrived (each once)
	Repeats     int            // arrivals of an event that had arrived already
	BadSig      int            // arrivals whose signature did not verify
	Unmatched   int            // events whose commit the bench did not see
	Pending     int64          // events still pending when a drain gave up, summed over runs
	Latency     []Latency      // commit→POST by monitor type
	// DebitQuiet and DebitLive are the paid pages' waits for their debits
	// in the quiet and the live runs.
	DebitQuiet, DebitLive Waits
	// Writes are the living world's transactions (the ticks due at a
	// wake), commit included.
	Writes    Stats
	LoadStart string // load averages at the start and the end
	LoadEnd   string
}

// Latency is the time from a change's commit to the arrival of its
// webhook POST, for one type of monitor.
type Latency struct {
	Type          string
	Events        int
	P50, P99, Max time.Duration
}

// CompareLive measures every page kind in quiet runs (no living world, no
// monitor service) and live runs (the living world writing an event every
// cfg.Every, the monitor service dispatching and delivering the events of
// cfg.Monitors monitors to a receiver in this process), alternating. The
// rig's key gets the monitors and a default webhook; they are deleted at
// the end. The ticks stay in the database, as those of roost live.
func (r *Rig) CompareLive(ctx context.Context, cfg LiveConfig, progress io.Writer) (_ *LiveReport, err error) {
	if cfg.Every <= 0 {
		return nil, errors.New("perf: the living world needs a rate")
	}
	if cfg.Requests <= 0 {
		cfg.Requests = 500
	}
	if cfg.Rounds <= 0 {
		cfg.Rounds = 2
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = time.Second
	}
	if progress == nil {
		progress = io.Discard
	}
	if cfg.MonitorStore == nil || cfg.World == nil {
		return nil, errors.New("perf: the live comparison needs the store's monitors and living world")
	}
	rep := &LiveReport{Every: cfg.Every, Monitors: map[string]int{}, LoadStart: loadAverage()}
	rc := &receiver{}
	hookURL, stopReceiver, err := listen(rc)
	if err != nil {
		return nil, err
	}
	defer stopReceiver()
	b := &liveBench{rig: r, cfg: cfg, ms: cfg.MonitorStore, rc: rc, rep: rep, progress: progress}
	b.svc = monitor.New(b.ms, r.store, r.store, httpapi.NewRenderer(r.store), monitor.Options{AllowPrivate: true}, cfg.Log)
	secret, err := b.svc.SetDefaultWebhook(ctx, r.keyID, &hookURL)
	if err != nil {
		return nil, fmt.Errorf("perf: webhook: %w", err)
	}
	rc.setSecret(secret)
	defer func() { err = errors.Join(err, b.cleanup(context.WithoutCancel(ctx))) }()
	if err := b.register(ctx, cfg.World); err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "registered %s\n", monitorMix(rep.Monitors))
	b.commits, b.control = newCommits(r.store), newCommits(r.store)
	if cfg.ControlEvery == 0 {
		cfg.ControlEvery = 100 * time.Millisecond
	}
	if look, ok := cfg.World.(fixture.Lookup); ok && cfg.ControlEvery > 0 {
		b.editor = edit.New(look, b.control)
	}
	b.cfg = cfg
	if b.world, err = live.Open(ctx, cfg.World, b.commits.writer(), cfg.Log); err != nil {
		return nil, fmt.Errorf("perf: %w", err)
	}
	classes := r.Classes()
	quiet, liveS := make([]samples, len(classes)), make([]samples, len(classes))
	debits := map[bool]*histogram{false: {}, true: {}}
	per := max(1, cfg.Requests/cfg.Rounds)
	for round := range cfg.Rounds {
		order := []bool{false, true} // quiet first on even rounds
		if round%2 == 1 {
			order = []bool{true, false}
		}
		for _, isLive := range order {
			seed := cfg.Seed + uint64(round)*1000
			before, err := debitHistogram(r.reg)
			if err != nil {
				return nil, err
			}
			if isLive {
				err = b.liveRun(ctx, classes, per, seed, liveS)
			} else {
				err = r.serveAll(classes, per, seed, quiet)
			}
			if err != nil {
				return nil, err
			}
			after, err := debitHistogram(r.reg)
			if err != nil {
				return nil, err
			}
			debits[isLive].add(before, after)
			fmt.Fprintf(progress, "  round %d: %s run done\n", round+1, map[bool]string{false: "quiet", true: "live"}[isLive])
		}
	}
	for i, c := range classes {
		rep.Quiet = append(rep.Quiet, quiet[i].stats(c.Name))
		rep.Live = append(rep.Live, liveS[i].stats(c.Name))
	}
	rep.DebitQuiet, rep.DebitLive = debits[false].waits(), debits[true].waits()
	b.commits.mu.Lock()
	rep.Writes = b.commits.writes.stats("living world's writes")
	b.commits.mu.Unlock()
	b.latencies()
	rep.LoadEnd = loadAverage()
	return rep, nil
}

// serveAll serves per requests of every class, adding to into.
func (r *Rig) serveAll(classes []Class, per int, seed uint64, into []samples) error {
	for i, c := range classes {
		if err := r.serve(c, per, seed+uint64(i), &into[i]); err != nil {
			return err
		}
	}
	return nil
}

// liveBench is the state of one CompareLive.
type liveBench struct {
	rig     *Rig
	cfg     LiveConfig
	ms      monitor.Store
	svc     *monitor.Service
	rc      *receiver
	commits *commits
	world   *live.World
	ids     []string // the monitors registered
	// editor makes posts through the world control (nil: none), written
	// through control; watched are the users of the user_tweets monitors.
	editor   *edit.Editor
	control  *commits
	watched  []int64
	rep      *LiveReport
	progress io.Writer
}

// register makes the monitors: a hundredth search monitors (a common word
// each), 7% user_following and 7% user_profile monitors, the rest
// user_tweets, on the authors of the newest posts, most posts first: the
// living world mostly makes them act.
func (b *liveBench) register(ctx context.Context, w world.Store) error {
	n := b.cfg.Monitors
	if n <= 0 {
		return nil
	}
	users, err := activeUsers(ctx, w, b.rig.users)
	if err != nil {
		return err
	}
	search, following, profile := n/100, n*7/100, n*7/100
	counts := []struct {
		kind string
		n    int
	}{{monitor.UserTweets, n - search - following - profile}, {monitor.UserFollowing, following}, {monitor.UserProfile, profile}}
	for _, c := range counts {
		made := 0
		for _, u := range users {
			if made == c.n {
				break
			}
			m, err := b.svc.CreateUser(ctx, b.rig.keyID, c.kind, monitor.Target{UserID: u}, nil)
			var invalid *monitor.Invalid
			if errors.As(err, &invalid) {
				continue // a protected user has no user_tweets monitor
			}
			if err != nil {
				return fmt.Errorf("perf: register monitors: %w", err)
			}
			b.ids = append(b.ids, m.ID)
			if c.kind == monitor.UserTweets {
				b.watched = append(b.watched, u)
			}
			made++
		}
		b.rep.Monitors[c.kind] = made
	}
	for i := range search {
		m, err := b.svc.CreateSearch(ctx, b.rig.keyID, b.rig.words[i%len(b.rig.words)], searchRefresh, nil)
		if err != nil {
			return fmt.Errorf("perf: register monitors: %w", err)
		}
		b.ids = append(b.ids, m.ID)
		b.rep.Monitors[monitor.SearchQuery]++
	}
	return nil
}

// activeUsers are the authors of the newest posts, most posts first, then
// the sampled users.
func activeUsers(ctx context.Context, w world.Store, sampled []sample) ([]int64, error) {
	recent, err := w.RecentPosts(ctx, 4096)
	if err != nil {
		return nil, fmt.Errorf("perf: newest posts: %w", err)
	}
	posts := map[int64]int{}
	for _, p := range recent {
		posts[p.AuthorID]++
	}
	users := make([]int64, 0, len(posts)+len(sampled))
	for id := range posts {
		users = append(users, id)
	}
	slices.SortFunc(users, func(a, b int64) int { return cmp.Or(posts[b]-posts[a], cmp.Compare(a, b)) })
	for _, s := range sampled {
		if posts[s.id] == 0 {
			users = append(users, s.id)
		}
	}
	return users, nil
}

// liveRun runs the monitor service and the living world, measures every
// class after the warm-up, stops the world and waits for its events to be
// delivered.
func (b *liveBench) liveRun(ctx context.Context, classes []Class, per int, seed uint64, into []samples) error {
	svcCtx, stopSvc := context.WithCancel(ctx)
	svcDone := make(chan struct{})
	go func() { defer close(svcDone); b.svc.Run(svcCtx) }()
	defer func() { stopSvc(); <-svcDone }()
	worldCtx, stopWorld := context.WithCancel(ctx)
	worldDone := make(chan struct{})
	before, start := b.commits.written(), time.Now()
	go func() { defer close(worldDone); b.world.Run(worldCtx, b.cfg.Every) }()
	controlDone := make(chan error, 1)
	go func() { controlDone <- b.post(worldCtx, seed) }()
	err := sleep(ctx, b.cfg.Warmup)
	if err == nil {
		err = b.rig.serveAll(classes, per, seed, into)
	}
	stopWorld()
	<-worldDone
	err = errors.Join(err, <-controlDone)
	el := time.Since(start)
	b.rep.Ticks += b.commits.written() - before
	b.rep.Asked += int64(el / b.cfg.Every)
	b.rep.LiveTime += el
	if err != nil {
		return err
	}
	return b.drain(ctx)
}

// post makes a post through the world control every cfg.ControlEvery
// until ctx ends, each by the next watched user, as an admin's POST
// /admin/world/posts does.
func (b *liveBench) post(ctx context.Context, seed uint64) error {
	if b.editor == nil || len(b.watched) == 0 {
		return nil
	}
	tk := time.NewTicker(b.cfg.ControlEvery)
	defer tk.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case <-tk.C:
		}
		author := b.watched[i%len(b.watched)]
		body := map[string]any{"author": strconv.FormatInt(author, 10),
			"full_text": fmt.Sprintf("made through the world control, %d of run %d", i, seed)}
		if _, err := b.editor.CreatePost(context.WithoutCancel(ctx), body); err != nil {
			return fmt.Errorf("perf: world control: %w", err)
		}
	}
}

// drain waits, after a live run, until the service has delivered what the
// run made: every change dispatched and no event of the bench's monitors
// pending, after at least a search monitor's refresh (its last search).
// It gives up after drainMax, counting what is left.
func (b *liveBench) drain(ctx context.Context) error {
	if len(b.ids) == 0 {
		return nil
	}
	if err := sleep(ctx, searchRefresh*time.Second+200*time.Millisecond); err != nil {
		return err
	}
	deadline := time.Now().Add(drainMax)
	for {
		pending := int64(-1)
		cur, err := b.ms.Cursor(ctx)
		if err != nil {
			return err
		}
		cs, err := b.ms.Changes(ctx, cur, 1)
		if err != nil {
			return err
		}
		if len(cs) == 0 && b.rc.quietSince(300*time.Millisecond) {
			if pending, err = b.pending(ctx); err != nil {
				return err
			}
			if pending == 0 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			if pending < 0 {
				if pending, err = b.pending(ctx); err != nil {
					return err
				}
			}
			fmt.Fprintf(b.progress, "  %d events still pending %s after the live run\n", pending, drainMax)
			b.rep.Pending += pending
			return nil
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// pending counts the pending events of the bench's monitors.
func (b *liveBench) pending(ctx context.Context) (int64, error) {
	var n int64
	for _, id := range b.ids {
		c, err := b.ms.EventCounts(ctx, id)
		if err != nil {
			return 0, fmt.Errorf("perf: %w", err)
		}
		n += c[monitor.EventPending]
	}
	return n, nil
}

// latencies matches each event that arrived with its commit.
func (b *liveBench) latencies() {
	hooks, repeats, bad := b.rc.received()
	b.rep.Received, b.rep.Repeats, b.rep.BadSig = len(hooks), repeats, bad
	by := map[string][]time.Duration{}
	const users = "user monitors"
	for _, h := range hooks {
		at, ok := b.commits.committed(h)
		control := false
		if !ok && h.Event == monitor.EventNewTweet {
			at, ok = b.control.committed(h)
			control = ok
		}
		if !ok || h.At.Before(at) {
			b.rep.Unmatched++
			continue
		}
		d := h.At.Sub(at)
		by[h.MonitorType] = append(by[h.MonitorType], d)
		if h.MonitorType != monitor.SearchQuery {
			by[users] = append(by[users], d)
		}
		if control {
			by[ControlPosts] = append(by[ControlPosts], d)
		}
	}
	for _, t := range []string{monitor.UserTweets, monitor.UserFollowing, monitor.UserProfile, users, ControlPosts, monitor.SearchQuery} {
		lat := slices.Sorted(slices.Values(by[t]))
		l := Latency{Type: t, Events: len(lat)}
		if len(lat) > 0 {
			l.P50, l.P99, l.Max = quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1]
		}
		b.rep.Latency = append(b.rep.Latency, l)
	}
}

// cleanup deletes the bench's monitors (their events and delivery logs go
// with them) and its key's default webhook.
func (b *liveBench) cleanup(ctx context.Context) error {
	var errs []error
	for _, id := range b.ids {
		if err := b.svc.Delete(ctx, b.rig.keyID, id); err != nil {
			errs = append(errs, fmt.Errorf("perf: delete monitor %s: %w", id, err))
		}
	}
	if _, err := b.svc.SetDefaultWebhook(ctx, b.rig.keyID, nil); err != nil {
		errs = append(errs, fmt.Errorf("perf: remove the webhook: %w", err))
	}
	return errors.Join(errs...)
}

// sleep waits for d or the end of ctx.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// loadAverage is the system's load averages over 1, 5 and 15 minutes
// (Linux); "unknown" elsewhere.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if err != nil || len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// monitorMix names the registered monitors by type.
func monitorMix(m map[string]int) string {
	total := 0
	var parts []string
	for _, t := range []string{monitor.UserTweets, monitor.UserFollowing, monitor.UserProfile, monitor.SearchQuery} {
		total += m[t]
		parts = append(parts, fmt.Sprintf("%d %s", m[t], t))
	}
	return fmt.Sprintf("%d monitors (%s)", total, strings.Join(parts, ", "))
}

// ReportLive writes the comparison: each page kind's latencies in the
// quiet and live runs and the ratio of their p99, what the living world
// achieved, and the time from commit to webhook POST by monitor type.
func ReportLive(w io.Writer, rep *LiveReport) {
	fmt.Fprintf(w, "%-18s %8s %10s %10s %10s %10s %9s\n", "page", "requests", "quiet p50", "quiet p99", "live p50",
		"live p99", "p99 ratio")
	for i, q := range rep.Quiet {
		l := rep.Live[i]
		fmt.Fprintf(w, "%-18s %8d %10s %10s %10s %10s %8.2f×\n", q.Class, q.Requests, round(q.P50), round(q.P99),
			round(l.P50), round(l.P99), float64(l.P99)/float64(max(q.P99, 1)))
	}
	for _, l := range rep.Live {
		fmt.Fprintf(w, "slowest live %s: %s (%s)\n", l.Class, l.Slowest, round(l.Max))
	}
	secs := max(rep.LiveTime.Seconds(), 1e-9)
	fmt.Fprintf(w, "living world: asked %.0f events/s, wrote %d events in %.1fs of live runs (%.1f/s); %d ticks dropped "+
		"(the writer was behind the rate)\n", float64(time.Second)/float64(rep.Every), rep.Ticks, secs,
		float64(rep.Ticks)/secs, max(rep.Asked-rep.Ticks, 0))
	fmt.Fprintf(w, "paid pages' wait for their debit (decided and committed durably; bucket bounds): quiet p50 ≤ %s, p99 ≤ %s (%d pages); "+
		"live p50 ≤ %s, p99 ≤ %s (%d pages)\n", round(rep.DebitQuiet.P50), round(rep.DebitQuiet.P99), rep.DebitQuiet.Pages,
		round(rep.DebitLive.P50), round(rep.DebitLive.P99), rep.DebitLive.Pages)
	fmt.Fprintf(w, "living world's writes (one transaction each, of the ticks due, commit included): "+
		"p50 %s, p90 %s, p99 %s, max %s\n", round(rep.Writes.P50), round(rep.Writes.P90), round(rep.Writes.P99), round(rep.Writes.Max))
	fmt.Fprintf(w, "webhooks: %s; %d events arrived (%d repeated, %d badly signed, %d without a seen commit, %d left pending)\n",
		monitorMix(rep.Monitors), rep.Received, rep.Repeats, rep.BadSig, rep.Unmatched, rep.Pending)
	if rep.Received > 0 {
		fmt.Fprintf(w, "%-28s %7s %10s %10s %10s\n", "commit→POST", "events", "p50", "p99", "max")
		for _, l := range rep.Latency {
			name := l.Type
			if name == monitor.SearchQuery {
				name += fmt.Sprintf(" (refresh %ds)", searchRefresh)
			}
			fmt.Fprintf(w, "%-28s %7d %10s %10s %10s\n", name, l.Events, round(l.P50), round(l.P99), round(l.Max))
		}
	}
	fmt.Fprintf(w, "load average (1, 5, 15 min): %s at the start, %s at the end\n", rep.LoadStart, rep.LoadEnd)
	rss, peak := Memory()
	fmt.Fprintf(w, "resident memory: %d MB now, %d MB peak\n", rss>>20, peak>>20)
}
