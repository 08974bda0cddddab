package perf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// smallStore is a generated network in a temporary SQLite file.
func smallStore(t testing.TB) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := gen.Generate(context.Background(), s, gen.Config{Seed: 3, Users: 200, Posts: 4000}, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReport(t *testing.T) {
	s := smallStore(t)
	rig, err := NewRig(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rig.Report(&out, Config{Requests: 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"timeline ", "timeline+replies", "search Latest", "search Top", "resident memory:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if err := rig.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if keys, _ := s.Keys(context.Background()); len(keys) != 1 || keys[0].RevokedAt == nil {
		t.Errorf("the bench key is not revoked: %+v", keys)
	}
	rss, peak := Memory()
	if rss <= 0 || peak < rss {
		t.Errorf("Memory() = %d, %d", rss, peak)
	}
}

func TestNewRigNeedsData(t *testing.T) {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "e.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := NewRig(context.Background(), s); err == nil || !strings.Contains(err.Error(), "no public posts") {
		t.Fatalf("empty database: %v", err)
	}
}

// BenchmarkPages reports p50 and p99 of each kind of page on the SQLite
// database named by ROOST_BENCH_DB (make one with `roost gen`):
//
//	ROOST_BENCH_DB=/tmp/b1m.db go test ./internal/dev/perf -run X -bench Pages -benchtime 500x
func BenchmarkPages(b *testing.B) {
	rig, _ := benchRig(b)
	for i, c := range rig.Classes() {
		b.Run(strings.ReplaceAll(c.Name, " ", "_"), func(b *testing.B) {
			st, err := rig.Measure(c, b.N, uint64(i))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.P50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(st.P99.Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(st.Max.Microseconds())/1000, "max-ms")
		})
	}
}

// benchRig is a rig over the SQLite database named by ROOST_BENCH_DB, and
// the store; the benchmark is skipped without one.
func benchRig(b *testing.B) (*Rig, *sqlite.Store) {
	path := os.Getenv("ROOST_BENCH_DB")
	if path == "" {
		b.Skip("set ROOST_BENCH_DB to a generated SQLite database")
	}
	s, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	rig, err := NewRig(context.Background(), s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rig.Close(context.Background()) })
	return rig, s
}
