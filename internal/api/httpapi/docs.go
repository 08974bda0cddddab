package httpapi

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/search"
)

// docsSections are the /docs page's parts that list endpoints, in order.
var docsSections = []struct{ ID, Title, About string }{
	{sectionCore, "The 17 endpoints", "The endpoints of the hosted API's specification, numbered as its sections are."},
	{sectionAccount, "Account", "The caller's balance: exact, free, without a prefix."},
	{sectionReads, "The hosted service's other reads", "Its SDK's paths and the older paths of its earlier " +
		"documentation, with the same rules: 401 first, 422 naming the parameter, keyset cursors, billing per returned item."},
	{sectionResearch, "Research", "roost's own (the hosted service has none): counts over time, top values, exports " +
		"and networks of a search query, with the same keys, rate limits and billing."},
	{sectionMonitors, "Monitors and webhooks", "Watch users and searches and receive their events by webhook. " +
		"Calling these is free. They answer at the root, as the hosted SDK calls them, and under both prefixes."},
	{sectionService, "Service", "Probes, metrics and this description: no key needed."},
}

// docsEndpoint is one endpoint on the page: its operations under every
// prefix, shown once.
type docsEndpoint struct {
	ID, Method, Path, Number string
	Paths                    []string // every path it answers at
	Op                       *operation
}

// Where says at which prefixes the endpoint answers.
func (e *docsEndpoint) Where() string {
	switch {
	case len(e.Paths) == 3:
		return "At the root, as the hosted SDK calls it, and under /social and /twitter."
	case len(e.Paths) == 2:
		return "Under /social and /twitter."
	}
	return "Without a prefix."
}

// belowPrefix is path without its /social or /twitter segment.
func belowPrefix(path string) string {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(path, p+"/"); ok {
			return "/" + rest
		}
	}
	return path
}

// coreOrder orders the numbers 4.1–4.17 as numbers.
func coreOrder(n string) int {
	i, _ := strconv.Atoi(strings.TrimPrefix(n, "4."))
	return i
}

// renderDocs renders the document as one self-contained HTML page: no
// script, no external style or font, so it reads the same offline. Each
// endpoint is shown once, whatever prefixes it answers under, in the
// section its operations name; the search operators come from
// search.Reference.
func renderDocs(doc *document) ([]byte, error) {
	byID := map[string]*docsEndpoint{}
	for _, path := range sortedKeys(doc.Paths) {
		for _, method := range sortedKeys(doc.Paths[path]) {
			op := doc.Paths[path][method]
			e := byID[op.Endpoint]
			if e == nil {
				e = &docsEndpoint{ID: op.Endpoint, Method: strings.ToUpper(method), Path: belowPrefix(path),
					Number: op.Number, Op: op}
				byID[op.Endpoint] = e
			}
			e.Paths = append(e.Paths, path)
		}
	}
	type sectionView struct {
		ID, Title, About string
		Endpoints        []*docsEndpoint
	}
	var sections []sectionView
	for _, sec := range docsSections {
		v := sectionView{ID: sec.ID, Title: sec.Title, About: sec.About}
		for _, e := range byID {
			if e.Op.Section == sec.ID {
				v.Endpoints = append(v.Endpoints, e)
			}
		}
		slices.SortFunc(v.Endpoints, func(a, b *docsEndpoint) int {
			if c := coreOrder(a.Number) - coreOrder(b.Number); c != 0 {
				return c
			}
			return strings.Compare(a.Path+" "+a.Method, b.Path+" "+b.Method)
		})
		sections = append(sections, v)
	}
	var buf bytes.Buffer
	resolve := func(r *response) *response {
		if r.Ref != "" {
			return doc.Components.Responses[r.Ref[strings.LastIndex(r.Ref, "/")+1:]]
		}
		return r
	}
	page, err := docsPage.Clone()
	if err != nil {
		return nil, err
	}
	page.Funcs(template.FuncMap{"resolve": resolve})
	err = page.Execute(&buf, map[string]any{"Doc": doc, "Sections": sections, "Schemas": sortedKeys(doc.Components.Schemas),
		"Operators": search.Reference(), "Base": docsBase})
	if err != nil {
		return nil, fmt.Errorf("render the docs page: %w", err)
	}
	return buf.Bytes(), nil
}

// docsBase stands in the page for the server's address, which
// serveHTML writes in its place from the request.
const docsBase = "http://roost.invalid:8080"

// codeHTML writes text in which `backquotes` mark code.
func codeHTML(s string) template.HTML {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			b.WriteString("<code>" + template.HTMLEscapeString(p) + "</code>")
		} else {
			b.WriteString(template.HTMLEscapeString(p))
		}
	}
	return template.HTML(b.String())
}

