package gen

import (
	"context"
	"testing"
)

// BenchmarkGenerate measures the generator alone, writing into a writer
// that discards: it must stay well above the stores' write speed.
func BenchmarkGenerate(b *testing.B) {
	cfg := Config{Seed: 1, Users: DefaultUsers, Posts: 200_000}
	b.ReportAllocs()
	var posts int64
	cpu := cpuTime()
	for b.Loop() {
		sum, err := Generate(context.Background(), discard{}, cfg, nil)
		if err != nil {
			b.Fatal(err)
		}
		posts += sum.Posts
	}
	b.ReportMetric(float64(posts)/b.Elapsed().Seconds(), "posts/s")
	// On a shared machine wall time undercounts; CPU time (all threads,
	// the garbage collector included) does not.
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(posts)/used.Seconds(), "posts/cpu-s")
	}
}
