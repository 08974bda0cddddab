package perf

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
	"github.com/roostapi/roost/internal/world/gen"
)

// TestCompareLive runs a short live comparison on a tiny world: the report
// has its lines, the receiver saw the events of the ticks, each matched
// with its commit, and the bench's monitors and key are gone afterwards.
func TestCompareLive(t *testing.T) {
	engines := map[string]func(t *testing.T) storeengines.Store{
		"sqlite": func(t *testing.T) storeengines.Store { return smallStore(t) },
		"postgres": func(t *testing.T) storeengines.Store {
			s, err := postgres.Open(context.Background(), storetest.FreshSchema(t, storetest.PostgresURL(t)), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if _, err := gen.Generate(context.Background(), s, gen.Config{Seed: 3, Users: 200, Posts: 4000}, nil); err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for name, open := range engines {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := open(t)
			rig, err := NewRig(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := rig.CompareLive(ctx, LiveConfig{Every: 5 * time.Millisecond, Monitors: 100, Requests: 16, Rounds: 2,
				Warmup: 300 * time.Millisecond, Seed: 1, MonitorStore: s.Monitors(), World: s.World()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			ReportLive(&out, rep)
			for _, want := range []string{"p99 ratio", "timeline ", "timeline+replies", "search Latest", "search Top",
				"living world: asked 200 events/s", "ticks dropped", "100 monitors (85 user_tweets, 7 user_following, 7 user_profile, 1 search_keyword)",
				"commit→POST", "user monitors", ControlPosts, "load average", "resident memory:",
				"paid pages' wait for their debit", "living world's writes"} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, out.String())
				}
			}
			if rep.Ticks == 0 || rep.Received == 0 || rep.BadSig != 0 || rep.Unmatched != 0 || rep.Pending != 0 {
				t.Errorf("ticks %d, received %d, badly signed %d, unmatched %d, pending %d:\n%s", rep.Ticks, rep.Received,
					rep.BadSig, rep.Unmatched, rep.Pending, out.String())
			}
			for _, l := range rep.Latency {
				if l.Type == "user monitors" && (l.Events == 0 || l.P50 <= 0 || l.P99 < l.P50) {
					t.Errorf("commit→POST of user monitors: %+v", l)
				}
				// A post made through the admin world control reaches a
				// user_tweets monitor's webhook, beside the living world.
				// How fast is the bench's figure, not this test's (the race
				// detector on a busy machine stretches it past a second).
				if l.Type == ControlPosts && (l.Events == 0 || l.P50 <= 0 || l.P99 < l.P50) {
					t.Errorf("commit→POST of the world control's posts: %+v; want events", l)
				}
			}
			// Every measured page is paid: each kind of run saw its pages'
			// debits, and the world's writes were timed.
			for _, run := range []struct {
				kind  string
				waits Waits
				pages []Stats
			}{{"quiet", rep.DebitQuiet, rep.Quiet}, {"live", rep.DebitLive, rep.Live}} {
				pages := 0
				for _, st := range run.pages {
					pages += st.Requests
				}
				if w := run.waits; w.Pages != uint64(pages) || w.P50 <= 0 || w.P99 < w.P50 {
					t.Errorf("%s debits: %+v, for %d pages", run.kind, w, pages)
				}
			}
			// One transaction a tick on PostgreSQL, the ticks due at a wake
			// (every 50 ms, at 200/s ten) in one on SQLite.
			if rep.Writes.Requests == 0 || rep.Writes.Requests > int(rep.Ticks) || rep.Writes.P50 <= 0 || rep.Writes.Max < rep.Writes.P99 {
				t.Errorf("world's writes: %+v for %d ticks", rep.Writes, rep.Ticks)
			}
			if name == "sqlite" && rep.Writes.Requests*2 > int(rep.Ticks) {
				t.Errorf("SQLite wrote %d ticks in %d transactions: not in groups", rep.Ticks, rep.Writes.Requests)
			}
			if len(rep.Quiet) != 4 || rep.Quiet[0].Requests < 16 || rep.Live[0].Requests < 16 {
				t.Errorf("pages measured: quiet %+v, live %+v", rep.Quiet, rep.Live)
			}
			ms := s.Monitors()
			if left, total, err := ms.List(ctx, rig.keyID, 0, 10); err != nil || total != 0 {
				t.Errorf("monitors left after the bench: %d %+v %v", total, left, err)
			}
			if w, err := ms.DefaultWebhook(ctx, rig.keyID); err != nil || w.URL != nil {
				t.Errorf("the bench's webhook is left: %+v %v", w, err)
			}
			if err := rig.Close(ctx); err != nil {
				t.Fatal(err)
			}
			if k, err := s.Key(ctx, rig.keyID); err != nil || k.RevokedAt == nil {
				t.Errorf("the bench key is not revoked: %+v %v", k, err)
			}
		})
	}
}

// BenchmarkLive runs CompareLive (200 events/s, 1,000 monitors) on the
// SQLite database named by ROOST_BENCH_DB, once per iteration, and reports
// the largest p99 ratio of a page kind (live/quiet), the events/s written
// and the p99 from commit to webhook POST of the user monitors; with
// -cpuprofile or -blockprofile it shows where the time goes:
//
//	ROOST_BENCH_DB=/tmp/b1m.db go test ./internal/dev/perf -run X -bench Live -benchtime 1x -blockprofile block.out
func BenchmarkLive(b *testing.B) {
	ctx := context.Background()
	rig, s := benchRig(b)
	for i := 0; i < b.N; i++ {
		rep, err := rig.CompareLive(ctx, LiveConfig{Every: 5 * time.Millisecond, Monitors: 1000, Seed: uint64(i),
			MonitorStore: s.Monitors(), World: s.World()}, nil)
		if err != nil {
			b.Fatal(err)
		}
		worst := 0.0
		for j, q := range rep.Quiet {
			worst = max(worst, float64(rep.Live[j].P99)/float64(max(q.P99, 1)))
		}
		b.ReportMetric(worst, "p99-ratio")
		b.ReportMetric(float64(rep.Ticks)/rep.LiveTime.Seconds(), "events/s")
		for _, l := range rep.Latency {
			if l.Type == "user monitors" {
				b.ReportMetric(float64(l.P99.Microseconds())/1000, "commit-post-p99-ms")
			}
			if l.Type == ControlPosts {
				b.ReportMetric(float64(l.P99.Microseconds())/1000, "control-post-p99-ms")
			}
		}
	}
	b.ReportMetric(0, "ns/op")
}
