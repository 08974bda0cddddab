package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/api/openapi"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/research/export"
)

// The OpenAPI 3.1 document of the API is generated from the route table
// (paths, methods, parameters, request bodies, which errors a route can
// answer) and from the Go types each route answers with (responseTypes),
// so it cannot drift from what is served: a route without a response
// type fails the tests, and the end-to-end tests check every response
// they receive against the document.

// The document's parts, named as this package has always used them.
type (
	document       = openapi.Document
	info           = openapi.Info
	components     = openapi.Components
	securityScheme = openapi.SecurityScheme
	operation      = openapi.Operation
	parameter      = openapi.Parameter
	requestBody    = openapi.RequestBody
	mediaType      = openapi.MediaType
	response       = openapi.Response
	header         = openapi.Header
	schema         = openapi.Schema
)

func intp(n int) *int { return openapi.Int(n) }

// responseTypes are the Go types each route answers 200 with, by route
// name.
func responseTypes() map[string]reflect.Type {
	return map[string]reflect.Type{
		"user_tweets":             reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"user_tweets_and_replies": reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"community_tweets":        reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"tweets_by_ids":           reflect.TypeFor[[]wire.FullPost](),
		"users_by_usernames":      reflect.TypeFor[wire.UsersBody](),
		"user_lists":              reflect.TypeFor[wire.ListsPage](),
		"list_tweets":             reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"thread":                  reflect.TypeFor[wire.TweetsPage[wire.FullPost]](),
		"mentions":                reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"retweeted_by":            reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"affiliates":              reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"verified_followers":      reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"following":               reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"community_members":       reflect.TypeFor[wire.UsersPage[wire.Member]](),
		"list_members":            reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"highlights":              reflect.TypeFor[wire.TweetsPage[wire.HighlightPost]](),
		"search":                  reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"balance":                 reflect.TypeFor[wire.Balance](),
		"user":                    reflect.TypeFor[wire.Profile](),
		"users_by_ids":            reflect.TypeFor[wire.UsersBody](),
		"extended_bio":            reflect.TypeFor[wire.ExtendedBio](),
		"followers":               reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"tweet":                   reflect.TypeFor[wire.FullPost](),
		"tweet_comments":          reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"tweet_quotes":            reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"list":                    reflect.TypeFor[wire.List](),
		"space":                   reflect.TypeFor[wire.Space](),
		"commented_by":            reflect.TypeFor[wire.Commented](),
		"retweeted_by_user":       reflect.TypeFor[wire.Retweeted](),
		"following_user":          reflect.TypeFor[wire.Following](),
		"statuses_show":           reflect.TypeFor[wire.FullPost](),
		"followers_list":          reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"friends_list":            reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"search_users":            reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"user_likes":              reflect.TypeFor[wire.TweetsPage[wire.CompactPost]](),
		"liking_users":            reflect.TypeFor[wire.UsersPage[wire.Profile]](),
		"search_counts":           reflect.TypeFor[export.Counts](),
		"search_top":              reflect.TypeFor[export.Top](),
		// The streamed exports answer a file (CSV, JSON lines, GEXF, …),
		// documented as a string body (see operation).
		"search_export":           reflect.TypeFor[string](),
		"search_network":          reflect.TypeFor[string](),
		"monitor_user_tweets":     reflect.TypeFor[wire.MonitorBody](),
		"monitor_user_following":  reflect.TypeFor[wire.MonitorBody](),
		"monitor_user_profile":    reflect.TypeFor[wire.MonitorBody](),
		"monitor_search_query":    reflect.TypeFor[wire.MonitorBody](),
		"monitor_search_pump_fun": reflect.TypeFor[wire.MonitorBody](),
		"monitors":                reflect.TypeFor[wire.MonitorsPage](),
		"monitor":                 reflect.TypeFor[wire.MonitorDetailsBody](),
		"monitor_update":          reflect.TypeFor[wire.MonitorBody](),
		"monitor_delete":          reflect.TypeFor[wire.StatusBody](),
		"user_webhook":            reflect.TypeFor[wire.Webhook](),
	}
}

