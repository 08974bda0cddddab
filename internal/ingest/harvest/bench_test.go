//go:build unix

package harvest_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/ingest/harvest"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// BenchmarkHarvest harvests 100,000 posts of
// a search for every post (since:2000-01-01, 20 a page) from an
// in-process roost over a generated network into a new SQLite file, once
// serially (Ahead 0: fetch, store, checkpoint, one page at a time) and
// once as roost harvest does by default (DefaultAhead), and reports posts
// per second of wall time of each and their ratio. The upstream and the
// harvester share the machine.
func BenchmarkHarvest(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "up.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	// Reposts are not search results: a quarter more posts than harvested.
	if _, err := gen.Generate(ctx, st, gen.Config{Seed: 11, Users: 2000, Posts: n + n/4}, nil); err != nil {
		b.Fatal(err)
	}
	key, digest, prefix := billing.NewKey()
	if _, err := st.CreateKey(ctx, social.APIKey{Name: "bench", Prefix: prefix, Digest: digest}, 1_000_000_000_000); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{RateLimit: -1}, st, nil, nil))
	defer srv.Close()
	run := func(ahead int) (wallRate, cpuRate float64) {
		b.StopTimer()
		defer b.StartTimer()
		dir := b.TempDir()
		out, err := sqlite.Open(ctx, filepath.Join(dir, "h.db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer out.Close()
		c, err := client.New(srv.URL, key)
		if err != nil {
			b.Fatal(err)
		}
		cpPath := filepath.Join(dir, "cp")
		job := harvest.Job{Kind: "search", Arg: "since:2000-01-01", MaxItems: n, Ahead: ahead}
		b.StartTimer()
		start, cpu := time.Now(), cpuTime()
		stats, err := harvest.Run(ctx, c, job, &harvest.Checkpoint{}, harvest.StoreSink{W: out},
			func(cp *harvest.Checkpoint) error { return harvest.SaveCheckpoint(cpPath, cp) }, nil, nil)
		wall, used := time.Since(start), cpuTime()-cpu
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if stats.Items != n {
			b.Fatalf("harvested %d posts, want %d", stats.Items, n)
		}
		counts, err := out.Counts(ctx)
		if err != nil || counts["posts"] < int64(n) {
			b.Fatalf("%d posts stored (%v), want at least %d", counts["posts"], err, n)
		}
		return float64(n) / wall.Seconds(), float64(n) / used.Seconds()
	}
	for b.Loop() {
		serial, serialCPU := run(0)
		ahead, aheadCPU := run(harvest.DefaultAhead)
		b.ReportMetric(serial, "serial-posts/s")
		b.ReportMetric(serialCPU, "serial-posts/cpu-s")
		b.ReportMetric(ahead, "posts/s")
		b.ReportMetric(aheadCPU, "posts/cpu-s")
		b.ReportMetric(ahead/serial, "x-serial")
	}
}

// cpuTime is the CPU time (user and system, all threads) this process has
// used: the harvester's and the in-process upstream's.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStoreWrite stores the same 2,600 search results (130 pages of
// 20, fetched once) into a new SQLite file, k pages a write, and reports
// posts per second of the writes alone: what batching pages saves per
// transaction (statement preparation, the commit's sync, full-text
// segment merges).
func BenchmarkStoreWrite(b *testing.B) {
	u := newUpstream(b)
	ctx := context.Background()
	c, err := client.New(u.url, u.key)
	if err != nil {
		b.Fatal(err)
	}
	var pages []harvest.Page
	cursor := ""
	for len(pages) < 130 {
		p, err := c.Search(ctx, "since:2000-01-01", client.Latest, cursor)
		if err != nil || p.NextCursor == "" {
			b.Fatalf("page %d: %v (cursor %q)", len(pages), err, p.NextCursor)
		}
		pages, cursor = append(pages, harvest.Page{Raw: p.Raw, Items: len(p.Items)}), p.NextCursor
	}
	for _, k := range []int{1, 17, 33, 65} {
		b.Run(fmt.Sprintf("pages-per-write=%d", k), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "w.db"), nil)
				if err != nil {
					b.Fatal(err)
				}
				sink := harvest.StoreSink{W: st}
				b.StartTimer()
				start := time.Now()
				for i := 0; i < len(pages); i += k {
					if err := sink.Write(ctx, pages[i:min(i+k, len(pages))]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(20*len(pages))/time.Since(start).Seconds(), "posts/s")
				b.StopTimer()
				st.Close()
				b.StartTimer()
			}
		})
	}
}
