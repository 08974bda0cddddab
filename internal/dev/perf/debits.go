package perf

import (
	"fmt"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/api/httpapi"
)

// Waits is how long the paid pages of a kind of run waited for their
// debits, from the handler's histogram (httpapi.DebitSecondsMetric): each
// quantile is the upper bound of the bucket that holds it.
type Waits struct {
	Pages    uint64
	P50, P99 time.Duration
}

// histogram is a snapshot of the debit histogram: bucket upper bounds in
// seconds and cumulative counts.
type histogram struct {
	bounds []float64
	counts []uint64
}

// debitHistogram reads the handler's debit histogram.
func debitHistogram(reg *prometheus.Registry) (histogram, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return histogram{}, fmt.Errorf("perf: metrics: %w", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != httpapi.DebitSecondsMetric || len(mf.GetMetric()) == 0 {
			continue
		}
		var h histogram
		for _, b := range mf.GetMetric()[0].GetHistogram().GetBucket() {
			h.bounds = append(h.bounds, b.GetUpperBound())
			h.counts = append(h.counts, b.GetCumulativeCount())
		}
		return h, nil
	}
	return histogram{}, nil // no paid page yet
}

// add adds the counts of after minus before to h (which may be empty).
func (h *histogram) add(before, after histogram) {
	if len(h.bounds) == 0 {
		h.bounds, h.counts = after.bounds, make([]uint64, len(after.counts))
	}
	for i := range after.counts {
		var was uint64
		if i < len(before.counts) {
			was = before.counts[i]
		}
		h.counts[i] += after.counts[i] - was
	}
}

// waits reads p50 and p99 off the cumulative counts.
func (h histogram) waits() Waits {
	if len(h.counts) == 0 {
		return Waits{}
	}
	total := h.counts[len(h.counts)-1]
	w := Waits{Pages: total}
	at := func(q float64) time.Duration {
		need := uint64(math.Ceil(q * float64(total)))
		for i, c := range h.counts {
			if c >= need {
				return time.Duration(h.bounds[i] * float64(time.Second))
			}
		}
		return time.Duration(math.MaxInt64) // above the last bound
	}
	if total > 0 {
		w.P50, w.P99 = at(0.5), at(0.99)
	}
	return w
}
