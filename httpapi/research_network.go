package httpapi

import (
	"context"
	"net/url"
	"strconv"

	"github.com/roostapi/roost/network"
)

// networkArgs are the network endpoint's own parameters.
type networkArgs struct {
	kinds     []network.Kind
	part      string // the CSV table: network.PartEdges or PartNodes
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
	if a.research.format, err = choice(qs, "format", network.Formats()); err != nil {
		return err
	}
	if qs.Get("part") != "" && a.research.format != network.FormatCSV {
		return invalid("part", "applies to format=csv only")
	}
	if a.research.network.part, err = choice(qs, "part", network.Parts()); err != nil {
		return err
	}
	a.research.network.kinds = network.Kinds()
	if e := qs.Get("edges"); e != "" {
		kinds, err := network.ParseKinds(e)
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
// table is the edges or the nodes alone) and written.
func streamNetwork(ctx context.Context, s *server, a *args, st *stream) error {
	var g *network.Graph
	err := s.bounded(ctx, "gathering the network", func(ctx context.Context) (err error) {
		g, err = network.Build(ctx, s.store, a.query, a.queryText, network.Options{Kinds: a.research.network.kinds,
			MinDegree: a.research.network.minDegree, MaxNodes: a.research.network.maxNodes})
		return err
	})
	if err != nil {
		return err
	}
	if a.research.format == network.FormatCSV {
		part := a.research.network.part
		rows, name := len(g.Edges), "roost-network.csv"
		if part == network.PartNodes {
			rows, name = len(g.Nodes), "roost-network-nodes.csv"
		}
		if err := st.charge(ctx, rows); err != nil {
			return err
		}
		attachment(st.w, network.ContentType(network.FormatCSV), name)
		st.w.Header().Set(headerItems, strconv.Itoa(rows))
		return g.WriteCSV(st, part)
	}
	if err := st.charge(ctx, g.Len()); err != nil {
		return err
	}
	ext := "." + a.research.format
	attachment(st.w, network.ContentType(a.research.format), "roost-network"+ext)
	st.w.Header().Set(headerItems, strconv.Itoa(g.Len()))
	return g.Write(st, a.research.format)
}
