package search

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/parse.txt with the parser's current output")

// testNow is the now every vector is parsed with.
var testNow = time.Date(2024, 5, 6, 7, 8, 9, 123, time.UTC)

const vectorFile = "testdata/parse.txt"

// vector is one record of testdata/parse.txt:
//
//	# comment lines
//	query: the query, verbatim to the end of the line
//	qquoted: "the query as a Go string", for queries with spaces at either
//	         end, control characters or invalid UTF-8
//	ast: the tree, printed by dump
//	canon: Query.String
//	reposts: included        (only when Query.Reposts is RepostsIncluded)
//	error: POS MESSAGE       (instead of ast/canon when Parse fails)
//
// Records are separated by blank lines.
type vector struct {
	line     int
	comments []string
	query    string
	want     map[string]string
}

func TestVectors(t *testing.T) {
	vecs := readVectors(t)
	if *update {
		writeVectors(t, vecs)
		return
	}
	for _, v := range vecs {
		got := outcome(v.query)
		for _, key := range []string{"ast", "canon", "reposts", "error"} {
			if got[key] != v.want[key] {
				t.Errorf("%s:%d: Parse(%q) %s:\n got: %s\nwant: %s", vectorFile, v.line, v.query, key, got[key], v.want[key])
			}
		}
		if got["error"] == "" { // the canonical form parses to the same tree
			if again := outcome(got["canon"]); again["ast"] != got["ast"] || again["canon"] != got["canon"] || again["reposts"] != got["reposts"] {
				t.Errorf("%s:%d: canonical %q re-parses to %v, want %v", vectorFile, v.line, got["canon"], again, got)
			}
		}
	}
	t.Logf("%d vectors", len(vecs))
}

// TestVectorsCoverOperators fails when an operator or filter value has no
// vector, so that adding one to the table needs a test.
func TestVectorsCoverOperators(t *testing.T) {
	var all strings.Builder
	for _, v := range readVectors(t) {
		all.WriteString(strings.ToLower(v.query) + "\n")
	}
	text := all.String()
	for name := range operators {
		if !strings.Contains(text, name+":") || !strings.Contains(text, "-"+name+":") {
			t.Errorf("operator %s: has no vector for it and for its negation", name)
		}
	}
	names := append([]string(nil), filterNames[:]...)
	for n := range filterAliases {
		names = append(names, n)
	}
	for n := range unsupportedFilters {
		names = append(names, n)
	}
	for _, n := range names {
		if !strings.Contains(text, "filter:"+n) {
			t.Errorf("filter:%s has no vector", n)
		}
	}
}

// outcome parses q and describes the result in the keys of a vector.
func outcome(q string) map[string]string {
	res, err := Parse(q, testNow)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return map[string]string{"error": "not a *search.Error: " + err.Error()}
		}
		return map[string]string{"error": fmt.Sprintf("%d %s", e.Pos, e.Msg)}
	}
	m := map[string]string{"ast": dump(res.Root), "canon": res.String()}
	if res.Reposts == RepostsIncluded {
		m["reposts"] = "included"
	}
	return m
}

// dump prints a tree structurally, for the vectors.
func dump(n Node) string {
	var b strings.Builder
	var walk func(Node)
	list := func(name string, kids []Node) {
		b.WriteString(name + "(")
		for i, c := range kids {
			if i > 0 {
				b.WriteString(", ")
			}
			walk(c)
		}
		b.WriteString(")")
	}
	walk = func(n Node) {
		switch n := n.(type) {
		case nil:
			b.WriteString("nil")
		case And:
			list("And", n.Children)
		case Or:
			list("Or", n.Children)
		case Not:
			list("Not", []Node{n.Child})
		case Word:
			if n.Plus {
				fmt.Fprintf(&b, "Word+(%q)", n.Text)
			} else {
				fmt.Fprintf(&b, "Word(%q)", n.Text)
			}
		case Phrase:
			b.WriteString("Phrase(")
			for i, w := range n.Words {
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString(strconv.Quote(w))
			}
			b.WriteString(")")
		case Hashtag:
			fmt.Fprintf(&b, "Hashtag(%q)", n.Tag)
		case Cashtag:
			fmt.Fprintf(&b, "Cashtag(%q)", n.Tag)
		case From:
			fmt.Fprintf(&b, "From(%q)", n.User)
		case To:
			fmt.Fprintf(&b, "To(%q)", n.User)
		case Mention:
			fmt.Fprintf(&b, "Mention(%q)", n.User)
		case URL:
			fmt.Fprintf(&b, "URL(%q)", n.Sub)
		case Lang:
			fmt.Fprintf(&b, "Lang(%q)", n.Code)
		case ListMembers:
			fmt.Fprintf(&b, "ListMembers(%d)", n.ListID)
		case IDBound:
			if n.Max {
				fmt.Fprintf(&b, "IDBound(id <= %d)", n.ID)
			} else {
				fmt.Fprintf(&b, "IDBound(id > %d)", n.ID)
			}
		case TimeBound:
			op := "<"
			if n.Since {
				op = ">="
			}
			fmt.Fprintf(&b, "TimeBound(t %s %s)", op, n.T.Format(time.RFC3339Nano))
		case Ref:
			fmt.Fprintf(&b, "Ref(%s = %d)", refNames[n.Kind], n.ID)
		case MinCount:
			fmt.Fprintf(&b, "MinCount(%s >= %d)", strings.TrimPrefix(countNames[n.Kind], "min_"), n.N)
		case Filter:
			fmt.Fprintf(&b, "Filter(%s)", filterNames[n.Kind])
		default:
			fmt.Fprintf(&b, "%#v", n)
		}
	}
	walk(n)
	return b.String()
}

