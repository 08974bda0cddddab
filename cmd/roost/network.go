package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/roostapi/roost/network"
)

func cmdNetwork(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "network", "network --db DB [--edges reply,quote,repost,mention] [--format gexf|graphml|csv] [--min-degree N] [--max-nodes N] [--out FILE] QUERY")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	edges := fs.String("edges", "reply,quote,repost,mention", "kinds of edge: reply, quote, repost, mention (repost edges need include:nativeretweets in the query)")
	format := fs.String("format", network.FormatGEXF, "gexf (Gephi), graphml or csv (an edge list)")
	minDegree := fs.Int("min-degree", 0, "leave out users with fewer edges than this")
	maxNodes := fs.Int("max-nodes", 0, "keep only this many users, those of most weighted degree (default: all)")
	out := fs.String("out", "", "file to write (default: standard output); written whole or not at all")
	text, err := queryArgs(fs, args)
	if err != nil {
		return err
	}
	kinds, err := network.ParseKinds(*edges)
	if err != nil {
		return usageError("--edges must be a comma-separated list of reply, quote, repost and mention")
	}
	if !slices.Contains(network.Formats(), *format) {
		return usageError("--format must be one of %s", strings.Join(network.Formats(), ", "))
	}
	if *minDegree < 0 || *maxNodes < 0 {
		return usageError("--min-degree and --max-nodes must not be negative")
	}
	s, q, err := researchStore(ctx, e, *db, text)
	if err != nil {
		return err
	}
	defer s.Close()
	if slices.Contains(kinds, network.Repost) && !strings.Contains(text, "nativeretweets") &&
		!strings.Contains(text, "filter:retweets") {
		fmt.Fprintln(e.stderr, "note: search leaves native reposts out; add include:nativeretweets to the query for repost edges")
	}
	g, err := network.Build(ctx, s, q, text, network.Options{Kinds: kinds, MinDegree: *minDegree, MaxNodes: *maxNodes})
	if err != nil {
		return err
	}
	if err := toFile(e.stdout, *out, func(w io.Writer) error { return g.Write(w, *format) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "network: %d users, %d edges\n", len(g.Nodes), len(g.Edges))
	return nil
}
