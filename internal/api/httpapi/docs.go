package httpapi

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
)

// renderDocs renders the document as one self-contained HTML page: no
// script, no external style or font, so it reads the same offline.
func renderDocs(doc *document) ([]byte, error) {
	type opView struct {
		ID, Method, Path string
		Op               *operation
	}
	var groups []struct {
		Tag string
		Ops []opView
	}
	index := map[string]int{}
	for _, path := range sortedKeys(doc.Paths) {
		for _, method := range sortedKeys(doc.Paths[path]) {
			op := doc.Paths[path][method]
			tag := op.Tags[0]
			i, ok := index[tag]
			if !ok {
				i = len(groups)
				index[tag] = i
				groups = append(groups, struct {
					Tag string
					Ops []opView
				}{Tag: tag})
			}
			groups[i].Ops = append(groups[i].Ops, opView{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Op: op})
		}
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
	err = page.Execute(&buf, map[string]any{"Doc": doc, "Groups": groups, "Schemas": sortedKeys(doc.Components.Schemas)})
	if err != nil {
		return nil, fmt.Errorf("render the docs page: %w", err)
	}
	return buf.Bytes(), nil
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
	"type": typeHTML, "fields": fieldsOf, "keys": sortedKeys[*response],
	"resolve": func(r *response) *response { return r },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Doc.Info.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2125;display:flex}
nav{width:21rem;height:100vh;overflow:auto;position:sticky;top:0;background:#f4f5f7;padding:1rem;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding-left:.5rem;margin:.2rem 0 .8rem}nav li{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
main{flex:1;padding:1rem 2rem;max-width:60rem}
code{font-family:ui-monospace,monospace;font-size:.92em}
.m{display:inline-block;min-width:3.2rem;font-weight:600;font-family:ui-monospace,monospace}
section.op{border-top:1px solid #ddd;padding:.6rem 0}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
h1{font-size:1.6rem}h2{margin-top:2rem}h3{font-size:1.05rem;margin:.3rem 0}
a{color:#0645ad;text-decoration:none}
</style></head>
<body>
<nav><strong>{{.Doc.Info.Title}}</strong>
{{range .Groups}}<div>{{.Tag}}</div><ul>{{range .Ops}}<li><a href="#op-{{.ID}}"><span class="m">{{.Method}}</span> {{.Path}}</a></li>{{end}}</ul>{{end}}
<div>schemas</div><ul>{{range .Schemas}}<li><a href="#schema-{{.}}">{{.}}</a></li>{{end}}</ul>
</nav>
<main>
<h1>{{.Doc.Info.Title}} <small>{{.Doc.Info.Version}}</small></h1>
<p>{{.Doc.Info.Description}}</p>
<p>OpenAPI {{.Doc.OpenAPI}} document: <a href="/openapi.json">/openapi.json</a>. Every response carries
<code>X-Request-Id</code>; every answer to a key carries <code>X-RateLimit-Limit</code>,
<code>X-RateLimit-Remaining</code> and <code>X-RateLimit-Reset</code> (seconds until the allowance is full).</p>
{{range .Groups}}<h2>{{.Tag}}</h2>
{{range .Ops}}<section class="op" id="op-{{.ID}}" data-method="{{.Method}}" data-path="{{.Path}}">
<h3><span class="m">{{.Method}}</span> <code>{{.Path}}</code></h3>
<p>{{.Op.Summary}}</p>
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