// componentNames are the names the document has always given the
// components of the wire types whose Go names differ.
func componentNames() map[reflect.Type]string {
	return map[reflect.Type]string{
		reflect.TypeFor[wire.Mention]():      "MentionEntity",
		reflect.TypeFor[wire.URL]():          "UrlEntity",
		reflect.TypeFor[wire.Tag]():          "TagEntity",
		reflect.TypeFor[wire.List]():         "ListObject",
		reflect.TypeFor[wire.Space]():        "SpaceBody",
		reflect.TypeFor[wire.Commented]():    "CommentedBody",
		reflect.TypeFor[wire.Retweeted]():    "RetweetedBody",
		reflect.TypeFor[wire.Following]():    "FollowingBody",
		reflect.TypeFor[wire.Balance]():      "BalanceBody",
		reflect.TypeFor[wire.Monitor]():      "MonitorObject",
		reflect.TypeFor[wire.Delivery]():     "DeliveryEntry",
		reflect.TypeFor[wire.MonitorsPage](): "MonitorsBody",
		reflect.TypeFor[wire.Webhook]():      "WebhookBody",
	}
}

// paramDocs describe the path and query parameters.
func paramDocs() map[string]string {
	return map[string]string{
		paramUserID:       "a user's id (decimal, 1 to 2^63-1)",
		paramCommunityID:  "a community's id",
		paramListID:       "a list's id",
		paramThreadID:     "a post's id; a reply serves its whole conversation from the root",
		paramTweetID:      "a post's id",
		paramUsername:     "a screen name, with or without @",
		paramUser:         "a user's id or screen name (digits are an id first)",
		paramSpaceID:      "an audio space's id (1 to 32 letters and digits)",
		paramID:           "a post's id",
		paramSourceUserID: "the id of the user who may follow",
		paramTargetUserID: "the id of the user who may be followed",
		"cursor":          "next_cursor of the previous page; omit (or send empty) for the first page",
		"type":            "order: Latest (newest first, the default) or Top (by engagement score)",
		"query":           "the search text (for /search, the network's operator language: words, \"phrases\", from:, since:, filter:, OR, -…)",
		paramMonitorID:    "a monitor's id (26 lower-case letters and digits)",
		"page":            "the page of monitors, from 1 (50 a page)",
	}
}

// summary is a route's one-line description, from its name.
func summary(rt *route) string {
	s := strings.ReplaceAll(rt.name, "_", " ")
	s = strings.ToUpper(s[:1]) + s[1:]
	switch {
	case rt.free:
		return s + " (free)"
	case rt.name == "search_counts":
		return s + " (each period holding a match billed; empty periods free)"
	case rt.paged:
		return fmt.Sprintf("%s (pages of up to %d items, each billed)", s, rt.maxPage())
	}
	return s + " (each returned item billed)"
}

// errorDocs describe each error status an endpoint may answer, in the
// JSON error shape.
func errorDocs() map[string]string {
	return map[string]string{
		"400": "Request body could not be read (it ended early or came too slowly)",
		"401": "No valid API key provided (decided before anything else)",
		"402": "Insufficient balance (nothing charged)",
		"403": "User is protected",
		"404": "the addressed entity does not exist",
		"405": "Method not allowed (HEAD too: a response without its body is not sold)",
		"413": "Request body too large (over 1 MiB)",
		"415": "Content-Type must be application/json",
		"422": "a parameter is invalid (errors names it), or the search is too expensive",
		"429": "Too many requests: the key's rate limit, or its share of requests under way at once; Retry-After says when to retry (also injected by the key's fault plan or X-Roost-Fault, never charged)",
		"500": "Failed to fetch data from Twitter (the cause is in the log; also injected by a fault plan, never charged)",
		"503": "Server busy (too many requests at once), not ready, or its database out of reach (a failover, a lost connection; nothing charged); Retry-After",
	}
}

// errorResponse refers to the component of an error status.
func errorResponse(status string) *response {
	return &response{Ref: "#/components/responses/Error" + status}
}

// rateHeaders are the headers of every answer to a key.
func rateHeaders() map[string]header {
	return map[string]header{
		"X-RateLimit-Limit":     {Description: "requests per minute this key may make", Schema: &schema{Type: "integer"}},
		"X-RateLimit-Remaining": {Description: "requests the key could make at once now", Schema: &schema{Type: "integer"}},
		"X-RateLimit-Reset":     {Description: "seconds until the key's allowance is full again", Schema: &schema{Type: "integer"}},
		"X-Request-Id":          {Description: "this request's id, as in the log and the ledger", Schema: &schema{Type: "string"}},
		"Idempotent-Replayed":   {Description: "true when the answer is the one paid for under this Idempotency-Key: a kept page, or a network (not charged again)", Schema: &schema{Type: "string"}},
	}
}

