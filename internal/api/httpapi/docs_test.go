package httpapi

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/search"
)

// docsSection is one endpoint's section of the /docs page.
type docsSection struct {
	id, method, path string
	paths            []string
	body             string
}

var sectionRE = regexp.MustCompile(`(?s)<section class="op" id="op-([^"]+)" data-method="([^"]+)" data-path="([^"]+)" data-paths="([^"]+)">(.*?)</section>`)

// docsPageOf fetches /docs with the Host header host.
func docsPageOf(t *testing.T, host string) string {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/docs", nil)
	r.Host = host
	New(Config{}, nil, nil, nil).ServeHTTP(w, r)
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") ||
		w.Header().Get("Content-Length") != fmt.Sprint(w.Body.Len()) {
		t.Fatalf("GET /docs: %d %q, %d bytes", w.Code, w.Header(), w.Body.Len())
	}
	return w.Body.String()
}

// TestDocsPage: /docs is one HTML page that loads nothing from elsewhere
// and shows each endpoint once, whatever prefixes it answers under: every
// operation of the document is in exactly one section, which the sidebar
// links once; the seventeen come first, numbered; each section has a curl
// line and lists the request's own parameters before the headers; the
// search operators are there, each with its example, and why posts have
// three shapes; the address to copy is the one the page was asked at.
func TestDocsPage(t *testing.T) {
	_, doc := openAPIValidator(t)
	page := docsPageOf(t, "docs.example:8080")
	var sections []docsSection
	for _, m := range sectionRE.FindAllStringSubmatch(page, -1) {
		sections = append(sections, docsSection{id: m[1], method: m[2], path: html.UnescapeString(m[3]),
			paths: strings.Fields(html.UnescapeString(m[4])), body: m[5]})
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			n := 0
			for _, s := range sections {
				if s.method == strings.ToUpper(method) && slices.Contains(s.paths, path) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s %s is in %d sections of the page, want 1", method, path, n)
			}
		}
	}
	if want := len(routes()) + len(probes()); len(sections) != want {
		t.Errorf("%d endpoint sections, want %d (the routes and probes)", len(sections), want)
	}
	nav := page[strings.Index(page, "<nav>"):strings.Index(page, "</nav>")]
	var core []string
	for _, s := range sections {
		if n := strings.Count(nav, `href="#op-`+s.id+`"`); n != 1 {
			t.Errorf("the sidebar links %s %d times", s.id, n)
		}
		if !strings.Contains(s.body, `<pre class="sample">curl `) {
			t.Errorf("%s has no curl line", s.id)
		}
		if strings.Contains(s.body, `<span class="n">`) {
			core = append(core, s.id)
		}
	}
	if len(core) != 17 || core[0] != "user_tweets" || core[16] != "search" {
		t.Errorf("the numbered endpoints are %v, want the seventeen in order", core)
	}
	coreNav := nav[strings.Index(nav, "The 17 endpoints"):]
	coreNav = coreNav[:strings.Index(coreNav, "</ul>")]
	for i := 1; i <= 17; i++ {
		if !strings.Contains(coreNav, fmt.Sprintf(`<span class="n">4.%d</span>`, i)) {
			t.Errorf("the sidebar's first list lacks 4.%d", i)
		}
	}
	for _, s := range sections {
		if s.id != "search" {
			continue
		}
		var at []int
		for _, p := range []string{"query", "type", "cursor", headerIdempotencyKey, "X-Roost-Fault"} {
			at = append(at, strings.Index(s.body, "<code>"+p+"</code>"))
		}
		if !slices.IsSorted(at[:3]) || at[0] < 0 || min(at[3], at[4]) < at[2] {
			t.Errorf("the search's parameters are not query, type, cursor, then the headers: %v", at)
		}
		if !strings.Contains(s.body, "Under /social and /twitter.") || s.path != "/search" {
			t.Errorf("the search's section does not say its prefixes once: %s %.300s", s.path, s.body)
		}
	}
	text := html.UnescapeString(page)
	for _, op := range search.Reference() {
		if !strings.Contains(text, "<td><code>"+op.Example+"</code></td></tr>") {
			t.Errorf("the operator %s lacks its example %q", op.Syntax, op.Example)
		}
	}
	for _, want := range []string{"Why posts have three shapes", `href="#schema-CompactPost"`, `href="#schema-FullPost"`,
		`href="#schema-HighlightPost"`, "export ROOST=http://docs.example:8080\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if odd := docsPageOf(t, "a'b"); !strings.Contains(odd, "export ROOST=http://127.0.0.1:8080\n") {
		t.Errorf("an unusual Host reaches the page's shell lines")
	}
	for _, external := range []string{`href="http`, "<script", "@import", "src=", "url("} {
		if strings.Contains(page, external) {
			t.Errorf("the page holds %q: it must work offline", external)
		}
	}
}

