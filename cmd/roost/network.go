package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/roostapi/roost/internal/research/graph"
)

func cmdNetwork(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "network", "network --db DB [--edges reply,quote,repost,mention] [--format gexf|graphml|csv] [--part edges|nodes] [--min-degree N] [--max-nodes N] [--out FILE] QUERY")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	edges := fs.String("edges", "reply,quote,repost,mention", "kinds of edge: reply, quote, repost, mention (repost edges need include:nativeretweets in the query)")
	format := fs.String("format", graph.FormatGEXF, "gexf (Gephi), graphml or csv (two tables for Gephi's spreadsheet import: edges and nodes)")
	part := fs.String("part", "", "with --format csv, write only this table: edges or nodes (default: with --out FILE both, the edges in FILE and the nodes in FILE-nodes.csv beside it; on standard output the edges)")
	minDegree := fs.Int("min-degree", 0, "leave out users with fewer edges than this in the output: those with fewer are dropped until every user written has this many among the users written, also after --max-nodes")
	maxNodes := fs.Int("max-nodes", 0, "keep at most this many users: those of most weighted degree once --min-degree is applied (default: all)")
	out := fs.String("out", "", "file to write (default: standard output); written whole or not at all")
	text, err := queryArgs(fs, args)
	if err != nil {
		return err
	}
	kinds, err := graph.ParseKinds(*edges)
	if err != nil {
		return usageError("--edges must be a comma-separated list of reply, quote, repost and mention")
	}
	if !slices.Contains(graph.Formats(), *format) {
		return usageError("--format must be one of %s", strings.Join(graph.Formats(), ", "))
	}
	if *part != "" && (*format != graph.FormatCSV || !slices.Contains(graph.Parts(), *part)) {
		return usageError("--part is edges or nodes, with --format csv")
	}
	if *minDegree < 0 || *maxNodes < 0 {
		return usageError("--min-degree and --max-nodes must not be negative")
	}
	s, q, err := researchStore(ctx, e, *db, text)
	if err != nil {
		return err
	}
	defer s.Close()
	if slices.Contains(kinds, graph.Repost) && !strings.Contains(text, "nativeretweets") &&
		!strings.Contains(text, "filter:retweets") {
		fmt.Fprintln(e.stderr, "note: search leaves native reposts out; add include:nativeretweets to the query for repost edges")
	}
	g, err := graph.Build(ctx, s, q, text, graph.Options{Kinds: kinds, MinDegree: *minDegree, MaxNodes: *maxNodes})
	if err != nil {
		return err
	}
	if err := writeNetwork(e, g, *format, *part, *out); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "network: %d users, %d edges\n", len(g.Nodes), len(g.Edges))
	return nil
}

// writeNetwork writes g to out (standard output when ""). CSV is two
// tables: part names one; without it a file gets both (nodes beside it,
// see nodesPath) and standard output the edges.
func writeNetwork(e *env, g *graph.Graph, format, part, out string) error {
	if format != graph.FormatCSV {
		return toFile(e.stdout, out, func(w io.Writer) error { return g.Write(w, format) })
	}
	table := func(part string) func(io.Writer) error {
		return func(w io.Writer) error { return g.WriteCSV(w, part) }
	}
	switch {
	case part != "":
		return toFile(e.stdout, out, table(part))
	case out == "":
		fmt.Fprintln(e.stderr, "note: standard output holds the edges table; --part nodes writes the nodes, --out FILE both")
		return toFile(e.stdout, "", table(graph.PartEdges))
	}
	nodes := nodesPath(out)
	if err := toFile(e.stdout, nodes, table(graph.PartNodes)); err != nil {
		return err
	}
	if err := toFile(e.stdout, out, table(graph.PartEdges)); err != nil {
		os.Remove(nodes) // no nodes table without its edges
		return err
	}
	fmt.Fprintf(e.stderr, "wrote the edges to %s and the nodes to %s\n", out, nodes)
	return nil
}

// nodesPath is where the nodes table of a CSV network written to path
// goes: beside it, "-nodes" before its extension (net.csv: net-nodes.csv).
func nodesPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-nodes" + ext
}