// headerRefs refer to the rate headers' components.
func headerRefs() map[string]header {
	out := map[string]header{}
	for name := range rateHeaders() {
		out[name] = header{Ref: "#/components/headers/" + name}
	}
	return out
}

// buildDocument makes the document of routes.
func buildDocument(routes []*route, version string) *document {
	sc := openapi.NewSchemas()
	for t, name := range componentNames() {
		sc.Name(t, name)
	}
	types, docs := responseTypes(), paramDocs()
	sc.Of(reflect.TypeFor[wire.ErrorBody]())
	doc := &document{
		OpenAPI: "3.1.0",
		Info: info{Title: "roost social-data API", Version: version, Description: "Posts, profiles, lists, " +
			"communities, threads, followers, reposts and search, paged by cursor and paid per returned item " +
			"from prepaid credits. Every data endpoint answers under /social and /twitter; send " +
			"`Authorization: Bearer roost_…`. A repeated request with the same Idempotency-Key header within " +
			"24 hours gets the same page again without a second charge (an export or a network: what earlier " +
			"tries paid for, free, and the rest)."},
		Paths: map[string]map[string]*operation{},
		Components: components{Schemas: sc.Components(), Responses: map[string]*response{}, Headers: rateHeaders(),
			SecuritySchemes: map[string]securityScheme{"bearer": {Type: "http", Scheme: "bearer"}}},
	}
	monitorNames := map[string]bool{}
	for _, rt := range monitorRoutes() {
		monitorNames[rt.name] = true
	}
	for _, rt := range routes {
		ok := &schema{} // TestOpenAPIDocument fails for a route without a response type
		if t, found := types[rt.name]; found {
			ok = sc.Of(t)
		}
		for _, p := range rt.patterns() {
			method, path, _ := strings.Cut(p, " ")
			op := rt.operation(ok, docs)
			prefix := "bare"
			if first := strings.SplitN(path, "/", 3)[1]; !rt.bare && (first == "social" || first == "twitter") {
				prefix = first
			}
			op.OperationID = prefix + "_" + rt.name
			op.Endpoint, op.Section, op.Number = rt.name, section(rt, monitorNames), coreNumbers[rt.name]
			op.CodeSamples = []openapi.CodeSample{curlSample(rt, path)}
			op.Tags = []string{"/" + prefix}
			switch {
			case rt.bare:
				op.Tags = []string{"account"}
			case prefix == "bare":
				op.Tags = []string{"monitors"}
			}
			if doc.Paths[path] == nil {
				doc.Paths[path] = map[string]*operation{}
			}
			doc.Paths[path][strings.ToLower(method)] = op
		}
	}
	for path, op := range probes() {
		doc.Paths[path] = map[string]*operation{"get": op}
	}
	for status, desc := range errorDocs() {
		doc.Components.Responses["Error"+status] = &response{Description: desc, Content: map[string]mediaType{
			"application/json": {Schema: &schema{Ref: "#/components/schemas/ErrorBody"}}}}
	}
	return doc
}

// streamIdempotency describes a streamed answer's Idempotency-Key.
const streamIdempotency = "With an Idempotency-Key, the posts of the answer are those stored when the " +
	"first try began (the newest post id then bounds them), for 24 hours from it. A repeat with the same " +
	"key, path and query sends again free of charge what earlier tries paid for and charges only the rest: " +
	"an export cut short (a connection lost, a balance run out) is retried with the same key until it is " +
	"whole, and each post is charged once over all tries; a network paid for is sent again free with " +
	"Idempotent-Replayed: true. X-Roost-Items counts what this try charged, X-Roost-Items-Replayed what " +
	"it sent free. The key on another request is 422."

