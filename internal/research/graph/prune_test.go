package graph

import (
	"slices"
	"testing"
)

// TestPrune: --min-degree holds in the output: a chain loses its ends
// again and again until nothing with fewer edges is left, and a user whom
// --max-nodes leaves without edges is dropped.
func TestPrune(t *testing.T) {
	graph := func(edges ...Edge) *Graph {
		g := &Graph{Edges: edges}
		seen := map[string]bool{}
		for _, e := range edges {
			for _, k := range []string{e.Source, e.Target} {
				if !seen[k] {
					seen[k] = true
					g.Nodes = append(g.Nodes, Node{Key: k, Posts: 1})
				}
			}
		}
		g.keep(g.Nodes)
		return g
	}
	keys := func(g *Graph) []string {
		var out []string
		for _, n := range g.Nodes {
			out = append(out, n.Key)
		}
		return out
	}
	chain := graph(Edge{"1", "2", Reply, 1}, Edge{"2", "3", Reply, 1}, Edge{"3", "4", Reply, 1}, Edge{"4", "5", Reply, 1})
	chain.prune(Options{MinDegree: 2})
	if len(chain.Nodes) != 0 || len(chain.Edges) != 0 {
		t.Errorf("a chain with min degree 2 keeps %v", keys(chain))
	}
	// A triangle with a tail: the tail goes, the triangle stays.
	tri := graph(Edge{"1", "2", Reply, 1}, Edge{"2", "3", Reply, 1}, Edge{"3", "1", Reply, 1}, Edge{"3", "4", Reply, 1},
		Edge{"4", "5", Reply, 1})
	tri.prune(Options{MinDegree: 2})
	if !slices.Equal(keys(tri), []string{"1", "2", "3"}) || len(tri.Edges) != 3 || tri.Nodes[2].Degree != 2 {
		t.Errorf("a triangle with a tail keeps %v, %d edges", keys(tri), len(tri.Edges))
	}
	// The three heaviest are 1, 2 and 3, but 3's only edge is to 4.
	pairs := graph(Edge{"1", "2", Reply, 10}, Edge{"3", "4", Reply, 9})
	pairs.Nodes[2].Posts = 5
	pairs.prune(Options{MinDegree: 1, MaxNodes: 3})
	if !slices.Equal(keys(pairs), []string{"1", "2"}) || len(pairs.Edges) != 1 {
		t.Errorf("max 3 nodes of degree 1 or more keeps %v", keys(pairs))
	}
}
