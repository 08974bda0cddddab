//go:build unix

package export_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// BenchmarkResearch times the research readers on SQLite: counts by day
// and top hashtags of a very common word ("the", a quarter of the posts),
// a common one ("golang", about 1.4%) and a rare one (the longest word of
// a post in the middle of the ids), and CSV exports of "the" and of every
// post, native reposts included (include:nativeretweets), with posts per second, the
// largest Go heap seen while exporting and the process's peak resident
// memory. ROOST_BENCH_DB names a generated database to read (as
// BenchmarkSearchMix does, e.g. one of ten million posts made by roost
// gen; a postgres:// URL reads PostgreSQL); without it a network of
// ROOST_BENCH_POSTS posts (default 100,000) is generated into a temporary
// SQLite file first.
//
//	ROOST_BENCH_DB=/tmp/m1.db go test ./internal/research/export -run '^$' -bench Research -benchtime 3x
func BenchmarkResearch(b *testing.B) {
	ctx := context.Background()
	var err error
	path := os.Getenv("ROOST_BENCH_DB")
	if path == "" {
		n := 100_000
		if s := os.Getenv("ROOST_BENCH_POSTS"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v <= 0 {
				b.Fatalf("ROOST_BENCH_POSTS=%q is not a positive number", s)
			}
			n = v
		}
		path = filepath.Join(b.TempDir(), "research.db")
		st, err := sqlite.Open(ctx, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := gen.Generate(ctx, st, gen.Config{Seed: 1, Users: max(n/100, 100), Posts: n}, nil); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
	var s social.Store
	if strings.HasPrefix(path, "postgres://") {
		s, err = postgres.Open(ctx, path, nil)
	} else {
		s, err = sqlite.Open(ctx, path, nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	rare, err := rareWord(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	parse := func(text string) *search.Query {
		q, err := search.Parse(text, now)
		if err != nil {
			b.Fatal(err)
		}
		return q
	}
	for _, w := range []struct{ name, text string }{{"very-common", "the"}, {"common", "golang"}, {"rare", rare}} {
		q := parse(w.text)
		b.Run("counts-by-day/"+w.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				buckets, err := s.SearchCounts(ctx, q, social.Day)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				for _, x := range buckets {
					n += x.Count
				}
			}
			b.ReportMetric(float64(n), "matches")
		})
		b.Run("top-hashtags/"+w.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.SearchTop(ctx, q, social.TopHashtags, 10, social.NoGranularity); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, x := range []struct{ name, text string }{{"the", "the"}, {"all", "include:nativeretweets"}} {
		q := parse(x.text)
		b.Run("export-csv/"+x.name, func(b *testing.B) {
			var peak atomic.Uint64
			stop := make(chan struct{})
			go func() {
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
				}
			}()
			var n int64
			var took time.Duration
			for b.Loop() {
				start := time.Now()
				w, err := export.NewWriter(export.FormatCSV, io.Discard, httpapi.FullPost)
				if err != nil {
					b.Fatal(err)
				}
				if n, err = export.Posts(ctx, s, q, w, export.Options{}); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
				took = time.Since(start)
			}
			close(stop)
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru) //nolint:errcheck // always succeeds for RUSAGE_SELF
			b.ReportMetric(float64(n), "posts")
			b.ReportMetric(float64(n)/took.Seconds(), "posts/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(int64(ru.Maxrss)<<10)/(1<<20), "peak-rss-MiB")
		})
	}
}

// rareWord is the longest word of a post in the middle of the ids.
func rareWord(ctx context.Context, s social.Store) (string, error) {
	var lo, hi int64
	q, _ := search.Parse("since:2000-01-01", time.Now())
	err := s.SearchWalk(ctx, q, 0, 1, func(ps []social.Post) error { lo = ps[0].ID; return io.EOF })
	if err != nil && err != io.EOF {
		return "", err
	}
	hiQ, _ := search.Parse("since:2000-01-01", time.Now())
	page, err := s.Search(ctx, hiQ, social.Latest, social.PageReq{Limit: 1})
	if err != nil || len(page.Items) == 0 {
		return "", err
	}
	hi = page.Items[0].ID
	var text string
	err = s.SearchWalk(ctx, q, lo+(hi-lo)/2, 1, func(ps []social.Post) error { text = ps[0].Text; return io.EOF })
	if err != nil && err != io.EOF {
		return "", err
	}
	toks := strings.Fields(search.IndexText(text))
	slices.SortStableFunc(toks, func(a, b string) int { return len(b) - len(a) })
	if len(toks) == 0 {
		return "zzqx", nil
	}
	return toks[0], nil
}
