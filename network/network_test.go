package network_test

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

	"github.com/roostapi/roost/gen"
	"github.com/roostapi/roost/network"
	"github.com/roostapi/roost/postgres"
	"github.com/roostapi/roost/search"
	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlite"
	"github.com/roostapi/roost/storetest"
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
	kind           network.Kind
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
			add := func(k network.Kind, target string) {
				if target != src && target != "0" {
					edges[edge{src, target, k}]++
				}
			}
			if p.InReplyToID != 0 {
				add(network.Reply, strconv.FormatInt(p.InReplyToUserID, 10))
			}
			add(network.Quote, strconv.FormatInt(author(p.QuotedID), 10))
			add(network.Repost, strconv.FormatInt(author(p.RepostOfID), 10))
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
					add(network.Mention, target)
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
				g, err := network.Build(ctx, s, q, text, network.Options{Kinds: network.Kinds()})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[network.Kind]int{}
				for _, e := range g.Edges {
					kinds[e.Kind]++
					if w := wantEdges[edge{e.Source, e.Target, e.Kind}]; w != e.Weight {
						t.Errorf("%q: %s %s→%s weighs %d, want %d", text, e.Kind, e.Source, e.Target, e.Weight, w)
					}
				}
				if len(g.Edges) != len(wantEdges) {
					t.Errorf("%q: %d edges, want %d", text, len(g.Edges), len(wantEdges))
				}
				if text == "include:nativeretweets" && (kinds[network.Reply] == 0 || kinds[network.Quote] == 0 ||
					kinds[network.Repost] == 0 || kinds[network.Mention] == 0) {
					t.Errorf("%q: edges by kind %v, want every kind", text, kinds)
				}
				for _, n := range g.Nodes {
					if n.Posts != wantPosts[n.Key] || (n.UserID != 0 && n.ScreenName == "") {
						t.Errorf("%q: node %+v, want %d posts", text, n, wantPosts[n.Key])
					}
				}
				checkFormats(t, g)
			}
			q, _ := search.Parse("include:nativeretweets", time.Now())
			g, err := network.Build(ctx, s, q, "", network.Options{Kinds: []network.Kind{network.Reply}, MinDegree: 2})
			if err != nil {
				t.Fatal(err)
			}
			keep := map[string]bool{}
			for _, n := range g.Nodes {
				keep[n.Key] = true
				if n.Degree < 2 {
					t.Errorf("min degree 2 kept %+v", n)
				}
			}
			for _, e := range g.Edges {
				if !keep[e.Source] || !keep[e.Target] || e.Kind != network.Reply {
					t.Errorf("min degree 2 kept edge %+v", e)
				}
			}
			all, _ := network.Build(ctx, s, q, "", network.Options{Kinds: network.Kinds()})
			top, _ := network.Build(ctx, s, q, "", network.Options{Kinds: network.Kinds(), MaxNodes: 10})
			if len(top.Nodes) != 10 || len(top.Edges) == 0 {
				t.Fatalf("max 10 nodes: %d nodes, %d edges", len(top.Nodes), len(top.Edges))
			}
			var least int64 = 1 << 62
			for _, n := range top.Nodes {
				least = min(least, n.Weight)
			}
			above := 0
			for _, n := range all.Nodes {
				if n.Weight > least {
					above++
				}
			}
			if above > 10 {
				t.Errorf("max 10 nodes: %d nodes weigh more than the least kept (%d)", above, least)
			}
		})
	}
}

func checkFormats(t *testing.T, g *network.Graph) {
	t.Helper()
	for _, f := range network.Formats() {
		var buf bytes.Buffer
		if err := g.Write(&buf, f); err != nil {
			t.Fatal(err)
		}
		switch f {
		case network.FormatCSV:
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil || len(rows) != len(g.Edges)+1 {
				t.Errorf("csv: %d rows (%v), want %d", len(rows), err, len(g.Edges)+1)
			}
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