// operation documents one route.
func (rt *route) operation(ok *schema, docs map[string]string) *operation {
	op := &operation{Summary: summary(rt), Security: []map[string][]string{{"bearer": {}}},
		Responses: map[string]*response{"200": {Description: "the answer", Headers: headerRefs(),
			Content: map[string]mediaType{"application/json": {Schema: ok}}}}}
	if rt.stream != nil { // a file in the format asked for
		file := mediaType{Schema: &schema{Type: "string"}}
		op.Responses["200"].Content = map[string]mediaType{"text/csv": file, "text/plain": file,
			"application/x-ndjson": file, "application/xml": file}
		op.Responses["200"].Headers[headerItems] = header{Description: "the items charged: a header on a " +
			"network (known before its body), a trailer after a whole export (absent from a cut one)",
			Schema: &schema{Type: "integer"}}
		op.Responses["200"].Headers[headerItemsReplayed] = header{Description: "the items sent free of charge " +
			"because an earlier try with the same Idempotency-Key paid for them; placed as " + headerItems,
			Schema: &schema{Type: "integer"}}
		op.Description = streamIdempotency
	}
	if d, ok := researchDescriptions()[rt.name]; ok {
		op.Description = d
	}
	if !rt.free && rt.stream == nil {
		op.Responses["200"].Headers[headerItems] = header{Description: "the items this answer charged " +
			"(0 for one replayed under its Idempotency-Key)", Schema: &schema{Type: "integer"}}
		op.Responses["200"].Headers[headerCharged] = header{Description: "what this answer charged, in US " +
			"dollars (e.g. 0.004)", Schema: &schema{Type: "string"}}
	}
	for _, status := range []string{"401", "405", "422", "429", "500", "503"} {
		op.Responses[status] = errorResponse(status)
	}
	op.Parameters = append(op.Parameters, parameter{Name: fault.Header, In: "header",
		Description: "the sandbox, for this request in place of the key's own fault plan: " + fault.Syntax +
			". E.g. 429=0.1,500=0.05,delay=200ms,seed=7; latest_cursor_pages=N ends a Latest search's cursors " +
			"at page N (continue with max_id:). Injected failures are never charged; an unreadable plan is 422",
		Schema: &schema{Type: "string", MaxLength: intp(fault.MaxText)}})
	if rt.param == paramMonitorID {
		op.Responses["404"] = errorResponse("404")
	}
	if !rt.free {
		for _, status := range []string{"402", "403", "404"} {
			op.Responses[status] = errorResponse(status)
		}
		idem := "1 to 255 visible ASCII characters: a repeat within 24 hours with the same method, path, " +
			"query and body gets the paid page again without a second charge"
		if rt.stream != nil {
			idem = "1 to 255 visible ASCII characters: a repeat within 24 hours with the same method, path " +
				"and query reads the posts of the first try, sends again free what earlier tries paid for and " +
				"charges only the rest"
		}
		op.Parameters = append(op.Parameters, parameter{Name: headerIdempotencyKey, In: "header",
			Description: idem, Schema: &schema{Type: "string", MinLength: intp(1), MaxLength: intp(maxIdempotencyKey)}})
	}
	add := func(name, in string, required bool, s *schema) {
		op.Parameters = append(op.Parameters, parameter{Name: name, In: in, Required: required, Description: docs[name], Schema: s})
	}
	for _, p := range []string{rt.param, rt.param2} {
		if p == "" {
			continue
		}
		s := &schema{Type: "string", Pattern: "^[0-9]+$"}
		switch p {
		case paramUsername, paramUser:
			s = &schema{Type: "string", MinLength: intp(1), MaxLength: intp(maxScreenName + 1)}
		case paramSpaceID:
			s = &schema{Type: "string", Pattern: "^[0-9A-Za-z]{1,32}$"}
		case paramMonitorID:
			s = &schema{Type: "string", Pattern: "^[0-9a-z]{26}$"}
		}
		in := "path"
		if rt.inQuery && p == rt.param {
			in = "query"
		}
		add(p, in, true, s)
	}
	if rt.query {
		add("query", "query", true, &schema{Type: "string", MinLength: intp(1), MaxLength: intp(maxQueryLength)})
	}
	if rt.ordered {
		add("type", "query", false, &schema{Type: "string", Enum: []string{"Latest", "Top"}})
	}
	if rt.paged {
		add("cursor", "query", false, &schema{Type: "string"})
	}
	for _, p := range researchParameters()[rt.name] {
		add(p.name, "query", p.required, p.schema)
	}
	if rt.name == "monitors" {
		add("page", "query", false, &schema{Type: "integer", Minimum: intp(1)})
	}
	// What the request says first (its path and query), then the headers.
	slices.SortStableFunc(op.Parameters, func(a, b parameter) int { return paramRank(a.In) - paramRank(b.In) })
	if rt.body == bodyObject {
		op.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{"application/json": {Schema: monitorRequest(rt.name)}}}
		for _, status := range []string{"400", "413", "415"} {
			op.Responses[status] = errorResponse(status)
		}
	} else if rt.body != bodyNone {
		field, item := "ids", &schema{AnyOf: []*schema{{Type: "integer", Format: "int64"}, {Type: "string", Pattern: "^[0-9]+$"}}}
		if rt.body == bodyUsernames {
			field, item = "usernames", &schema{Type: "string"}
		}
		op.RequestBody = &requestBody{Required: true, Content: map[string]mediaType{"application/json": {Schema: &schema{
			Type: "object", Required: []string{field}, Order: []string{field},
			Properties: map[string]*schema{field: {Type: "array", Items: item, MinItems: intp(1), MaxItems: intp(maxBatch)}}}}}}
		for _, status := range []string{"400", "413", "415"} {
			op.Responses[status] = errorResponse(status)
		}
	}
	return op
}

