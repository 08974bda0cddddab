package perf

import (
	"context"
	"fmt"
	"io"
	"time"
)

// PairComparison is one page kind served by two rigs on copies of the
// same data (roost tuned one way and another), over the same connections,
// alternating.
type PairComparison struct {
	Kind string
	A, B RunStats // the best run of each
}

// Ratio is A's requests per second over B's.
func (c PairComparison) Ratio() float64 { return c.A.PerSecond / c.B.PerSecond }

// ComparePair serves r's handler and other's on loopback ports and drives
// both, alternating, for every page kind (the paths chosen on r's data,
// which other must hold too), as CompareHTTP drives roost and the
// ceiling: each settled first, then cfg.Rounds runs of each per kind.
// names name r and other in the progress lines.
func (r *Rig) ComparePair(ctx context.Context, cfg HTTPConfig, other *Rig, names [2]string, progress io.Writer) ([]PairComparison, error) {
	cfg.defaults()
	kinds, err := r.kinds(ctx, cfg)
	if err != nil {
		return nil, err
	}
	var servers [2]server
	for i, rig := range []*Rig{r, other} {
		url, stop, err := listen(rig.Handler)
		if err != nil {
			return nil, err
		}
		defer stop()
		servers[i] = server{names[i], url, rig.key}
	}
	if err := settle(ctx, cfg, kinds, servers[:]...); err != nil {
		return nil, err
	}
	return alternate(ctx, cfg, kinds, servers, progress)
}

// ReportPair writes a pair comparison as a table: requests per second of
// each, their ratio, latencies and processor time per request.
func ReportPair(w io.Writer, names [2]string, cs []PairComparison) {
	fmt.Fprintf(w, "%-14s %12s %12s %7s %9s %9s %9s %9s %9s %9s\n", "page", names[0]+"/s", names[1]+"/s", "ratio",
		"A p50", "A p99", "B p50", "B p99", "A cpu", "B cpu")
	for _, c := range cs {
		fmt.Fprintf(w, "%-14s %12.0f %12.0f %7.3f %9s %9s %9s %9s %9s %9s\n", c.Kind, c.A.PerSecond, c.B.PerSecond, c.Ratio(),
			round(c.A.P50), round(c.A.P99), round(c.B.P50), round(c.B.P99),
			c.A.CPUPerReq.Round(100*time.Nanosecond), c.B.CPUPerReq.Round(100*time.Nanosecond))
	}
	fmt.Fprintf(w, "ratio: %s's requests/s over %s's (A: %s, B: %s); cpu: the process's processor time per request\n",
		names[0], names[1], names[0], names[1])
}
