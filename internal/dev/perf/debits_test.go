package perf

import (
	"testing"
	"time"
)

// TestDebitWaits: the quantiles are the upper bounds of the buckets that
// hold them, over the counts a run added.
func TestDebitWaits(t *testing.T) {
	before := histogram{bounds: []float64{0.001, 0.002, 0.005}, counts: []uint64{10, 10, 10}}
	after := histogram{bounds: before.bounds, counts: []uint64{60, 108, 110}} // the run: 50, 48, 2
	var h histogram
	h.add(before, after)
	w := h.waits()
	if w.Pages != 100 || w.P50 != time.Millisecond || w.P99 != 5*time.Millisecond {
		t.Errorf("waits = %+v, want 100 pages, p50 1ms, p99 5ms", w)
	}
	h.add(after, histogram{bounds: before.bounds, counts: []uint64{60, 208, 210}}) // 100 more at 2ms
	if w := h.waits(); w.Pages != 200 || w.P50 != 2*time.Millisecond || w.P99 != 2*time.Millisecond {
		t.Errorf("waits = %+v, want 200 pages, p50 2ms, p99 2ms", w)
	}
	if w := (histogram{}).waits(); w != (Waits{}) {
		t.Errorf("no pages: %+v", w)
	}
}