// typeHTML writes a schema's type compactly, linking components.
func typeHTML(s *schema) template.HTML {
	if s == nil {
		return "any"
	}
	esc := template.HTMLEscapeString
	switch {
	case s.Ref != "":
		name := s.Ref[strings.LastIndex(s.Ref, "/")+1:]
		return template.HTML(`<a href="#schema-` + esc(name) + `">` + esc(name) + `</a>`)
	case len(s.AnyOf) > 0:
		parts := make([]string, len(s.AnyOf))
		for i, a := range s.AnyOf {
			parts[i] = string(typeHTML(a))
		}
		return template.HTML(strings.Join(parts, " | "))
	}
	var t string
	switch v := s.Type.(type) {
	case string:
		t = v
	case []string:
		t = strings.Join(v, " | ")
	default:
		t = "any"
	}
	if s.Items != nil {
		t = "array of " + string(typeHTML(s.Items))
		return template.HTML(t)
	}
	if s.AdditionalProperties != nil {
		return template.HTML("object of " + string(typeHTML(s.AdditionalProperties)))
	}
	out := esc(t)
	if s.Format != "" {
		out += " (" + esc(s.Format) + ")"
	}
	if len(s.Enum) > 0 {
		out += ": " + esc(strings.Join(s.Enum, ", "))
	}
	if s.Pattern != "" {
		out += " <code>" + esc(s.Pattern) + "</code>"
	}
	return template.HTML(out)
}

