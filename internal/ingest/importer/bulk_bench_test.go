//go:build unix

package importer

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
)

// BenchmarkImportV1Bulk imports synthetic v1.1 JSONL (see synthV1) into a
// new SQLite file and into a new PostgreSQL schema (ROOST_TEST_POSTGRES),
// and reports posts per second of wall time and of this process's CPU
// time (all threads; on PostgreSQL the server's is not counted), the
// process's peak resident memory and the Go heap obtained from the system.
// Resident memory counts SQLite's page cache (16 MiB per connection; the
// file is not memory-mapped). ROOST_BENCH_POSTS sets the number of lines
// (default 100,000).
func BenchmarkImportV1Bulk(b *testing.B) {
	n := 100_000
	if s := os.Getenv("ROOST_BENCH_POSTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("ROOST_BENCH_POSTS=%q is not a positive number", s)
		}
		n = v
	}
	p := synthV1(b, n)
	stores := []struct {
		name string
		open func(testing.TB) social.Writer
	}{
		{"sqlite", func(tb testing.TB) social.Writer { return openSQLite(tb) }},
		{"postgres", func(tb testing.TB) social.Writer {
			st, err := postgres.Open(context.Background(), storetest.FreshSchema(tb, storetest.PostgresURL(tb)), nil)
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { st.Close() })
			return st
		}},
	}
	for _, store := range stores {
		b.Run(store.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				st := store.open(b)
				b.StartTimer()
				cpu, start := rusage(), time.Now()
				sum, err := Import(context.Background(), st, []string{p}, Options{})
				if err != nil {
					b.Fatal(err)
				}
				wall, used := time.Since(start), rusage().cpu-cpu.cpu
				if sum.PostsInserted != n {
					b.Fatalf("inserted %d posts, want %d", sum.PostsInserted, n)
				}
				b.ReportMetric(float64(n)/wall.Seconds(), "posts/s")
				b.ReportMetric(float64(n)/used.Seconds(), "posts/cpu-s")
				b.ReportMetric(float64(rusage().maxRSS)/(1<<20), "peak-rss-MiB")
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
			}
		})
	}
}

type usage struct {
	cpu    time.Duration
	maxRSS int64
}

// rusage is the process's CPU time (user and system) and peak resident
// memory (Linux reports kilobytes).
func rusage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	return usage{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), maxRSS: int64(ru.Maxrss) << 10}
}