func readVectors(t *testing.T) []vector {
	t.Helper()
	f, err := os.Open(vectorFile)
	if err != nil {
		t.Fatalf("open vectors: %v", err)
	}
	defer f.Close()
	var vecs []vector
	var cur *vector
	var comments []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "":
			cur = nil
		case strings.HasPrefix(line, "#"):
			comments = append(comments, line)
		default:
			key, val, ok := strings.Cut(line, ": ")
			if !ok {
				key, val, ok = strings.Cut(line, ":")
			}
			if !ok {
				t.Fatalf("%s:%d: want key: value, got %q", vectorFile, n, line)
			}
			switch key {
			case "query", "qquoted":
				if key == "qquoted" {
					if val, err = strconv.Unquote(val); err != nil {
						t.Fatalf("%s:%d: qquoted: %v", vectorFile, n, err)
					}
				}
				vecs = append(vecs, vector{line: n, comments: comments, query: val, want: map[string]string{}})
				cur, comments = &vecs[len(vecs)-1], nil
			case "ast", "canon", "reposts", "error":
				if cur == nil {
					t.Fatalf("%s:%d: %s before any query", vectorFile, n, key)
				}
				cur.want[key] = val
			default:
				t.Fatalf("%s:%d: unknown key %q", vectorFile, n, key)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	return vecs
}

func writeVectors(t *testing.T, vecs []vector) {
	t.Helper()
	var b strings.Builder
	for i, v := range vecs {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, c := range v.comments {
			b.WriteString(c + "\n")
		}
		if plainQuery(v.query) {
			b.WriteString("query: " + v.query + "\n")
		} else {
			b.WriteString("qquoted: " + strconv.Quote(v.query) + "\n")
		}
		got := outcome(v.query)
		for _, key := range []string{"error", "ast", "canon", "reposts"} {
			if got[key] != "" {
				b.WriteString(key + ": " + got[key] + "\n")
			}
		}
	}
	if err := os.WriteFile(vectorFile, []byte(b.String()), 0o644); err != nil {
		t.Fatalf("write vectors: %v", err)
	}
	t.Logf("rewrote %s: %d vectors", vectorFile, len(vecs))
}

// plainQuery reports whether q survives the "query: " line form.
func plainQuery(q string) bool {
	if q == "" || !utf8.ValidString(q) || strings.TrimSpace(q) != q {
		return false
	}
	for _, r := range q {
		if unicode.IsControl(r) || unicode.IsSpace(r) && r != ' ' || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

func TestErrorType(t *testing.T) {
	_, err := Parse("from:", testNow)
	var e *Error
	if !errors.As(err, &e) || e.Pos != 5 || !strings.Contains(err.Error(), "position 5") {
		t.Fatalf("Parse(\"from:\") error = %v, want *Error at 5", err)
	}
}

func TestWithinTimeUsesNow(t *testing.T) {
	now := time.Date(2023, 1, 2, 3, 4, 5, 999_999_999, time.UTC)
	for _, tc := range []struct {
		q    string
		want time.Time
	}{
		{"within_time:2d", now.Add(-48 * time.Hour).Truncate(time.Second)},
		{"within_time:3h", now.Add(-3 * time.Hour).Truncate(time.Second)},
		{"within_time:5m", now.Add(-5 * time.Minute).Truncate(time.Second)},
		{"within_time:30s", now.Add(-30 * time.Second).Truncate(time.Second)},
	} {
		q, err := Parse(tc.q, now)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.q, err)
		}
		tb, ok := q.Root.(TimeBound)
		if !ok || !tb.Since || !tb.T.Equal(tc.want) {
			t.Errorf("Parse(%q) = %#v, want since %v", tc.q, q.Root, tc.want)
		}
	}
}

func TestWalk(t *testing.T) {
	q, err := Parse(`a (b OR -c) from:jack`, testNow)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	Walk(q.Root, func(n Node) bool {
		seen = append(seen, fmt.Sprintf("%T", n))
		_, isNot := n.(Not)
		return !isNot // do not descend into negations
	})
	want := "search.And search.Word search.Or search.Word search.Not search.From"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("Walk visited %s, want %s", got, want)
	}
}

func TestFormatUnparsedTrees(t *testing.T) {
	for _, tc := range []struct {
		n    Node
		want string
	}{
		{Not{Child: MinCount{Kind: Faves, N: 0}}, "-(min_faves:0)"},
		{Not{Child: MinCount{Kind: Replies, N: 10}}, "-min_replies:9"},
		{Not{Child: And{Children: []Node{Word{Text: "a"}, Word{Text: "b"}}}}, "-(a b)"},
		{Or{Children: []Node{And{Children: []Node{Word{Text: "a"}, Word{Text: "b"}}}, Word{Text: "c"}}}, "(a b) OR c"},
		{URL{Sub: "x.com/a_(b)"}, `url:"x.com/a_(b)"`},
		{TimeBound{Since: false, T: time.Date(2020, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))}, "until:2020-01-02_02:04:05_UTC"},
		{Filter{Kind: FilterKind(99)}, "filter:?"},
	} {
		if got := Format(tc.n); got != tc.want {
			t.Errorf("Format(%#v) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := (&Query{Reposts: RepostsIncluded}).String(); got != "include:nativeretweets" {
		t.Errorf("empty query with reposts prints %q", got)
	}
}
