package httpapi

import (
	"strings"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/social"
)

// researchParameter is a query parameter of a research route beyond query.
type researchParameter struct {
	name     string
	required bool
	schema   *schema
}

// researchParameters are the query parameters each research route reads
// (research.go, research_export.go, research_network.go).
func researchParameters() map[string][]researchParameter {
	granularity := researchParameter{name: "granularity", schema: &schema{Type: "string",
		Enum: []string{"minute", "hour", "day"}}}
	fields := make([]string, 0, len(social.TopFields()))
	for _, f := range social.TopFields() {
		fields = append(fields, string(f))
	}
	edges := make([]string, 0, len(graph.Kinds()))
	for _, k := range graph.Kinds() {
		edges = append(edges, string(k))
	}
	integer := func(lo, hi int) *schema {
		return &schema{Type: "integer", Minimum: intp(lo), Maximum: intp(hi)}
	}
	return map[string][]researchParameter{
		"search_counts": {granularity},
		"search_top": {{name: "field", required: true, schema: &schema{Type: "string", Enum: fields}},
			{name: "limit", schema: integer(1, maxTopLimit)}, granularity},
		"search_export": {{name: "format", schema: &schema{Type: "string", Enum: export.Formats()}},
			{name: "limit", schema: integer(1, maxExportLimit)}},
		"search_network": {{name: "format", schema: &schema{Type: "string", Enum: graph.Formats()}},
			{name: "part", schema: &schema{Type: "string", Enum: graph.Parts()}},
			{name: "edges", schema: &schema{Type: "string", Pattern: "^(" + strings.Join(edges, "|") + ")(,(" +
				strings.Join(edges, "|") + "))*$"}},
			{name: "min_degree", schema: integer(0, maxNetworkParam)}, {name: "max_nodes", schema: integer(1, maxNetworkParam)}},
	}
}

// researchDescriptions say what the research routes that answer JSON
// return and what they cost.
func researchDescriptions() map[string]string {
	return map[string]string{
		"search_counts": "The matches of the query counted by period (granularity), every period from the query's " +
			"since: (or its first match) to its until: (or its last match), zeros included, as the X API v2 counts " +
			"endpoint answers. One item is charged per period that holds a match; the periods without one are " +
			"free, and so is an answer without a match.",
		"search_top": "The most common values of a field among the query's matches, over all of them or by period " +
			"(granularity). One item is charged per value returned.",
	}
}
