package admin

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/api/openapi"
)

// documentPath is where the admin listener serves its OpenAPI document.
const documentPath = "/admin/openapi.json"

// route is one admin endpoint: its handler, and what the document says
// of it (generated from these types, so it cannot drift from them).
type route struct {
	method, path, summary string
	handle                func(*handler, http.ResponseWriter, *http.Request)
	request               reflect.Type // the JSON body it reads; nil: none
	status                int          // of success
	answer                reflect.Type
	query                 []queryParam
	errors                []int // besides 401 and 500, which every route may answer
	// body is how the request's body is read: JSON of request (""), JSON
	// or YAML of it ("yaml"), or any bytes, not checked as JSON ("raw").
	body string
	// maxBody bounds the request's body; 0: maxBody.
	maxBody int64
}

type queryParam struct{ name, about string }

// routes is the admin API.
func routes() []route {
	acct, secret := reflect.TypeFor[account](), reflect.TypeFor[withSecret]()
	since := queryParam{"since", "from this time on (RFC 3339, or YYYY-MM-DD for UTC midnight)"}
	until := queryParam{"until", "before this time (RFC 3339, or YYYY-MM-DD)"}
	endpoint := queryParam{"endpoint", "only this endpoint (a route name, as in the ledger)"}
	keys := []route{
		{"GET", "/admin/keys", "List every key, revoked ones too", (*handler).list, nil, 200, reflect.TypeFor[keysBody](), nil, []int{422}, "", 0},
		{"POST", "/admin/keys", "Create a key; the answer shows its secret this once", (*handler).create,
			reflect.TypeFor[createRequest](), 201, secret, nil, []int{400, 422}, "", 0},
		{"GET", "/admin/keys/{id}", "One key", (*handler).get, nil, 200, acct, nil, []int{404, 422}, "", 0},
		{"POST", "/admin/keys/{id}/topup", "Add credit to a key (a credit row in its ledger)", (*handler).topUp,
			reflect.TypeFor[topUpRequest](), 200, acct, nil, []int{400, 404, 409, 422}, "", 0},
		{"PUT", "/admin/keys/{id}/rate-limit", "Set a key's requests per minute (0: the server's default)",
			(*handler).rateLimit, reflect.TypeFor[rateLimitRequest](), 200, acct, nil, []int{400, 404, 422}, "", 0},
		{"PUT", "/admin/keys/{id}/fault", "Set a key's sandbox fault plan (injected 429s, 500s, delays, Latest cursor pages)",
			(*handler).fault, reflect.TypeFor[faultRequest](), 200, acct, nil, []int{400, 404, 422}, "", 0},
		{"POST", "/admin/keys/{id}/revoke", "Revoke a key: it is refused from then on", (*handler).revoke,
			nil, 200, acct, nil, []int{404, 422}, "", 0},
		{"POST", "/admin/keys/{id}/rotate", "Give a key a new secret, keeping its balance and ledger; the old secret stops working",
			(*handler).rotate, nil, 200, secret, nil, []int{404, 422}, "", 0},
		{"GET", "/admin/keys/{id}/ledger", "A key's ledger, oldest first, paged by next_cursor", (*handler).ledger,
			nil, 200, reflect.TypeFor[ledgerPage](), []queryParam{endpoint, since, until,
				{"cursor", "next_cursor of the previous page"},
				{"limit", "entries per page, 1 to " + strconv.Itoa(MaxLedgerPage)}}, []int{422}, "", 0},
		{"GET", "/admin/usage", "Requests, items and spending per key, endpoint and UTC day", (*handler).usage,
			nil, 200, reflect.TypeFor[usageBody](), []queryParam{{"key_id", "only this key"}, endpoint, since, until}, []int{422}, "", 0},
	}
	return append(append(append(keys, worldRoutes()...), worldDeleteRoutes()...), worldSnapshotRoutes()...)
}

// pathParams describe the path parameters of the routes.
var pathParams = map[string]string{"id": "the key's id", "user_id": "the user's id", "tweet_id": "the post's id",
	"name": "the snapshot's name"}

// pathPatterns are the patterns of the path parameters that are not
// numbers.
var pathPatterns = map[string]string{"name": "^[a-z0-9][a-z0-9_-]{0,31}$"}

