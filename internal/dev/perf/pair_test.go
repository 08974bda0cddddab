package perf

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestComparePair: two rigs on two stores of the same data are each
// driven with their own key (a key of one is unknown to the other, which
// would answer 401 and stop the run) on every kind asked for, and the
// report names both.
func TestComparePair(t *testing.T) {
	ctx := context.Background()
	var rigs [2]*Rig
	for i := range rigs {
		r, err := NewRig(ctx, smallStore(t))
		if err != nil {
			t.Fatal(err)
		}
		rigs[i] = r
	}
	names := [2]string{"first", "second"}
	cs, err := rigs[0].ComparePair(ctx, HTTPConfig{Connections: 2, Duration: 150 * time.Millisecond, Warmup: -1, Settle: -1,
		Rounds: 2, Paths: 4, Seed: 1, Kinds: []string{"timeline", "profile"}}, rigs[1], names, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Kind != "timeline" || cs[1].Kind != "profile" {
		t.Fatalf("comparisons %+v", cs)
	}
	var out bytes.Buffer
	ReportPair(&out, names, cs)
	for _, c := range cs {
		if c.A.Requests == 0 || c.B.Requests == 0 || c.Ratio() <= 0 {
			t.Errorf("%s: %+v", c.Kind, c)
		}
		if !strings.Contains(out.String(), c.Kind) || !strings.Contains(out.String(), "second/s") {
			t.Errorf("the report lacks %s or a side:\n%s", c.Kind, out.String())
		}
	}
}