// TestDocsCurlLines: every curl line of the document reaches its
// endpoint as it is written: no unknown path or wrong method, and no
// parameter or body the endpoint refuses (404 for an id not stored is
// fine, and so is a monitor of a user not stored). Each one is run against a server with a key, as a shell would
// give its words to curl.
func TestDocsCurlLines(t *testing.T) {
	e, _ := monitorEnvOf(t, engines()[0], fixture(), monitor.Options{})
	key, _ := e.key(t, plenty, 0)
	_, doc := openAPIValidator(t)
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if len(op.CodeSamples) != 1 {
				t.Errorf("%s %s has %d code samples", method, path, len(op.CodeSamples))
				continue
			}
			if path == "/docs" {
				continue // its own page: fetched by TestDocsPage
			}
			line := op.CodeSamples[0].Source
			c, err := curlCall(line, key)
			if err != nil {
				t.Errorf("%s %s: %q: %v", method, path, line, err)
				continue
			}
			if c.method == "" && method != "get" || c.method != "" && c.method != strings.ToUpper(method) {
				t.Errorf("%q sends %q, the operation is %s", line, c.method, method)
			}
			if !strings.HasPrefix(c.path, strings.Split(path, "{")[0]) {
				t.Errorf("%q calls %s, the operation is at %s", line, c.path, path)
			}
			w := e.do(c)
			n++
			// A monitor of a user not stored is refused as a 404 would be.
			unknownUser := w.Code == http.StatusUnprocessableEntity && strings.Contains(w.Body.String(), "is not a known user")
			if w.Code >= 400 && w.Code != http.StatusNotFound && !unknownUser || strings.Contains(w.Body.String(), msgUnknownEndpoint) {
				t.Errorf("%q: %d %.300s", line, w.Code, w.Body)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d curl lines run", n)
	}
}

// curlCall reads a curl line of the document as the request it sends:
// -G puts -d and --data-urlencode in the query, -X names the method, -H
// sets a header (Authorization with $KEY the key), -d without -G is the
// body, -o a file; the URL starts with "$ROOST".
func curlCall(line, key string) (call, error) {
	words, err := shellWords(line)
	if err != nil || len(words) < 2 || words[0] != "curl" {
		return call{}, fmt.Errorf("not a curl line: %v", err)
	}
	var c call
	get := false
	query := url.Values{}
	var data []string
	c.header = map[string]string{}
	for i := 1; i < len(words); i++ {
		w := words[i]
		next := func() string {
			i++
			if i < len(words) {
				return words[i]
			}
			return ""
		}
		switch {
		case w == "-G":
			get = true
		case w == "-X":
			c.method = next()
		case w == "-H":
			name, value, _ := strings.Cut(next(), ": ")
			if name == "Authorization" {
				if value != "Bearer $KEY" {
					return call{}, fmt.Errorf("authorization %q", value)
				}
				c.key = key
				continue
			}
			c.header[name] = value
		case w == "-d" || w == "--data-urlencode":
			v := next()
			if w == "-d" && !get && (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) {
				c.body = v
				continue
			}
			data = append(data, v)
			name, value, _ := strings.Cut(v, "=")
			query.Add(name, value)
		case w == "-o":
			next()
		case strings.HasPrefix(w, "$ROOST/"):
			c.path = strings.TrimPrefix(w, "$ROOST")
		default:
			return call{}, fmt.Errorf("unknown word %q", w)
		}
	}
	if c.path == "" || len(data) > 0 && !get {
		return call{}, fmt.Errorf("no $ROOST URL, or query data without -G")
	}
	if c.body != "" && c.method == "" {
		c.method = http.MethodPost
	}
	if len(query) > 0 {
		c.path += "?" + query.Encode()
	}
	return c, nil
}

// shellWords splits a line as a POSIX shell does for the quoting the
// curl lines use: single quotes, double quotes (with $VAR kept as
// written) and plain words.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c", quote)
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestCoreNumbers: the seventeen numbered on /docs are those of
// docs/api.md's table, at the same paths.
func TestCoreNumbers(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (4\\.\\d+) \\| `(GET|POST) (/[^`?]*)")
	byNumber := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(raw), -1) {
		byNumber[m[1]] = m[2] + " " + m[3]
	}
	seen := 0
	for _, rt := range routes() {
		n := coreNumbers[rt.name]
		if n == "" {
			continue
		}
		seen++
		if want := byNumber[n]; rt.method+" "+rt.path != want {
			t.Errorf("%s is %s %s on /docs, %q in docs/api.md", n, rt.method, rt.path, want)
		}
	}
	if seen != 17 || len(byNumber) != 17 || len(coreNumbers) != 17 {
		t.Errorf("%d numbered routes, %d rows in docs/api.md, %d numbers", seen, len(byNumber), len(coreNumbers))
	}
}
