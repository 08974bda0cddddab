package perf

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestCeilingSameBytes: the ceiling serves, for every path of every page
// kind, the very bytes roost serves for it.
func TestCeilingSameBytes(t *testing.T) {
	ctx := context.Background()
	rig, err := NewRig(ctx, smallStore(t))
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := rig.PageKinds(ctx, 6, 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	if got := strings.Join(names, ","); got != "timeline,search Latest,list,thread,profile" {
		t.Fatalf("page kinds %s", got)
	}
	ceiling, err := rig.NewCeiling(kinds)
	if err != nil {
		t.Fatal(err)
	}
	roostURL, stopRoost, err := listen(rig.Handler)
	if err != nil {
		t.Fatal(err)
	}
	defer stopRoost()
	ceilingURL, stopCeiling, err := listen(ceiling)
	if err != nil {
		t.Fatal(err)
	}
	defer stopCeiling()
	get := func(base, path, key string) []byte {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s%s: %d %.100s", base, path, resp.StatusCode, b)
		}
		return b
	}
	for _, k := range kinds {
		for _, p := range k.Paths {
			if a, b := get(roostURL, p, rig.key), get(ceilingURL, p, ""); !bytes.Equal(a, b) {
				t.Errorf("%s %s: the ceiling's %d bytes differ from roost's %d", k.Name, p, len(b), len(a))
			}
		}
	}
	if b := get(ceilingURL, kinds[0].Paths[0], ""); !bytes.Contains(b, []byte(`"tweets":[{`)) {
		t.Errorf("the first timeline page holds no post: %.200s", b)
	}
}

// TestCompareHTTP: a short comparison measures both servers on every
// kind and reports each.
func TestCompareHTTP(t *testing.T) {
	ctx := context.Background()
	rig, err := NewRig(ctx, smallStore(t))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := rig.CompareHTTP(ctx, HTTPConfig{Connections: 2, Duration: 150 * time.Millisecond, Warmup: -1, Rounds: 1, Paths: 4, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 5 {
		t.Fatalf("%d comparisons", len(cs))
	}
	var out bytes.Buffer
	ReportHTTP(&out, cs)
	for _, c := range cs {
		if c.Roost.Requests == 0 || c.Ceiling.Requests == 0 || c.Ratio() <= 0 {
			t.Errorf("%s: %+v", c.Kind, c)
		}
		// Every request costs processor time; no run uses more than all
		// the cores (with a margin for the clocks' resolution).
		for _, r := range []RunStats{c.Roost, c.Ceiling} {
			if runtime.GOOS == "linux" && (r.CPUPerReq <= 0 || r.Busy <= 0 || r.Busy > 1.2) {
				t.Errorf("%s: processor time %s a request, busy %.2f", c.Kind, r.CPUPerReq, r.Busy)
			}
		}
		if !strings.Contains(out.String(), c.Kind) {
			t.Errorf("the report lacks %s:\n%s", c.Kind, out.String())
		}
	}
}

// TestOnlyKinds: --kinds keeps the named kinds in the order named, and an
// unknown name is an error naming the kinds there are.
func TestOnlyKinds(t *testing.T) {
	kinds := []PageKind{{Name: "timeline"}, {Name: "search Latest"}, {Name: "profile"}}
	got, err := onlyKinds(kinds, []string{"profile", "timeline"})
	if err != nil || len(got) != 2 || got[0].Name != "profile" || got[1].Name != "timeline" {
		t.Errorf("onlyKinds(profile,timeline) = %v, %v", got, err)
	}
	if got, err := onlyKinds(kinds, nil); err != nil || len(got) != 3 {
		t.Errorf("onlyKinds(none) = %v, %v; want all", got, err)
	}
	if _, err := onlyKinds(kinds, []string{"threads"}); err == nil || !strings.Contains(err.Error(), "timeline, search Latest, profile") {
		t.Errorf("onlyKinds(threads) = %v; want an error naming the kinds", err)
	}
}