// fieldsOf lists an object schema's properties in declared order.
func fieldsOf(s *schema) []struct {
	Name     string
	Schema   *schema
	Required bool
} {
	var out []struct {
		Name     string
		Schema   *schema
		Required bool
	}
	if s == nil {
		return out
	}
	order := s.Order
	if len(order) == 0 {
		order = sortedKeys(s.Properties)
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	for _, n := range order {
		out = append(out, struct {
			Name     string
			Schema   *schema
			Required bool
		}{n, s.Properties[n], req[n]})
	}
	return out
}

var docsPage = template.Must(template.New("docs").Funcs(template.FuncMap{
	"type": typeHTML, "fields": fieldsOf, "keys": sortedKeys[*response], "code": codeHTML, "join": strings.Join,
	"resolve": func(r *response) *response { return r },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Doc.Info.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2125;display:flex}
nav{width:24rem;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f5f7;padding:1rem;box-sizing:border-box;font-size:13px;flex:none}
nav ul{list-style:none;padding-left:.5rem;margin:.2rem 0 .8rem}nav li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
nav .h{font-weight:600;margin-top:.4rem}
main{flex:1;padding:1rem 2rem;max-width:62rem;min-width:0}
code,pre{font-family:ui-monospace,monospace;font-size:.92em}
pre{background:#f4f5f7;padding:.5rem .7rem;border-radius:4px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.m{display:inline-block;min-width:3.2rem;font-weight:600;font-family:ui-monospace,monospace}
.n{display:inline-block;min-width:2.4rem;color:#555;font-variant-numeric:tabular-nums}
.where{color:#555;margin:.1rem 0}
section.op{border-top:1px solid #ddd;padding:.6rem 0}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
h1{font-size:1.6rem}h2{margin-top:2rem}h3{font-size:1.05rem;margin:.3rem 0}
a{color:#0645ad;text-decoration:none}
table.ops{width:100%}table.ops td:first-child{width:7rem}
</style></head>
<body>
<nav><strong>{{.Doc.Info.Title}}</strong>
<div class="h">Start here</div><ul><li><a href="#try">Try it</a></li><li><a href="#operators">Search operators</a></li>
<li><a href="#shapes">Why posts have three shapes</a></li><li><a href="#headers">Headers and money</a></li></ul>
{{range .Sections}}<div class="h">{{.Title}}</div><ul>{{range .Endpoints}}<li><a href="#op-{{.ID}}">{{if .Number}}<span class="n">{{.Number}}</span>{{end}}<span class="m">{{.Method}}</span> {{.Path}}</a></li>{{end}}</ul>
{{end}}<div class="h">Schemas</div><ul>{{range .Schemas}}<li><a href="#schema-{{.}}">{{.}}</a></li>{{end}}</ul>
</nav>
<main>
<h1>{{.Doc.Info.Title}} <small>{{.Doc.Info.Version}}</small></h1>
<p>{{code .Doc.Info.Description}}</p>
<p>OpenAPI {{.Doc.OpenAPI}} document: <a href="/openapi.json">/openapi.json</a>.</p>

<h2 id="try">Try it</h2>
<p>Set the server's address and a key (the demo key <code>roost serve</code> printed on its first start, or one
from <code>roost keys create --credits 10</code>), then copy any line below:</p>
<pre>export ROOST={{.Base}}
export KEY=roost_…
curl -H "Authorization: Bearer $KEY" "$ROOST/user/balance"</pre>
<p>Every data endpoint answers under two prefixes, <code>/social</code> (neutral) and <code>/twitter</code> (the hosted
service's): <code>/social/search</code> and <code>/twitter/search</code> are one endpoint. The paths below leave the
prefix out, and the examples use <code>/social</code>. The ids and names in the examples are from the demo network
<code>roost serve</code> makes on its first start; with other data, put your own. Pages hold 20 items (30 for a thread,
100 for a user's lists); send <code>next_cursor</code> back as <code>cursor</code> for the next page, until it is
<code>null</code>.</p>

<h2 id="operators">Search operators</h2>
<p>The <code>query</code> of <code>/search</code>, of the research endpoints and of search monitors, in the network's
operator language. Latest (the default <code>type</code>) is newest first; Top is by engagement and recency.</p>
<table class="ops"><tr><th>kind</th><th>operator</th><th>matches</th><th>example</th></tr>
{{$kind := ""}}{{range .Operators}}<tr class="operator"><td>{{if ne .Kind $kind}}{{.Kind}}{{end}}</td><td><code>{{.Syntax}}</code></td><td>{{code .About}}</td><td><code>{{.Example}}</code></td></tr>{{$kind = .Kind}}
{{end}}</table>

<h2 id="shapes">Why posts have three shapes</h2>
<p>Each endpoint answers posts in the shape the hosted service answers it with, so that a client written for the
hosted service reads roost unchanged; roost does not merge them, since such clients parse each endpoint's own shape.</p>
<ul>
<li><a href="#schema-CompactPost">CompactPost</a>: pages of posts (timelines, community and list posts, mentions,
search, comments, quotes, likes). <code>id_str</code> without the integer <code>id</code>, and a compact author.</li>
<li><a href="#schema-FullPost">FullPost</a>: posts asked for by id and threads (tweets-by-ids, one post, a thread):
the integer ids besides the strings, the author's full profile and <code>is_pinned</code>.</li>
<li><a href="#schema-HighlightPost">HighlightPost</a>: a user's highlights: the full shape's first fields, without
counters and entities.</li>
</ul>
<p>In all three, <code>quoted_status</code> and <code>retweeted_status</code> have the outer post's shape, two levels
deep.</p>

<h2 id="headers">Headers and money</h2>
<p>Send <code>Authorization: Bearer roost_…</code>. Every response carries <code>X-Request-Id</code>; every answer to a
key carries <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code>
(seconds until the allowance is full). Each returned item is charged from the key's prepaid credits, only when the
balance covers the whole answer; errors and empty pages are free. A paid answer says what it charged in
<code>X-Roost-Items</code> and <code>X-Roost-Charged-USD</code>. Each endpoint lists its parameters in this order: the
path's, the query's (<code>query</code>, <code>type</code>, <code>cursor</code>, …), then the headers
<code>Idempotency-Key</code> (a retry is not charged twice) and <code>X-Roost-Fault</code> (the sandbox: failures on
request, never charged).</p>

{{range .Sections}}<h2 id="section-{{.ID}}">{{.Title}}</h2>
<p>{{.About}}</p>
{{range .Endpoints}}<section class="op" id="op-{{.ID}}" data-method="{{.Method}}" data-path="{{.Path}}" data-paths="{{join .Paths " "}}">
<h3>{{if .Number}}<span class="n">{{.Number}}</span> {{end}}<span class="m">{{.Method}}</span> <code>{{.Path}}</code></h3>
<p class="where">{{.Where}}</p>
<p>{{.Op.Summary}}</p>
{{with .Op.Description}}<p>{{.}}</p>{{end}}
{{range .Op.CodeSamples}}<pre class="sample">{{.Source}}</pre>{{end}}
{{with .Op.Parameters}}<table><tr><th>parameter</th><th>in</th><th>type</th><th>about</th></tr>
{{range .}}<tr><td><code>{{.Name}}</code>{{if .Required}} (required){{end}}</td><td>{{.In}}</td><td>{{type .Schema}}</td><td>{{.Description}}</td></tr>
{{end}}</table>{{end}}
{{with .Op.RequestBody}}<p>Body (application/json):</p><table>{{range fields (index .Content "application/json").Schema}}<tr><td><code>{{.Name}}</code>{{if .Required}} (required){{end}}</td><td>{{type .Schema}}</td></tr>{{end}}</table>{{end}}
<table><tr><th>status</th><th>answer</th></tr>
{{$r := .Op.Responses}}{{range keys $r}}{{$resp := resolve (index $r .)}}<tr><td>{{.}}</td><td>{{$resp.Description}}{{range $ct, $m := $resp.Content}} — <code>{{$ct}}</code> {{type $m.Schema}}{{end}}</td></tr>
{{end}}</table>
</section>
{{end}}{{end}}
<h2>Schemas</h2>
{{range $name := .Schemas}}{{$s := index $.Doc.Components.Schemas $name}}<section class="schema" id="schema-{{$name}}">
<h3>{{$name}}</h3>
<table><tr><th>field</th><th>type</th></tr>
{{range fields $s}}<tr><td><code>{{.Name}}</code>{{if not .Required}} (optional){{end}}</td><td>{{type .Schema}}</td></tr>
{{end}}</table></section>
{{end}}
</main></body></html>
`))
