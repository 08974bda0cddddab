package postgres_test

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world/gen"
)

// writeOnly hides Store.Bulk from gen.Generate: it writes through
// Store.Write, batch by batch.
type writeOnly struct{ s *postgres.Store }

func (w writeOnly) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return w.s.Write(ctx, b)
}

// BenchmarkGenerate writes the generated network (ROOST_BENCH_POSTS posts,
// default 200,000) into a fresh schema, through Store.Bulk ("bulk", what
// roost gen does) and through plain Store.Write ("write"), and reports
// posts per second of wall time and the share of wall time this process
// spent on CPU (the rest is the database and waiting). -v logs the store's
// messages (index drops and builds).
func BenchmarkGenerate(b *testing.B) {
	n := 200_000
	if s := os.Getenv("ROOST_BENCH_POSTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("ROOST_BENCH_POSTS=%q is not a positive number", s)
		}
		n = v
	}
	base := storetest.PostgresURL(b)
	for _, mode := range []string{"bulk", "write"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				log := slog.New(slog.DiscardHandler)
				if testing.Verbose() {
					log = slog.New(slog.NewTextHandler(os.Stderr, nil))
				}
				st, err := postgres.Open(context.Background(), storetest.FreshSchema(b, base), log)
				if err != nil {
					b.Fatal(err)
				}
				var w social.Writer = st
				if mode == "write" {
					w = writeOnly{st}
				}
				cpu0 := cpuTime()
				start := time.Now()
				b.StartTimer()
				cfg := gen.DefaultConfig()
				cfg.Posts, cfg.Users = n, max(n/50, 100)
				if _, err := gen.Generate(context.Background(), w, cfg, nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				wall := time.Since(start)
				b.ReportMetric(float64(n)/wall.Seconds(), "posts/s")
				b.ReportMetric((cpuTime()-cpu0).Seconds()/wall.Seconds(), "client-cpu/wall")
				st.Close()
				b.StartTimer()
			}
		})
	}
}

// cpuTime is the CPU time (user and system) of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
