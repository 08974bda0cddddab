package gen

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// plainWriter hides Store.Bulk.
type plainWriter struct{ social.Writer }

// keepIndexes is a bulk load that expects too few posts to drop indexes.
type keepIndexes struct{ *sqlite.Store }

func (k keepIndexes) Bulk(ctx context.Context, _ int64, load func(social.Writer) error) error {
	return k.Store.Bulk(ctx, 0, load)
}

// BenchmarkGenerateSQLite generates a network into a new SQLite file and
// reports posts per second of wall time and of CPU time (all threads), and
// the process's peak resident memory. ROOST_BENCH_POSTS sets the size
// (default 200,000; the target is stated for 1,000,000). ROOST_BENCH_MODE
// compares ways of writing: "bulk" (the default: Store.Bulk), "keep" (a
// bulk load that keeps the indexes of posts) and "plain" (Store.Write
// only).
func BenchmarkGenerateSQLite(b *testing.B) {
	mode := os.Getenv("ROOST_BENCH_MODE")
	n := 200_000
	if s := os.Getenv("ROOST_BENCH_POSTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("ROOST_BENCH_POSTS=%q is not a positive number", s)
		}
		n = v
	}
	cfg := Config{Seed: 1, Posts: n}
	ctx := context.Background()
	for b.Loop() {
		st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "roost.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		var w social.Writer = st
		switch mode {
		case "", "bulk":
		case "keep":
			w = keepIndexes{st}
		case "plain":
			w = plainWriter{st}
		default:
			b.Fatalf("ROOST_BENCH_MODE=%q is not bulk, keep or plain", mode)
		}
		cpu, start := cpuTime(), time.Now()
		sum, err := Generate(ctx, w, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		wall, used := time.Since(start), cpuTime()-cpu
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Posts)/wall.Seconds(), "posts/s")
		if used > 0 {
			b.ReportMetric(float64(sum.Posts)/used.Seconds(), "posts/cpu-s")
		}
		b.ReportMetric(float64(maxRSS())/(1<<20), "peak-rss-MiB")
	}
}
