package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/syncbuf"
)

// researchDB is a small generated network for the research commands.
func researchDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "r.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "100", "--posts", "2000", "--seed", "3"); code != 0 {
		t.Fatalf("gen: %s", errOut)
	}
	return db
}

// TestResearchHelp: each research command documents its flags.
func TestResearchHelp(t *testing.T) {
	for cmd, flag := range map[string]string{"counts": "-granularity", "top": "-field", "export": "-format", "network": "-edges"} {
		code, out, _ := roost(t, cmd, "--help")
		if code != 0 || !strings.Contains(out, flag) || !strings.Contains(out, "QUERY") {
			t.Errorf("%s --help: %d %q", cmd, code, out)
		}
	}
	if code, out, _ := roost(t, "--help"); code != 0 || !strings.Contains(out, "network") || !strings.Contains(out, "export") {
		t.Errorf("--help: %q", out)
	}
	if _, out, _ := roost(t, "export", "--help"); !strings.Contains(out, "The query include:nativeretweets alone\nmatches every post") ||
		!strings.Contains(out, "a line every 5 seconds") {
		t.Errorf("export --help does not name the query of the whole database or the progress: %q", out)
	}
	if _, out, _ := roost(t, "network", "--help"); !strings.Contains(out, "-part") || !strings.Contains(out, "FILE-nodes.csv") ||
		!strings.Contains(out, "in the output") {
		t.Errorf("network --help does not name the CSV tables or what --min-degree counts: %q", out)
	}
}

// TestExportProgress: roost export of a set of several chunks writes a
// progress line per interval to a standard error that is not a terminal
// (here every chunk: the interval is shortened), the counts rising to the
// whole set, and include:nativeretweets exports every post.
func TestExportProgress(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "50", "--posts", "3500", "--seed", "4"); code != 0 {
		t.Fatalf("gen: %s", errOut)
	}
	var out, errb syncbuf.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, lookupEnv: func(string) (string, bool) { return "", false },
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), progressEvery: time.Nanosecond}
	file := filepath.Join(t.TempDir(), "all.csv")
	if err := cmdExport(context.Background(), e, []string{"--db", db, "--out", file, "include:nativeretweets"}); err != nil {
		t.Fatal(err)
	}
	var counts []int
	for _, line := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		var n int
		var rate float64
		if _, err := fmt.Sscanf(line, "exporting: %d posts (%f posts/s)", &n, &rate); err == nil {
			counts = append(counts, n)
		}
	}
	if !slices.Equal(counts, []int{1000, 2000, 3000, 3500}) || !strings.HasSuffix(errb.String(), "exported 3500 posts\n") ||
		strings.Contains(errb.String(), "\r") || out.String() != "" {
		t.Errorf("progress %v; stderr %q, stdout %q", counts, errb.String(), out.String())
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll(); err != nil || len(rows) != 3501 {
		t.Errorf("%d rows (%v), want 3,500 posts", len(rows)-1, err)
	}
}

