package search

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that any input gives a *Query or a *Error (never a
// panic), that the tree keeps the shape compilers rely on, that no value in
// an accepted tree holds a NUL byte or invalid UTF-8 (the engines cannot
// take them), and that the canonical string parses back to the same tree.
func FuzzParse(f *testing.F) {
	for _, q := range []string{
		"a b OR c", `"a * b" -(c OR d)`, "from:jack -filter:replies since:2020-01-01", "東京タワー #Brexit $AAPL @jack",
		"-min_faves:10 within_time:2d include:nativeretweets", `url:"x(y)" https://github.com/go`, "((a", `"abc`, "\xff",
		"url:abc\x00def", "from:ab\x00c", "a\x00b", `"a\x00b"`, `url:"a\x00"`, "#go\x00", "lang:e\x00n",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		res, err := Parse(q, testNow)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) error %v is %T, want *search.Error", q, err, err)
			}
			if e.Pos < 0 || e.Pos > len(q) || e.Msg == "" {
				t.Fatalf("Parse(%q) error %+v: position outside the query or no message", q, e)
			}
			return
		}
		if res == nil || res.Root == nil && res.Reposts != RepostsIncluded {
			t.Fatalf("Parse(%q) = %+v with no error", q, res)
		}
		if err := checkShape(res.Root); err != nil {
			t.Fatalf("Parse(%q): %v\n%s", q, err, dump(res.Root))
		}
		if strings.IndexByte(q, 0) >= 0 {
			t.Fatalf("Parse(%q) accepted a query holding a NUL byte", q)
		}
		if s, ok := unstorable(reflect.ValueOf(res.Root)); ok {
			t.Fatalf("Parse(%q) accepted the value %q, which holds a NUL byte or invalid UTF-8\n%s", q, s, dump(res.Root))
		}
		if err := checkLowered(Lower(res).Root); err != nil {
			t.Fatalf("Parse(%q) lowered: %v\n%s", q, err, dump(res.Root))
		}
		canon := res.String()
		if len(canon) > MaxQueryBytes {
			return // folding a word into a phrase can lengthen it past the limit
		}
		again, err := Parse(canon, testNow)
		if err != nil {
			t.Fatalf("Parse(%q) canonical %q does not parse: %v", q, canon, err)
		}
		if dump(again.Root) != dump(res.Root) || again.Reposts != res.Reposts || again.String() != canon {
			t.Fatalf("Parse(%q) = %s (%q); its canonical form parses to %s (%q)", q, dump(res.Root), canon, dump(again.Root), again.String())
		}
	})
}

// checkShape checks the invariants of a parsed tree: And and Or have two or
// more children and no child of their own kind, no Not holds a Not, no
// node is nil, a Word is one index token, and a Phrase is single tokens and
// interior wildcards.
func checkShape(n Node) error {
	switch n := n.(type) {
	case nil:
		return nil
	case And:
		return checkKids("And", n.Children, func(c Node) bool { _, ok := c.(And); return ok })
	case Or:
		return checkKids("Or", n.Children, func(c Node) bool { _, ok := c.(Or); return ok })
	case Not:
		if _, ok := n.Child.(Not); ok || n.Child == nil {
			return fmt.Errorf("Not holds %#v", n.Child)
		}
		return checkShape(n.Child)
	case Word:
		if toks := QueryTokens(n.Text); len(toks) != 1 {
			return fmt.Errorf("Word %q has tokens %q", n.Text, toks)
		}
	case Phrase:
		if len(n.Words) == 0 || n.Words[0] == "*" || n.Words[len(n.Words)-1] == "*" {
			return fmt.Errorf("Phrase %q is empty or starts or ends with *", n.Words)
		}
		for _, w := range n.Words {
			if toks := QueryTokens(w); w != "*" && len(toks) != 1 {
				return fmt.Errorf("Phrase word %q has tokens %q", w, toks)
			}
		}
	}
	return nil
}

// unstorable finds a string in a tree (any field, at any depth) that holds
// a NUL byte or is not valid UTF-8.
func unstorable(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		return s, strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return unstorable(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if s, ok := unstorable(v.Index(i)); ok {
				return s, true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if s, ok := unstorable(v.Field(i)); ok {
				return s, true
			}
		}
	}
	return "", false
}

func checkKids(kind string, kids []Node, same func(Node) bool) error {
	if len(kids) < 2 {
		return fmt.Errorf("%s with %d children", kind, len(kids))
	}
	for _, c := range kids {
		if c == nil || same(c) {
			return fmt.Errorf("%s holds %#v", kind, c)
		}
		if err := checkShape(c); err != nil {
			return err
		}
	}
	return nil
}

// TestVectorsKeepShape runs the fuzz checks on every vector.
func TestVectorsKeepShape(t *testing.T) {
	for _, v := range readVectors(t) {
		res, err := Parse(v.query, testNow)
		if err != nil {
			continue
		}
		if err := checkShape(res.Root); err != nil {
			t.Errorf("%s:%d: Parse(%q): %v", vectorFile, v.line, v.query, err)
		}
	}
}
