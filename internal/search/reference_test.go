package search

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// opNames are the name:value operators an entry's syntax names.
var opNames = regexp.MustCompile(`(?:^|[ ,(-])([a-z_]+):`)

// TestReferenceCoversParser: every name:value operator the parser
// answers is in the reference, every entry's example parses, and an
// entry that names operators uses one in its example.
func TestReferenceCoversParser(t *testing.T) {
	named := map[string]bool{}
	for _, op := range Reference() {
		if op.Kind == "" || op.Syntax == "" || op.About == "" || op.Example == "" {
			t.Errorf("incomplete entry %+v", op)
		}
		if _, err := Parse(op.Example, time.Now()); err != nil {
			t.Errorf("%s: example %q: %v", op.Syntax, op.Example, err)
		}
		used := false
		ms := opNames.FindAllStringSubmatch(op.Syntax, -1)
		for _, m := range ms {
			named[m[1]] = true
			used = used || strings.Contains(op.Example, m[1]+":")
		}
		if len(ms) > 0 && !used {
			t.Errorf("%s: example %q uses none of its operators", op.Syntax, op.Example)
		}
	}
	for name, spec := range operators {
		if spec.unsupported == "" && !named[name] {
			t.Errorf("operator %s: is not in the reference", name)
		}
	}
}

// The operator table of docs/search.md lies between these lines.
const (
	tableBegin = "<!-- operators: made from internal/search/reference.go (go test ./internal/search -run TestReferenceInDocs -update) -->\n"
	tableEnd   = "<!-- end of operators -->\n"
)

// referenceMarkdown is the reference as a Markdown table.
func referenceMarkdown() string {
	var b strings.Builder
	b.WriteString("| kind | operator | matches | example |\n|---|---|---|---|\n")
	kind := ""
	for _, op := range Reference() {
		k := op.Kind
		if k == kind {
			k = ""
		}
		kind = op.Kind
		syntax := "`" + strings.ReplaceAll(op.Syntax, ", ", "`, `") + "`"
		if op.Syntax == "words" {
			syntax = "words"
		}
		b.WriteString("| " + k + " | " + strings.ReplaceAll(syntax, "|", `\|`) + " | " +
			strings.ReplaceAll(op.About, "|", `\|`) + " | `" + op.Example + "` |\n")
	}
	return b.String()
}

// TestReferenceInDocs: docs/search.md holds the reference as it is.
func TestReferenceInDocs(t *testing.T) {
	const path = "../../docs/search.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the lines around the operator table:\n%s%s", path, tableBegin, tableEnd)
	}
	want := referenceMarkdown()
	if got := doc[i+len(tableBegin) : j]; got != want {
		if *update { // -update (parse_test.go) rewrites the table too
			if err := os.WriteFile(path, []byte(doc[:i+len(tableBegin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the operator table of %s is not the reference's (run with -update):\n%s", path, want)
	}
}