// Document is the admin API's OpenAPI 3.1 document, served at
// /admin/openapi.json on the admin listener.
func Document() *openapi.Document {
	sc := openapi.NewSchemas()
	errRef := sc.Of(reflect.TypeFor[errorBody]())
	doc := &openapi.Document{
		OpenAPI: "3.1.0",
		Info: openapi.Info{Title: "roost admin API", Version: "1", Description: "Keys, credit, rate limits, " +
			"ledgers and usage of a roost server, and its world control (/admin/world: docs/testing.md), on its own listener (--admin-addr). Every request needs " +
			"`Authorization: Bearer` with the admin token (ROOST_ADMIN_TOKEN or --admin-token-file)."},
		Paths: map[string]map[string]*openapi.Operation{},
		Components: openapi.Components{Schemas: sc.Components(), Responses: map[string]*openapi.Response{},
			SecuritySchemes: map[string]openapi.SecurityScheme{"admin": {Type: "http", Scheme: "bearer"}}},
	}
	errorAbout := map[int]string{400: "the body is not a JSON object of this endpoint", 401: "Admin token required",
		404: "Key not found, or User not found / Tweet not found / Snapshot not found (on /admin/world), or an unknown path",
		409: "a concurrent change: try again; or a snapshot's name is taken",
		422: "a value is refused (the message names it)", 500: "Internal error (the cause is in the log)"}
	for code, about := range errorAbout {
		doc.Components.Responses["Error"+strconv.Itoa(code)] = &openapi.Response{Description: about, Content: openapi.JSON(errRef)}
	}
	for _, rt := range routes() {
		ok := &openapi.Response{Description: "ok"}
		if rt.answer != nil {
			ok.Content = openapi.JSON(sc.Of(rt.answer))
		}
		op := &openapi.Operation{OperationID: operationID(rt), Summary: rt.summary, Tags: []string{"admin"},
			Security: []map[string][]string{{"admin": {}}}, Responses: map[string]*openapi.Response{strconv.Itoa(rt.status): ok}}
		for _, code := range append([]int{401, 500}, rt.errors...) {
			op.Responses[strconv.Itoa(code)] = &openapi.Response{Ref: "#/components/responses/Error" + strconv.Itoa(code)}
		}
		for _, name := range pathNames(rt.path) {
			pattern := "^[0-9]+$"
			if p, ok := pathPatterns[name]; ok {
				pattern = p
			}
			op.Parameters = append(op.Parameters, openapi.Parameter{Name: name, In: "path", Required: true,
				Description: pathParams[name], Schema: &openapi.Schema{Type: "string", Pattern: pattern}})
		}
		for _, q := range rt.query {
			op.Parameters = append(op.Parameters, openapi.Parameter{Name: q.name, In: "query", Description: q.about,
				Schema: &openapi.Schema{Type: "string"}})
		}
		switch {
		case rt.body == "raw":
			op.RequestBody = &openapi.RequestBody{Required: true, Content: map[string]openapi.MediaType{
				"application/octet-stream": {Schema: &openapi.Schema{Type: "string", Format: "binary"}}}}
		case rt.request != nil:
			op.RequestBody = &openapi.RequestBody{Required: true, Content: openapi.JSON(sc.Of(rt.request))}
			if rt.body == "yaml" {
				op.RequestBody.Content["application/yaml"] = op.RequestBody.Content["application/json"]
			}
		}
		if doc.Paths[rt.path] == nil {
			doc.Paths[rt.path] = map[string]*openapi.Operation{}
		}
		doc.Paths[rt.path][strings.ToLower(rt.method)] = op
	}
	doc.Paths[documentPath] = map[string]*openapi.Operation{"get": {OperationID: "openapi", Summary: "this document",
		Tags: []string{"admin"}, Security: []map[string][]string{{"admin": {}}}, Responses: map[string]*openapi.Response{
			"200": {Description: "ok", Content: openapi.JSON(&openapi.Schema{Type: "object"})},
			"401": {Ref: "#/components/responses/Error401"}}}}
	return doc
}

// operationID names a route's operation: its method and path in words.
func operationID(rt route) string {
	id := strings.ToLower(rt.method)
	for _, part := range strings.Split(strings.Trim(rt.path, "/"), "/")[1:] {
		if strings.HasPrefix(part, "{") {
			part = "by_id"
		}
		id += "_" + strings.ReplaceAll(part, "-", "_")
	}
	return id
}

// pathNames are the names of a path's parameters, in order.
func pathNames(path string) []string {
	var names []string
	for rest := path; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return names
		}
		name, tail, _ := strings.Cut(after, "}")
		names, rest = append(names, name), tail
	}
}

// The bodies the admin API reads and answers with.
type (
	keysBody struct {
		Keys []account `json:"keys"`
	}
	createRequest struct {
		Name       string    `json:"name,omitempty"`
		CreditsUSD usdAmount `json:"credits_usd"`
		RateLimit  int       `json:"rate_limit,omitempty"` // requests per minute; 0: the server's default
		Fault      string    `json:"fault,omitempty"`      // the sandbox's fault plan (docs/sandbox.md)
	}
	topUpRequest struct {
		CreditsUSD usdAmount `json:"credits_usd"`
	}
	rateLimitRequest struct {
		RateLimit *int `json:"rate_limit"`
	}
	faultRequest struct {
		Fault *string `json:"fault"` // a plan; "" or "none" turns faults off
	}
	ledgerPage struct {
		Entries    []entry `json:"entries"`
		NextCursor *string `json:"next_cursor"`
	}
	usageBody struct {
		Usage []usageRow `json:"usage"`
	}
	errorBody struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	}
)

// OpenAPISchema: an amount is a decimal number of dollars, as a JSON
// number or string, at most six decimals.
func (usdAmount) OpenAPISchema() *openapi.Schema {
	return &openapi.Schema{Description: "US dollars, at most six decimals", AnyOf: []*openapi.Schema{
		{Type: "number"}, {Type: "string", Pattern: `^[0-9]+(\.[0-9]{1,6})?$`}}}
}
