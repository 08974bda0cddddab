package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
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
