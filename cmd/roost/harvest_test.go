package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/ingest/harvest"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
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

// TestHarvestResume: --max-cost holds across --resume (the resumed run
// spends only what the first left), and a resume with other arguments
// (WHAT, ARG, --type, the ids of FILE) is refused, naming what differs;
// posts-by-ids answers found or missing for every id on stdout.
func TestHarvestResume(t *testing.T) {
	base, key, ex := harvestUpstream(t)
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
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "the", "--type", "Top"}, `--type was "Latest", now "Top"`},
		{[]string{"search", "golang"}, `ARG was "the", now "golang"`},
		{[]string{"timeline", fmt.Sprint(ex.UserID)}, `WHAT was "search", now "timeline"; ARG was "the", now "` + fmt.Sprint(ex.UserID)},
	} {
		code, _, errOut := run(append(tc.args, "--out", out, "--resume")...)
		if code == 0 || !strings.Contains(errOut, "cannot resume from "+out+".checkpoint") || !strings.Contains(errOut, tc.want) {
			t.Errorf("resume with %v: %d %s; want it refused naming %s", tc.args, code, errOut, tc.want)
		}
	}

	// By ids: a file whose ids change is another harvest, even under the
	// same name; the same ids written otherwise (a comment added) are not.
	ids := filepath.Join(dir, "ids.txt")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(ids, fmt.Sprintf("%d\n1\n", ex.PostID))
	byIDs := filepath.Join(dir, "p.jsonl")
	code, stdout, errOut := run("posts-by-ids", ids, "--out", byIDs)
	if want := fmt.Sprintf("found\t%d\nmissing\t1\n", ex.PostID); code != 0 || stdout != want ||
		!strings.Contains(errOut, "1 ids found, 1 missing") {
		t.Fatalf("posts-by-ids: %d stdout %q, want %q; %s", code, stdout, want, errOut)
	}
	write(ids, fmt.Sprintf("# the same ids\n%d\n1\n", ex.PostID))
	if code, _, errOut = run("posts-by-ids", ids, "--out", byIDs, "--resume"); code != 0 {
		t.Errorf("resume with the same ids: %d %s", code, errOut)
	}
	write(ids, fmt.Sprintf("%d\n2\n", ex.PostID))
	code, _, errOut = run("posts-by-ids", ids, "--out", byIDs, "--resume")
	if code == 0 || !strings.Contains(errOut, "the ids of "+ids+" differ from those it was made with") {
		t.Errorf("resume with other ids: %d %s", code, errOut)
	}
}

// TestHarvestProgressLines: away from a terminal, the progress is a plain
// line at most every 5 seconds with items, pages, cost and rate.
func TestHarvestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now := start
	show := harvestProgress(newLineBar(&buf, "harvest search", 400, "items", 5*time.Second, func() time.Time { return now }))
	now = start.Add(2 * time.Second)
	show(harvest.Stats{Pages: 2, Items: 40, Spent: 8_000})
	if buf.Len() != 0 {
		t.Fatalf("a line before 5 s: %q", buf.String())
	}
	now = start.Add(5 * time.Second)
	show(harvest.Stats{Pages: 12, Items: 240, Spent: 48_000})
	now = start.Add(10 * time.Second)
	show(harvest.Stats{Pages: 21, Items: 400, Spent: 84_200})
	want := "harvest search: 240/400 items, 12 pages, 0.048 USD (48 items/s)\n" +
		"harvest search: 400/400 items, 21 pages, 0.0842 USD (40 items/s)\n"
	if buf.String() != want {
		t.Fatalf("lines\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	show = harvestProgress(newLineBar(&buf, "harvest search", -1, "items", 5*time.Second, func() time.Time { return now }))
	now = now.Add(5 * time.Second)
	show(harvest.Stats{Pages: 1, Items: 20, Spent: 4_000})
	if want := "harvest search: 20 items, 1 page, 0.004 USD (4 items/s)\n"; buf.String() != want {
		t.Fatalf("without a total: %q, want %q", buf.String(), want)
	}
}

// TestHarvestProgressBar: on a terminal the bar's description carries
// the pages and cost beside its count and rate of items.
func TestHarvestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	bar := newTermBar(&buf, "harvest search", 400, "items")
	harvestProgress(bar)(harvest.Stats{Pages: 12, Items: 240, Spent: 48_000})
	bar.Finish()
	for _, want := range []string{"harvest search (12 pages, 0.048 USD)", "/400", "items/s"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the bar lacks %q: %q", want, buf.String())
		}
	}
}
