package graph

import (
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// Formats a network is written in.
const (
	FormatGEXF    = "gexf"    // GEXF 1.3, Gephi's own
	FormatGraphML = "graphml" // GraphML
	FormatCSV     = "csv"     // two tables for Gephi's spreadsheet import: edges, nodes
)

// The tables of a network as CSV, as Gephi's spreadsheet import reads them
// (Data Laboratory, Import Spreadsheet: the nodes table, then the edges
// table into the same workspace).
const (
	// PartEdges is the edges table: Source, Target (node ids), Type
	// (Directed), Kind, Weight, and both ends' screen names.
	PartEdges = "edges"
	// PartNodes is the nodes table: Id, Label (the screen name),
	// screen_name, name, user_id, followers_count, posts (in the set).
	PartNodes = "nodes"
)

// Parts lists the CSV tables, edges first.
func Parts() []string { return []string{PartEdges, PartNodes} }

// EdgeColumns and NodeColumns are the headers of the CSV tables.
var (
	EdgeColumns = []string{"Source", "Target", "Type", "Kind", "Weight", "source_screen_name", "target_screen_name"}
	NodeColumns = []string{"Id", "Label", "screen_name", "name", "user_id", "followers_count", "posts"}
)

// Formats lists the formats in the order they are documented.
func Formats() []string { return []string{FormatGEXF, FormatGraphML, FormatCSV} }

// ContentType is the media type of a format.
func ContentType(format string) string {
	if format == FormatCSV {
		return "text/csv; charset=utf-8"
	}
	return "application/xml; charset=utf-8"
}

// Write writes g in format; FormatCSV writes the edges table (WriteCSV
// writes either).
func (g *Graph) Write(w io.Writer, format string) error {
	var err error
	switch format {
	case FormatGEXF:
		err = g.writeXML(w, g.gexf())
	case FormatGraphML:
		err = g.writeXML(w, g.graphml())
	case FormatCSV:
		return g.WriteCSV(w, PartEdges)
	default:
		return fmt.Errorf("network: format %q: must be gexf, graphml or csv", format)
	}
	if err != nil {
		return fmt.Errorf("network: write %s: %w", format, err)
	}
	return nil
}

func (g *Graph) writeXML(w io.Writer, doc any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", " ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteCSV writes one table of g as CSV: PartEdges or PartNodes.
func (g *Graph) WriteCSV(w io.Writer, part string) error {
	cw := csv.NewWriter(w)
	switch part {
	case PartEdges:
		names := make(map[string]string, len(g.Nodes))
		for _, n := range g.Nodes {
			names[n.Key] = n.ScreenName
		}
		cw.Write(EdgeColumns) //nolint:errcheck // Flush reports it
		for _, e := range g.Edges {
			cw.Write([]string{e.Source, e.Target, "Directed", string(e.Kind), strconv.FormatInt(e.Weight, 10), //nolint:errcheck
				names[e.Source], names[e.Target]})
		}
	case PartNodes:
		cw.Write(NodeColumns) //nolint:errcheck
		for _, n := range g.Nodes {
			cw.Write([]string{n.Key, n.ScreenName, n.ScreenName, n.Name, userID(n), //nolint:errcheck
				strconv.FormatInt(n.Followers, 10), strconv.FormatInt(n.Posts, 10)})
		}
	default:
		return fmt.Errorf("network: csv table %q: must be edges or nodes: %w", part, social.ErrInvalid)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("network: write csv %s: %w", part, err)
	}
	return nil
}

// GEXF 1.3 (gexf.net).

type gexfDoc struct {
	XMLName xml.Name  `xml:"gexf"`
	XMLNS   string    `xml:"xmlns,attr"`
	Version string    `xml:"version,attr"`
	Meta    gexfMeta  `xml:"meta"`
	Graph   gexfGraph `xml:"graph"`
}

type gexfMeta struct {
	Creator     string `xml:"creator"`
	Description string `xml:"description"`
}

type gexfGraph struct {
	Mode       string      `xml:"mode,attr"`
	EdgeType   string      `xml:"defaultedgetype,attr"`
	Attributes []gexfAttrs `xml:"attributes"`
	Nodes      []gexfNode  `xml:"nodes>node"`
	Edges      []gexfEdge  `xml:"edges>edge"`
}

type gexfAttrs struct {
	Class string     `xml:"class,attr"`
	Attrs []gexfAttr `xml:"attribute"`
}

type gexfAttr struct {
	ID    string `xml:"id,attr"`
	Title string `xml:"title,attr"`
	Type  string `xml:"type,attr"`
}

type gexfNode struct {
	ID     string      `xml:"id,attr"`
	Label  string      `xml:"label,attr"`
	Values []gexfValue `xml:"attvalues>attvalue"`
}

type gexfEdge struct {
	ID     string      `xml:"id,attr"`
	Source string      `xml:"source,attr"`
	Target string      `xml:"target,attr"`
	Kind   string      `xml:"kind,attr"`
	Weight int64       `xml:"weight,attr"`
	Values []gexfValue `xml:"attvalues>attvalue"`
}

type gexfValue struct {
	For   string `xml:"for,attr"`
	Value string `xml:"value,attr"`
}

func (g *Graph) gexf() gexfDoc {
	doc := gexfDoc{XMLNS: "http://gexf.net/1.3", Version: "1.3",
		Meta: gexfMeta{Creator: "roost", Description: "search: " + g.Query},
		Graph: gexfGraph{Mode: "static", EdgeType: "directed", Attributes: []gexfAttrs{
			{Class: "node", Attrs: []gexfAttr{{"screen_name", "screen_name", "string"}, {"name", "name", "string"},
				{"user_id", "user_id", "string"}, {"followers_count", "followers_count", "long"}, {"posts", "posts", "long"}}},
			{Class: "edge", Attrs: []gexfAttr{{"kind", "kind", "string"}}},
		}}}
	doc.Graph.Nodes = make([]gexfNode, len(g.Nodes))
	for i, n := range g.Nodes {
		doc.Graph.Nodes[i] = gexfNode{ID: n.Key, Label: n.ScreenName, Values: []gexfValue{
			{"screen_name", n.ScreenName}, {"name", n.Name}, {"user_id", userID(n)},
			{"followers_count", strconv.FormatInt(n.Followers, 10)}, {"posts", strconv.FormatInt(n.Posts, 10)}}}
	}
	doc.Graph.Edges = make([]gexfEdge, len(g.Edges))
	for i, e := range g.Edges {
		doc.Graph.Edges[i] = gexfEdge{ID: strconv.Itoa(i), Source: e.Source, Target: e.Target, Kind: string(e.Kind),
			Weight: e.Weight, Values: []gexfValue{{"kind", string(e.Kind)}}}
	}
	return doc
}

func userID(n Node) string {
	if n.UserID == 0 {
		return ""
	}
	return strconv.FormatInt(n.UserID, 10)
}

// GraphML (graphml.graphdrawing.org).

type graphmlDoc struct {
	XMLName xml.Name     `xml:"graphml"`
	XMLNS   string       `xml:"xmlns,attr"`
	Keys    []graphmlKey `xml:"key"`
	Graph   graphmlGraph `xml:"graph"`
}

type graphmlKey struct {
	ID   string `xml:"id,attr"`
	For  string `xml:"for,attr"`
	Name string `xml:"attr.name,attr"`
	Type string `xml:"attr.type,attr"`
}

type graphmlGraph struct {
	ID       string        `xml:"id,attr"`
	EdgeType string        `xml:"edgedefault,attr"`
	Nodes    []graphmlNode `xml:"node"`
	Edges    []graphmlEdge `xml:"edge"`
}

type graphmlNode struct {
	ID   string        `xml:"id,attr"`
	Data []graphmlData `xml:"data"`
}

type graphmlEdge struct {
	Source string        `xml:"source,attr"`
	Target string        `xml:"target,attr"`
	Data   []graphmlData `xml:"data"`
}

type graphmlData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

func (g *Graph) graphml() graphmlDoc {
	doc := graphmlDoc{XMLNS: "http://graphml.graphdrawing.org/xmlns", Keys: []graphmlKey{
		{"label", "node", "label", "string"}, {"name", "node", "name", "string"}, {"user_id", "node", "user_id", "string"},
		{"followers_count", "node", "followers_count", "long"}, {"posts", "node", "posts", "long"},
		{"kind", "edge", "kind", "string"}, {"weight", "edge", "weight", "long"},
	}, Graph: graphmlGraph{ID: "G", EdgeType: "directed"}}
	doc.Graph.Nodes = make([]graphmlNode, len(g.Nodes))
	for i, n := range g.Nodes {
		doc.Graph.Nodes[i] = graphmlNode{ID: n.Key, Data: []graphmlData{{"label", n.ScreenName}, {"name", n.Name},
			{"user_id", userID(n)}, {"followers_count", strconv.FormatInt(n.Followers, 10)}, {"posts", strconv.FormatInt(n.Posts, 10)}}}
	}
	doc.Graph.Edges = make([]graphmlEdge, len(g.Edges))
	for i, e := range g.Edges {
		doc.Graph.Edges[i] = graphmlEdge{Source: e.Source, Target: e.Target, Data: []graphmlData{{"kind", string(e.Kind)},
			{"weight", strconv.FormatInt(e.Weight, 10)}}}
	}
	return doc
}
