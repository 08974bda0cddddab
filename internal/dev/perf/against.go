package perf

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
)

// MonthClass is a search of a word within one month of the generated
// network's year (since:/until:), the page a partition by month serves
// from one partition.
func (r *Rig) MonthClass() Class {
	return Class{"search month", func(rng *rand.Rand) string {
		return "/social/search?query=" + url.QueryEscape(r.words[rng.IntN(len(r.words))]+" since:2026-01-01 until:2026-02-01")
	}}
}

// Pair is the latencies of one class on two rigs, measured in turn.
type Pair struct {
	A, B Stats
}

// Against measures every class (and MonthClass) on rig r and on other,
// in rounds, alternating which of the two goes first, with the same
// requests on both (chosen from r's samples: the two must hold the same
// data), cfg.Requests of each class per rig and round.
func (r *Rig) Against(other *Rig, cfg Config, rounds int) ([]Pair, error) {
	if cfg.Requests <= 0 {
		cfg.Requests = 500
	}
	classes := append(r.Classes(), r.MonthClass())
	out := make([]Pair, len(classes))
	for i, c := range classes {
		var a, b samples
		for round := range rounds {
			seed := cfg.Seed + uint64(i)*1000 + uint64(round)
			first, second := r, other
			fs, ss := &a, &b
			if round%2 == 1 {
				first, second, fs, ss = other, r, &b, &a
			}
			if err := first.serve(c, cfg.Requests, seed, fs); err != nil {
				return nil, err
			}
			if err := second.serve(c, cfg.Requests, seed, ss); err != nil {
				return nil, err
			}
		}
		out[i] = Pair{A: a.stats(c.Name), B: b.stats(c.Name)}
	}
	return out, nil
}

// ReportAgainst writes the pairs as a table: p50 and p99 on each rig
// (named a and b) and the ratio of b's p99 to a's.
func ReportAgainst(w io.Writer, a, b string, pairs []Pair) {
	fmt.Fprintf(w, "a: %s\nb: %s\n", a, b)
	fmt.Fprintf(w, "%-18s %8s %9s %9s %9s %9s %9s\n", "page", "requests", "a p50", "a p99", "b p50", "b p99", "p99 b/a")
	for _, p := range pairs {
		ratio := 0.0
		if p.A.P99 > 0 {
			ratio = float64(p.B.P99) / float64(p.A.P99)
		}
		fmt.Fprintf(w, "%-18s %8d %9s %9s %9s %9s %9.2f\n", p.A.Class, p.A.Requests, round(p.A.P50), round(p.A.P99),
			round(p.B.P50), round(p.B.P99), ratio)
	}
}
