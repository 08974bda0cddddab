package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	validator "github.com/pb33f/libopenapi-validator"

	"github.com/roostapi/roost/internal/api/openapi/openapitest"
	"github.com/roostapi/roost/internal/fault"
)

// openAPIValidator builds a validator of the document a handler serves,
// after validating the document itself against the OpenAPI 3.1 schema.
func openAPIValidator(t testing.TB) (validator.Validator, *document) {
	t.Helper()
	v, doc, err := validatorOf()
	if err != nil {
		t.Fatal(err)
	}
	return v, doc
}

func validatorOf() (validator.Validator, *document, error) {
	w := httptest.NewRecorder()
	New(Config{}, nil, nil, nil).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != contentTypeJSON {
		return nil, nil, fmt.Errorf("GET /openapi.json: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	spec := w.Body.Bytes()
	var doc document
	if err := json.Unmarshal(spec, &doc); err != nil {
		return nil, nil, err
	}
	v, err := openapitest.NewValidator(spec)
	if err != nil {
		return nil, nil, err
	}
	return v, &doc, nil
}

// TestOpenAPIDocument: /openapi.json is a valid OpenAPI 3.1 document that
// holds every route under every prefix with its method, parameters and
// response type.
func TestOpenAPIDocument(t *testing.T) {
	_, doc := openAPIValidator(t)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	names := map[string]bool{}
	for _, rt := range routes() {
		names[rt.name] = true
		if _, ok := responseTypes()[rt.name]; !ok {
			t.Errorf("route %s has no response type in responseTypes", rt.name)
		}
		for _, p := range rt.patterns() {
			method, path, _ := strings.Cut(p, " ")
			op := doc.Paths[path][strings.ToLower(method)]
			if op == nil {
				t.Errorf("%s is not in the document", p)
				continue
			}
			for _, want := range []string{rt.param, rt.param2} {
				if want != "" && !hasParam(op, want) {
					t.Errorf("%s lacks parameter %s", p, want)
				}
			}
			if rt.paged != hasParam(op, "cursor") || rt.query != hasParam(op, "query") || rt.ordered != hasParam(op, "type") {
				t.Errorf("%s: cursor/query/type parameters do not match the route", p)
			}
			if (rt.body != bodyNone) != (op.RequestBody != nil) {
				t.Errorf("%s: request body does not match the route", p)
			}
			if _, ok := op.Responses["200"].Headers[headerItemsReplayed]; ok != (rt.stream != nil) {
				t.Errorf("%s: %s is documented %v, the route streams %v", p, headerItemsReplayed, ok, rt.stream != nil)
			}
			if _, ok := op.Responses["200"].Headers[headerItems]; ok != !rt.free {
				t.Errorf("%s: %s is documented %v, the route is paid %v", p, headerItems, ok, !rt.free)
			}
			if _, ok := op.Responses["200"].Headers[headerCharged]; ok != (!rt.free && rt.stream == nil) {
				t.Errorf("%s: %s is documented %v, the route answers paid JSON %v", p, headerCharged, ok, !rt.free && rt.stream == nil)
			}
			if !hasParam(op, fault.Header) || !strings.Contains(op.Responses["429"].Ref, "Error429") {
				t.Errorf("%s: the sandbox's %s header or the 429 it injects is not documented", p, fault.Header)
			}
		}
	}
	for name := range responseTypes() {
		if !names[name] {
			t.Errorf("responseTypes names %s, which is no route", name)
		}
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"} {
		if doc.Paths[p]["get"] == nil {
			t.Errorf("%s is not in the document", p)
		}
	}
}

func hasParam(op *operation, name string) bool {
	for _, p := range op.Parameters {
		if p.Name == name {
			return true
		}
	}
	return false
}

// exchange is one request and response of the end-to-end tests.
type exchange struct {
	req  *http.Request
	code int
	head http.Header
	body []byte
}

// recorded collects every exchange of env.do, checked against the OpenAPI
// document when the tests end (checkRecorded, from TestMain).
var recorded struct {
	sync.Mutex
	all []exchange
}

func record(r *http.Request, w *httptest.ResponseRecorder) {
	recorded.Lock()
	defer recorded.Unlock()
	recorded.all = append(recorded.all, exchange{req: r.Clone(r.Context()), code: w.Code, head: w.Header().Clone(),
		body: bytes.Clone(w.Body.Bytes())})
}

// checkRecorded validates every recorded response of a documented path
// against the document; it returns what does not match.
func checkRecorded() []string {
	v, doc, err := validatorOf()
	if err != nil {
		return []string{err.Error()}
	}
	recorded.Lock()
	defer recorded.Unlock()
	var bad []string
	seen := map[string]bool{}
	for _, x := range recorded.all {
		// The validator decodes every JSON media type as one value: JSON
		// lines (an export) are not.
		if !documented(doc, x.req) || strings.HasPrefix(x.head.Get("Content-Type"), "application/x-ndjson") {
			continue
		}
		key := x.req.Method + " " + x.req.URL.String() + fmt.Sprint(x.code) + string(x.body)
		if seen[key] {
			continue
		}
		seen[key] = true
		bad = append(bad, mismatches(v, x)...)
	}
	if len(seen) == 0 {
		return nil
	}
	fmt.Printf("checked %d distinct responses of the end-to-end tests against /openapi.json\n", len(seen))
	return bad
}

// mismatches are what the validator finds wrong with one exchange.
func mismatches(v validator.Validator, x exchange) []string {
	return openapitest.Mismatches(v, x.req, x.code, x.head, x.body)
}

// TestResponseCheckCatches: the check of recorded responses finds a body
// that does not fit its route's schema, an undocumented status and a
// wrong error shape.
func TestResponseCheckCatches(t *testing.T) {
	v, _ := openAPIValidator(t)
	json := http.Header{"Content-Type": {contentTypeJSON}}
	good := `{"status":"error","message":"User not found"}`
	cases := []struct {
		path string
		code int
		body string
		ok   bool
	}{
		{"/social/user/1", 404, good, true},
		{"/social/user/1", 200, `{"id":"1"}`, false},
		{"/social/user/1/tweets", 200, `{"next_cursor":null,"tweets":[{"id_str":5}]}`, false},
		{"/social/user/1/tweets", 200, `{"next_cursor":null,"tweets":[]}`, true},
		{"/social/user/1/tweets", 404, `{"message":"Not found"}`, false},
		{"/twitter/user/balance", 200, `{"balance_usd":1}`, false},
		{"/user/balance", 200, `{"balance_usd":"1"}`, false},
		{"/user/balance", 200, `{"balance_usd":1.5}`, true},
	}
	for _, c := range cases {
		x := exchange{req: httptest.NewRequest(http.MethodGet, c.path, nil), code: c.code, head: json, body: []byte(c.body)}
		if bad := mismatches(v, x); (len(bad) == 0) != c.ok {
			t.Errorf("%s %d %s: mismatches %v, want ok=%v", c.path, c.code, c.body, bad, c.ok)
		}
	}
}

// documented reports whether a request's path and method are in the
// document (unknown paths are answered 404 Unknown endpoint, which no
// path documents).
func documented(doc *document, r *http.Request) bool {
	// As ServeMux does, the pattern with the fewest wildcards that fits
	// the path takes the request, whatever its method.
	best, methods := -1, map[string]bool{}
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			method, pattern, _ := strings.Cut(p, " ")
			if !matchPattern(pattern, r.URL.Path) {
				continue
			}
			switch n := strings.Count(pattern, "{"); {
			case best < 0 || n < best:
				best, methods = n, map[string]bool{method: true}
			case n == best:
				methods[method] = true
			}
		}
	}
	if best >= 0 {
		return methods[r.Method]
	}
	return doc.Paths[r.URL.Path]["get"] != nil && r.Method == http.MethodGet
}

// matchPattern reports whether path fits a ServeMux pattern of {name}
// segments.
func matchPattern(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if !strings.HasPrefix(ps[i], "{") && ps[i] != xs[i] {
			return false
		}
	}
	return true
}
