package export_test

import (
	"bufio"
	"bytes"
	"context"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// TestExportEverything: include:nativeretweets alone matches every post a
// database holds, native reposts included, so it exports the whole
// database (the query docs/research.md and roost export --help name for that), each
// post once, on both engines.
func TestExportEverything(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			sum, err := gen.Generate(context.Background(), s, gen.Config{Seed: 21, Users: 60, Posts: 1200}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sum.RepostPosts == 0 || sum.CommunityPosts == 0 {
				t.Fatalf("the network has no native reposts or community posts: %+v", sum)
			}
			out, n := exportCount(t, s, "include:nativeretweets", export.FormatIDs)
			seen := map[string]bool{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				seen[sc.Text()] = true
			}
			if n != sum.Posts || int64(len(seen)) != sum.Posts {
				t.Errorf("exported %d posts (%d distinct), the database holds %d", n, len(seen), sum.Posts)
			}
		})
	}
}

// TestExportMemoryFlat: exporting forty chunks' worth of posts holds no
// more in memory at the last chunk than at the second: the live heap
// after each chunk (measured after a collection) grows by less than 4 MiB
// over the run, where the posts alone take several times that (their CSV
// is 20 MiB; an export that kept their views grows by some 40 MiB).
func TestExportMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 40,000 posts")
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const chunks = 40
	if _, err := gen.Generate(ctx, s, gen.Config{Seed: 8, Users: 200, Posts: chunks * export.ChunkSize}, nil); err != nil {
		t.Fatal(err)
	}
	q, err := search.Parse("include:nativeretweets", now)
	if err != nil {
		t.Fatal(err)
	}
	var written countWriter
	w, err := export.NewWriter(export.FormatCSV, &written, httpapi.FullPost)
	if err != nil {
		t.Fatal(err)
	}
	var live []uint64
	var ms runtime.MemStats
	n, err := export.Posts(ctx, s, q, w, export.Options{Progress: func(int64) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live = append(live, ms.HeapAlloc)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n != chunks*export.ChunkSize || len(live) != chunks {
		t.Fatalf("exported %d posts in %d chunks", n, len(live))
	}
	const bound = 4 << 20
	base, high := live[1], live[1]
	for _, h := range live[2:] {
		high = max(high, h)
	}
	t.Logf("live heap after chunk 2: %.1f MiB, highest after: %.1f MiB, %.1f MiB of CSV written",
		mib(base), mib(high), mib(uint64(written)))
	if high > base+bound {
		t.Errorf("the live heap grew from %.1f to %.1f MiB over %d chunks (bound +%.0f MiB): %s",
			mib(base), mib(high), chunks, mib(bound), mibs(live))
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

func mibs(xs []uint64) string {
	var b []byte
	for _, x := range xs {
		b = strconv.AppendFloat(b, mib(x), 'f', 1, 64)
		b = append(b, ' ')
	}
	return string(b)
}

// countWriter discards what it is given and counts the bytes.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
