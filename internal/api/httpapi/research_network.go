package httpapi

import (
	"context"
	"net/url"
	"strconv"

	"github.com/roostapi/roost/internal/research/graph"
)

// networkArgs are the network endpoint's own parameters.
type networkArgs struct {
	kinds     []graph.Kind
	part      string // the CSV table: graph.PartEdges or PartNodes
	minDegree int
	maxNodes  int
}

// maxNetworkParam bounds min_degree and max_nodes.
const maxNetworkParam = 1 << 30

// parseNetwork reads edges (a comma-separated list of reply, quote, repost
// and mention; default all), format (gexf, graphml or csv; default gexf),
// part (with csv: edges or nodes, the table to write; default edges),
// min_degree and max_nodes.
func parseNetwork(a *args, qs url.Values) error {
	var err error
	if a.research.format, err = choice(qs, "format", graph.Formats()); err != nil {
		return err
	}
	if qs.Get("part") != "" && a.research.format != graph.FormatCSV {
		return invalid("part", "applies to format=csv only")
	}
	if a.research.network.part, err = choice(qs, "part", graph.Parts()); err != nil {
		return err
	}
	a.research.network.kinds = graph.Kinds()
	if e := qs.Get("edges"); e != "" {
		kinds, err := graph.ParseKinds(e)
		if err != nil {
			return invalid("edges", "must be a comma-separated list of reply, quote, repost and mention")
		}
		a.research.network.kinds = kinds
	}
	if a.research.network.minDegree, err = intParam(qs, "min_degree", 0, 0, maxNetworkParam); err != nil {
		return err
	}
	a.research.network.maxNodes, err = intParam(qs, "max_nodes", 0, 1, maxNetworkParam)
	return err
}

// streamNetwork is GET /search/network: the network of the matches of a
// query (users as nodes, replies, quotes, reposts and mentions as edges
// weighted by posts) as a file for Gephi. It is gathered within the search
// timeout, then charged one item per node and per edge written (a CSV
// table is the edges or the nodes alone) and written. With an
// Idempotency-Key it is gathered from the posts of the first try, and a
// repeat of one paid for is sent free (Idempotent-Replayed).
func streamNetwork(ctx context.Context, s *server, a *args, st *stream) error {
	var g *graph.Graph
	err := s.bounded(ctx, "gathering the network", func(ctx context.Context) (err error) {
		g, err = graph.Build(ctx, s.store, st.bounded(a.query), a.queryText, graph.Options{Kinds: a.research.network.kinds,
			MinDegree: a.research.network.minDegree, MaxNodes: a.research.network.maxNodes})
		return err
	})
	if err != nil {
		return err
	}
	rows, name := g.Len(), "roost-network."+a.research.format
	if a.research.format == graph.FormatCSV {
		rows, name = len(g.Edges), "roost-network.csv"
		if a.research.network.part == graph.PartNodes {
			rows, name = len(g.Nodes), "roost-network-nodes.csv"
		}
	}
	replayed, err := st.chargeOnce(ctx, rows)
	if err != nil {
		return err
	}
	attachment(st.w, graph.ContentType(a.research.format), name)
	h, charged := st.w.Header(), rows
	if replayed {
		h.Set(headerReplayed, "true")
		charged = 0
	}
	h.Set(headerItems, strconv.Itoa(charged))
	h.Set(headerItemsReplayed, strconv.Itoa(rows-charged))
	if a.research.format == graph.FormatCSV {
		return g.WriteCSV(st, a.research.network.part)
	}
	return g.Write(st, a.research.format)
}
