package main

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roostapi/roost/billing"
	"github.com/roostapi/roost/gen"
	"github.com/roostapi/roost/httpapi"
	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlite"
)

// harvestUpstream serves a small generated network over HTTP and returns
// its URL, a key with credit and the network's examples.
func harvestUpstream(t *testing.T) (string, string, gen.Examples) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "up.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sum, err := gen.Generate(ctx, st, gen.Config{Seed: 5, Users: 80, Posts: 1500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	key, digest, prefix := billing.NewKey()
	if _, err := st.CreateKey(ctx, social.APIKey{Name: "h", Prefix: prefix, Digest: digest}, 1_000*billing.MicrosPerUSD); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{RateLimit: -1}, st, nil, nil))
	t.Cleanup(srv.Close)
	return srv.URL, key, sum.Examples
}

// TestHarvestResume: --max-cost holds across --resume: the resumed run
// spends only what the runs before it left.
func TestHarvestResume(t *testing.T) {
	base, key, _ := harvestUpstream(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "s.jsonl")
	run := func(args ...string) (int, string, string) {
		return roost(t, append([]string{"harvest", "--base-url", base, "--key", key, "--ahead", "0"}, args...)...)
	}
	// 0.01 USD is 50 items at the default price: two pages of 20, and the
	// third could cross it.
	code, _, errOut := run("search", "the", "--out", out, "--max-cost", "0.01")
	if code != 0 || !strings.Contains(errOut, "harvested 40 items in 2 pages for 0.008 USD; stopped: the next page could cross --max-cost") {
		t.Fatalf("first run: %d %s", code, errOut)
	}
	code, _, errOut = run("search", "the", "--out", out, "--max-cost", "0.01", "--resume")
	if code != 0 || !strings.Contains(errOut, "harvested 40 items in 2 pages for 0.008 USD; stopped") {
		t.Fatalf("resumed under the same --max-cost: %d %s", code, errOut)
	}
	code, _, errOut = run("search", "the", "--out", out, "--max-cost", "0.02", "--resume")
	if code != 0 || !strings.Contains(errOut, "harvested 100 items in 5 pages for 0.02 USD; stopped") {
		t.Fatalf("resumed under a larger --max-cost: %d %s", code, errOut)
	}
}