// paramRank orders parameters by where they are: path, query, header.
func paramRank(in string) int {
	return strings.Index("path query header", in)
}

// probes documents the endpoints beside the API: free, without a key.
func probes() map[string]*operation {
	status := func(id, desc, status string) *operation {
		return &operation{OperationID: id, Summary: desc, Tags: []string{"service"}, Endpoint: id, Section: sectionService,
			CodeSamples: []openapi.CodeSample{probeSample(id)},
			Security:    []map[string][]string{}, Responses: map[string]*response{
				"200": {Description: "ok", Content: map[string]mediaType{"application/json": {Schema: &schema{
					Type: "object", Required: []string{"status"}, Order: []string{"status"},
					Properties: map[string]*schema{"status": {Type: "string", Enum: []string{status}}}}}}},
				"503": errorResponse("503"),
			}}
	}
	text := func(id, desc, contentType string, s *schema) *operation {
		return &operation{OperationID: id, Summary: desc, Tags: []string{"service"}, Security: []map[string][]string{},
			Endpoint: id, Section: sectionService, CodeSamples: []openapi.CodeSample{probeSample(id)},
			Responses: map[string]*response{"200": {Description: "ok", Content: map[string]mediaType{contentType: {Schema: s}}}}}
	}
	health := status("healthz", "the process answers: 200 also while the database is out of reach (a failover), saying so in database", "ok")
	body := health.Responses["200"].Content["application/json"].Schema
	body.Order = append(body.Order, "database")
	body.Properties["database"] = &schema{Type: "string", Enum: []string{"unavailable"},
		Description: "present while the database does not answer"}
	delete(health.Responses, "503")
	return map[string]*operation{
		"/healthz":      health,
		"/readyz":       status("readyz", "the database is reachable and migrated (send traffic)", "ready"),
		"/metrics":      text("metrics", "Prometheus metrics", "text/plain", &schema{Type: "string"}),
		"/openapi.json": text("openapi", "this document", "application/json", &schema{Type: "object"}),
		"/docs":         text("docs", "this document as a page", "text/html", &schema{Type: "string"}),
	}
}

// docEndpoints serves the document and its page, made once: the page
// in two parts around the place of the server's address.
type docEndpoints struct {
	doc         *document
	json        []byte
	html, html2 []byte
}

func newDocEndpoints(version string) (*docEndpoints, error) {
	doc := buildDocument(routes(), version)
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	page, err := renderDocs(doc)
	if err != nil {
		return nil, err
	}
	before, after, found := bytes.Cut(page, []byte(docsBase))
	if !found {
		return nil, fmt.Errorf("the docs page lacks the place of the server's address")
	}
	return &docEndpoints{doc: doc, json: append(b, '\n'), html: before, html2: after}, nil
}

// plainHost is a Host header that may stand in a shell line as it is.
var plainHost = regexp.MustCompile(`^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$`)

// baseOf is the address the request reached the server at, for the
// page's curl lines (the default address when its Host is unusual).
func baseOf(r *http.Request) string {
	if !plainHost.MatchString(r.Host) {
		return "http://127.0.0.1:8080"
	}
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (d *docEndpoints) serveJSON(w http.ResponseWriter, r *http.Request) {
	infoFrom(r.Context()).route = "openapi"
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeBody(w, http.StatusOK, d.json)
}

func (d *docEndpoints) serveHTML(w http.ResponseWriter, r *http.Request) {
	infoFrom(r.Context()).route = "docs"
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("Cache-Control", "public, max-age=300")
	base := baseOf(r)
	h.Set("Content-Length", strconv.Itoa(len(d.html)+len(base)+len(d.html2)))
	w.WriteHeader(http.StatusOK)
	w.Write(d.html)         //nolint:errcheck // the client went away
	io.WriteString(w, base) //nolint:errcheck // as above
	w.Write(d.html2)        //nolint:errcheck // as above
}

// sortedKeys are a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
