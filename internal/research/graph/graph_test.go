package graph_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world/gen"
)

var engines = []struct {
	name string
	open func(t *testing.T) social.Store
}{
	{"sqlite", func(t *testing.T) social.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "roost.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgres", func(t *testing.T) social.Store {
		s, err := postgres.Open(context.Background(), storetest.FreshSchema(t, storetest.PostgresURL(t)), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

type edge struct {
	source, target string
	kind           graph.Kind
}

// bruteForce is the network of the matches of q, from the posts
// themselves: the weight of each edge and the posts of each author.
func bruteForce(t *testing.T, s social.Store, q *search.Query) (map[edge]int64, map[string]int64) {
	ctx := context.Background()
	edges, posts := map[edge]int64{}, map[string]int64{}
	author := func(id int64) int64 {
		if id == 0 {
			return 0
		}
		p, err := s.Post(ctx, id)
		if err != nil {
			return 0
		}
		return p.AuthorID
	}
	err := s.SearchWalk(ctx, q, 0, 500, func(ps []social.Post) error {
		for _, p := range ps {
			src := strconv.FormatInt(p.AuthorID, 10)
			posts[src]++
			add := func(k graph.Kind, target string) {
				if target != src && target != "0" {
					edges[edge{src, target, k}]++
				}
			}
			if p.InReplyToID != 0 {
				add(graph.Reply, strconv.FormatInt(p.InReplyToUserID, 10))
			}
			add(graph.Quote, strconv.FormatInt(author(p.QuotedID), 10))
			add(graph.Repost, strconv.FormatInt(author(p.RepostOfID), 10))
			seen := map[string]bool{}
			for _, m := range p.Entities.Mentions {
				target := strconv.FormatInt(m.UserID, 10)
				if m.UserID == 0 {
					target = "@" + strings.ToLower(m.ScreenName)
					if us, err := s.UsersByScreenNames(ctx, []string{m.ScreenName}); err == nil && len(us) > 0 {
						target = strconv.FormatInt(us[0].ID, 10)
					}
				}
				if !seen[target] {
					seen[target] = true
					add(graph.Mention, target)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return edges, posts
}

// TestNetwork: every edge's weight is the number of matching posts behind
// it, and every author's post count the number of its matches, on both
// engines; pruning keeps what it says; the three formats hold every node
// and edge.
func TestNetwork(t *testing.T) {
	ctx := context.Background()
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s := eng.open(t)
			if _, err := gen.Generate(ctx, s, gen.Config{Seed: 5, Users: 120, Posts: 3000}, nil); err != nil {
				t.Fatal(err)
			}
			for _, text := range []string{"include:nativeretweets", "the", "filter:replies", "filter:mentions"} {
				q, err := search.Parse(text, time.Now())
				if err != nil {
					t.Fatal(err)
				}
				wantEdges, wantPosts := bruteForce(t, s, q)
				g, err := graph.Build(ctx, s, q, text, graph.Options{Kinds: graph.Kinds()})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[graph.Kind]int{}
				for _, e := range g.Edges {
					kinds[e.Kind]++
					if w := wantEdges[edge{e.Source, e.Target, e.Kind}]; w != e.Weight {
						t.Errorf("%q: %s %s→%s weighs %d, want %d", text, e.Kind, e.Source, e.Target, e.Weight, w)
					}
				}
				if len(g.Edges) != len(wantEdges) {
					t.Errorf("%q: %d edges, want %d", text, len(g.Edges), len(wantEdges))
				}
				if text == "include:nativeretweets" && (kinds[graph.Reply] == 0 || kinds[graph.Quote] == 0 ||
					kinds[graph.Repost] == 0 || kinds[graph.Mention] == 0) {
					t.Errorf("%q: edges by kind %v, want every kind", text, kinds)
				}
				authors := 0
				for _, n := range g.Nodes {
					if n.Posts != wantPosts[n.Key] || (n.UserID != 0 && n.ScreenName == "") {
						t.Errorf("%q: node %+v, want %d posts", text, n, wantPosts[n.Key])
					}
					if n.Posts > 0 {
						authors++
					}
					if want := followers(t, s, n.UserID); n.Followers != want {
						t.Errorf("%q: node %s has %d followers, the store says %d", text, n.Key, n.Followers, want)
					}
				}
				if authors != len(wantPosts) {
					t.Errorf("%q: %d nodes wrote posts, want %d authors", text, authors, len(wantPosts))
				}
				checkFormats(t, g)
			}
			q, _ := search.Parse("include:nativeretweets", time.Now())
			all, err := graph.Build(ctx, s, q, "", graph.Options{Kinds: graph.Kinds()})
			if err != nil {
				t.Fatal(err)
			}
			for _, opt := range []graph.Options{
				{MinDegree: 2}, {MinDegree: 6}, {MaxNodes: 10}, {MinDegree: 2, MaxNodes: 10}, {MinDegree: 3, MaxNodes: 25},
			} {
				opt.Kinds = graph.Kinds()
				g, err := graph.Build(ctx, s, q, "", opt)
				if err != nil {
					t.Fatal(err)
				}
				checkPruned(t, all, g, opt)
			}
		})
	}
}

// followers is the follower count the store holds for a user (0 for none).
func followers(t *testing.T, s social.Store, id int64) int64 {
	t.Helper()
	if id == 0 {
		return 0
	}
	us, err := s.UsersByIDs(context.Background(), []int64{id})
	if err != nil || len(us) != 1 {
		t.Fatalf("user %d: %v %d", id, err, len(us))
	}
	return us[0].FollowersCount
}

// outDegrees counts each node's edges in g itself.
func outDegrees(g *graph.Graph) (map[string]int64, map[string]int64) {
	deg, weight := map[string]int64{}, map[string]int64{}
	for _, e := range g.Edges {
		deg[e.Source]++
		deg[e.Target]++
		weight[e.Source] += e.Weight
		weight[e.Target] += e.Weight
	}
	return deg, weight
}

// checkPruned: g, all pruned by opt, holds what --min-degree and
// --max-nodes say: every node has at least MinDegree edges in g itself,
// at most MaxNodes nodes, every edge of all between two kept nodes; with
// MinDegree alone, g is the largest such network (all peeled one node at
// a time until none has fewer edges); with MaxNodes alone, the nodes of
// most weight.
func checkPruned(t *testing.T, all, g *graph.Graph, opt graph.Options) {
	t.Helper()
	deg, weight := outDegrees(g)
	keep := map[string]bool{}
	for _, n := range g.Nodes {
		keep[n.Key] = true
		if deg[n.Key] < int64(opt.MinDegree) || n.Degree != deg[n.Key] || n.Weight != weight[n.Key] {
			t.Errorf("%+v: node %s has %d edges (weight %d) in the output, says %d (%d)", opt, n.Key, deg[n.Key],
				weight[n.Key], n.Degree, n.Weight)
		}
	}
	if opt.MaxNodes > 0 && len(g.Nodes) > opt.MaxNodes || len(g.Nodes) == 0 {
		t.Errorf("%+v: %d nodes", opt, len(g.Nodes))
	}
	var between int
	for _, e := range all.Edges {
		if keep[e.Source] && keep[e.Target] {
			between++
		}
	}
	if between != len(g.Edges) {
		t.Errorf("%+v: %d edges, %d between the nodes kept", opt, len(g.Edges), between)
	}
	if opt.MaxNodes == 0 {
		// Peel by hand: drop one node with fewer edges at a time.
		alive := map[string]bool{}
		for _, n := range all.Nodes {
			alive[n.Key] = true
		}
		for changed := true; changed; {
			changed = false
			d := map[string]int64{}
			for _, e := range all.Edges {
				if alive[e.Source] && alive[e.Target] {
					d[e.Source]++
					d[e.Target]++
				}
			}
			for k := range alive {
				if d[k] < int64(opt.MinDegree) {
					delete(alive, k)
					changed = true
					break
				}
			}
		}
		if len(alive) != len(g.Nodes) {
			t.Errorf("%+v: %d nodes, peeling by hand keeps %d", opt, len(g.Nodes), len(alive))
		}
	}
	if opt.MinDegree == 0 && opt.MaxNodes > 0 {
		whole := map[string]int64{}
		for _, n := range all.Nodes {
			whole[n.Key] = n.Weight
		}
		var least int64 = 1 << 62
		for _, n := range g.Nodes {
			least = min(least, whole[n.Key])
		}
		above := 0
		for _, n := range all.Nodes {
			if n.Weight > least {
				above++
			}
		}
		if above > opt.MaxNodes {
			t.Errorf("%+v: %d nodes weigh more than the least kept (%d)", opt, above, least)
		}
	}
}

func checkFormats(t *testing.T, g *graph.Graph) {
	t.Helper()
	for _, f := range graph.Formats() {
		var buf bytes.Buffer
		if err := g.Write(&buf, f); err != nil {
			t.Fatal(err)
		}
		switch f {
		case graph.FormatCSV:
			var nodes bytes.Buffer
			if err := g.WriteCSV(&nodes, graph.PartNodes); err != nil {
				t.Fatal(err)
			}
			checkCSV(t, g, buf.Bytes(), nodes.Bytes())
		default:
			var doc struct {
				Nodes []struct {
					ID string `xml:"id,attr"`
				} `xml:"graph>nodes>node"`
				Edges   []struct{} `xml:"graph>edges>edge"`
				MLNodes []struct{} `xml:"graph>node"`
				MLEdges []struct{} `xml:"graph>edge"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if n, e := len(doc.Nodes)+len(doc.MLNodes), len(doc.Edges)+len(doc.MLEdges); n != len(g.Nodes) || e != len(g.Edges) {
				t.Errorf("%s: %d nodes and %d edges, want %d and %d", f, n, e, len(g.Nodes), len(g.Edges))
			}
		}
	}
}

// checkCSV: the CSV tables hold every edge and every node of g, field by
// field, under the headers Gephi's spreadsheet import reads.
func checkCSV(t *testing.T, g *graph.Graph, edges, nodes []byte) {
	t.Helper()
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.Key] = n.ScreenName
	}
	rows, err := csv.NewReader(bytes.NewReader(edges)).ReadAll()
	if err != nil || len(rows) != len(g.Edges)+1 || strings.Join(rows[0], ",") !=
		"Source,Target,Type,Kind,Weight,source_screen_name,target_screen_name" {
		t.Fatalf("edges csv: %d rows (%v), want %d; header %q", len(rows), err, len(g.Edges)+1, rows[0])
	}
	for i, e := range g.Edges {
		want := []string{e.Source, e.Target, "Directed", string(e.Kind), strconv.FormatInt(e.Weight, 10), names[e.Source], names[e.Target]}
		if strings.Join(rows[i+1], "\x00") != strings.Join(want, "\x00") {
			t.Errorf("edge row %d: %q, want %q", i, rows[i+1], want)
		}
	}
	rows, err = csv.NewReader(bytes.NewReader(nodes)).ReadAll()
	if err != nil || len(rows) != len(g.Nodes)+1 || strings.Join(rows[0], ",") !=
		"Id,Label,screen_name,name,user_id,followers_count,posts" {
		t.Fatalf("nodes csv: %d rows (%v), want %d; header %q", len(rows), err, len(g.Nodes)+1, rows[0])
	}
	for i, n := range g.Nodes {
		id := ""
		if n.UserID != 0 {
			id = strconv.FormatInt(n.UserID, 10)
		}
		want := []string{n.Key, n.ScreenName, n.ScreenName, n.Name, id, strconv.FormatInt(n.Followers, 10), strconv.FormatInt(n.Posts, 10)}
		if strings.Join(rows[i+1], "\x00") != strings.Join(want, "\x00") {
			t.Errorf("node row %d: %q, want %q", i, rows[i+1], want)
		}
	}
}
