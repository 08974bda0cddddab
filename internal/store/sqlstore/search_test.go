package sqlstore

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchLoweredOnce checks that the search compilers (this package's
// and the engines') work from search.Lower's plan alone: none calls back
// into the query tokenizer or the query analyses that Lower runs once.
func TestSearchLoweredOnce(t *testing.T) {
	lowered := map[string]bool{"QueryTokens": true, "Unsatisfiable": true, "TimeRange": true, "LowerURL": true}
	for _, dir := range []string{".", "../sqlite", "../postgres"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "search" && lowered[sel.Sel.Name] {
						t.Errorf("%s: calls search.%s, which search.Lower has done", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