// TestResearchCommands: counts, top and export answer a query given after
// or between the flags, agree with each other, and write CSV or JSON;
// bad flags are usage errors.
func TestResearchCommands(t *testing.T) {
	db := researchDB(t)
	code, out, errOut := roost(t, "counts", "--db", db, "the", "--granularity", "day")
	if code != 0 {
		t.Fatalf("counts: %d %s", code, errOut)
	}
	var c export.Counts
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Meta.TotalTweetCount == 0 || c.Meta.Granularity != "day" {
		t.Fatalf("counts: %v %s", err, out)
	}
	code, out, _ = roost(t, "counts", "--db", db, "--csv", "--", "the", "-filter:replies")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || strings.Join(rows[0], ",") != "start,end,tweet_count" || len(rows) < 2 {
		t.Fatalf("counts --csv: %d %v %q", code, err, out)
	}

	code, out, errOut = roost(t, "top", "--db", db, "--field", "authors", "--limit", "3", "the")
	var top export.Top
	if code != 0 || json.Unmarshal([]byte(out), &top) != nil || len(top.Values) != 3 || top.Values[0].IDStr == nil {
		t.Fatalf("top: %d %s %s", code, out, errOut)
	}
	code, out, _ = roost(t, "top", "--db", db, "--field", "lang", "--granularity", "day", "--csv", "the")
	if code != 0 || !strings.HasPrefix(out, "start,end,value,count\n") {
		t.Fatalf("top --csv: %d %q", code, out)
	}

	file := filepath.Join(t.TempDir(), "the.csv")
	code, _, errOut = roost(t, "export", "--db", db, "--out", file, "the")
	if code != 0 || !strings.Contains(errOut, "exported ") {
		t.Fatalf("export: %d %s", code, errOut)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err = csv.NewReader(f).ReadAll()
	if err != nil || int64(len(rows)-1) != c.Meta.TotalTweetCount {
		t.Fatalf("export: %d rows (%v), counts say %d", len(rows)-1, err, c.Meta.TotalTweetCount)
	}
	code, out, _ = roost(t, "export", "--db", db, "--format", "ids", "--limit", "5", "the")
	if code != 0 || len(strings.Fields(out)) != 5 || out[0:len(rows[1][0])] != rows[1][0] {
		t.Fatalf("export ids: %d %q", code, out)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".*partial*"))
	if len(matches) != 0 {
		t.Errorf("left behind: %v", matches)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"counts", "--db", db}, "a search query is required"},
		{[]string{"counts", "--db", db, "--granularity", "week", "x"}, "--granularity must be minute, hour or day"},
		{[]string{"counts", "--db", db, "(x"}, "query:"},
		{[]string{"top", "--db", db, "--field", "colour", "x"}, "--field"},
		{[]string{"export", "--db", db, "--format", "xml", "x"}, "--format must be one of csv, jsonl, ids, v1, v2"},
		{[]string{"counts", "--db", db, "--granularity", "minute", "the"}, "coarser --granularity"},
	} {
		code, _, errOut := roost(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: %d %s, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestNetworkCommand: roost network writes a GEXF file Gephi reads (nodes
// and weighted edges), or CSV tables of edges and nodes (both, side by
// side, with --out; one with --part); bad flags are usage errors.
func TestNetworkCommand(t *testing.T) {
	db := researchDB(t)
	file := filepath.Join(t.TempDir(), "n.gexf")
	code, _, errOut := roost(t, "network", "--db", db, "--out", file, "--", "include:nativeretweets", "-lang:xx")
	if code != 0 || !strings.Contains(errOut, "network: ") {
		t.Fatalf("network: %d %s", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `<gexf xmlns="http://gexf.net/1.3" version="1.3">`) ||
		!strings.Contains(string(data), `kind="repost"`) || !strings.Contains(string(data), `kind="mention"`) {
		t.Fatalf("gexf: %v %.300s", err, data)
	}
	code, out, errOut := roost(t, "network", "--db", db, "--edges", "reply", "--format", "csv", "the")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) < 2 || rows[0][0] != "Source" || rows[1][3] != "reply" ||
		!strings.Contains(errOut, "note: standard output holds the edges table; --part nodes writes the nodes") {
		t.Fatalf("network csv: %d %v %q %s", code, err, out, errOut)
	}
	stdoutEdges := out
	code, out, _ = roost(t, "network", "--db", db, "--edges", "reply", "--format", "csv", "--part", "nodes", "the")
	stdoutNodes := out
	if code != 0 || !strings.HasPrefix(out, "Id,Label,screen_name,name,user_id,followers_count,posts\n") {
		t.Fatalf("network csv --part nodes: %d %.200q", code, out)
	}

	// --out FILE.csv: the edges in FILE.csv, the nodes beside it, the same
	// tables as on standard output; every edge's ends are nodes.
	dir := t.TempDir()
	code, _, errOut = roost(t, "network", "--db", db, "--edges", "reply", "--format", "csv", "--out", filepath.Join(dir, "net.csv"), "the")
	edges, err1 := os.ReadFile(filepath.Join(dir, "net.csv"))
	nodes, err2 := os.ReadFile(filepath.Join(dir, "net-nodes.csv"))
	if code != 0 || err1 != nil || err2 != nil || string(edges) != stdoutEdges || string(nodes) != stdoutNodes ||
		strings.Contains(errOut, "note:") || !strings.Contains(errOut, "the nodes to "+filepath.Join(dir, "net-nodes.csv")) {
		t.Fatalf("network csv --out: %d %v %v %s", code, err1, err2, errOut)
	}
	ids := map[string]bool{}
	nodeRows, err := csv.NewReader(strings.NewReader(string(nodes))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range nodeRows[1:] {
		ids[r[0]] = true
		if r[1] == "" || r[4] != r[0] {
			t.Errorf("node row %q: want a label and the user id", r)
		}
	}
	for _, r := range rows[1:] {
		if !ids[r[0]] || !ids[r[1]] {
			t.Errorf("edge %q: an end is not in the nodes table", r)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".*partial*"))
	if len(matches) != 0 {
		t.Errorf("left behind: %v", matches)
	}
	if got := nodesPath("a/net"); got != "a/net-nodes" {
		t.Errorf("nodesPath(a/net) = %q", got)
	}
	if code, _, errOut := roost(t, "network", "--db", db, "--format", "graphml", "the"); code != 0 ||
		!strings.Contains(errOut, "add include:nativeretweets to the query for repost edges") {
		t.Fatalf("network with repost edges, without reposts: %d %s", code, errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"network", "--db", db, "--edges", "likes", "x"}, "--edges must be"},
		{[]string{"network", "--db", db, "--format", "dot", "x"}, "--format must be one of gexf, graphml, csv"},
		{[]string{"network", "--db", db, "--min-degree", "-1", "x"}, "must not be negative"},
		{[]string{"network", "--db", db, "--part", "nodes", "x"}, "--part is edges or nodes, with --format csv"},
		{[]string{"network", "--db", db, "--format", "csv", "--part", "users", "x"}, "--part is edges or nodes"},
	} {
		code, _, errOut := roost(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: %d %s, want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
