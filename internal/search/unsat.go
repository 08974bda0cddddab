package search

import (
	"reflect"
	"slices"
	"strings"
)

// Unsatisfiable reports whether a query's condition can never hold because
// a top-level condition implies another that the query negates at the top
// level: `the -the`, `"the cat" -cat`, `#Go -#go`, `from:a -from:A`. Stores
// answer such a query with an empty page at once, instead of reading every
// post of the positive condition only to reject it.
func Unsatisfiable(root Node) bool {
	kids := []Node{root}
	if a, ok := root.(And); ok {
		kids = a.Children
	}
	for _, k := range kids {
		n, ok := k.(Not)
		if !ok {
			continue
		}
		for _, p := range kids {
			if _, neg := p.(Not); !neg && implies(p, n.Child) {
				return true
			}
		}
	}
	return false
}

// implies reports whether every post matching p matches n, as far as a
// comparison of the two nodes shows.
func implies(p, n Node) bool {
	if reflect.DeepEqual(canon(p), canon(n)) {
		return true
	}
	want := textTokens(n)
	if len(want) == 0 || slices.Contains(want, "*") {
		return false
	}
	have := textTokens(p)
	// n's tokens must stand in p's, in order and adjacent, with no
	// wildcard among them.
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// canon is a node with the case differences that never change its matches
// folded away.
func canon(n Node) Node {
	switch n := n.(type) {
	case Hashtag:
		return Hashtag{Tag: strings.ToLower(n.Tag)}
	case Cashtag:
		return Cashtag{Tag: strings.ToLower(n.Tag)}
	case Mention:
		return Mention{User: strings.ToLower(n.User)}
	case From:
		return From{User: strings.ToLower(n.User)}
	case To:
		return To{User: strings.ToLower(n.User)}
	case Word:
		return Word{Text: strings.Join(QueryTokens(n.Text), " ")}
	}
	return n
}

// textTokens is the token sequence a Word or Phrase matches ("*" for a
// wildcard), or nil for any other node.
func textTokens(n Node) []string {
	switch n := n.(type) {
	case Word:
		return QueryTokens(n.Text)
	case Phrase:
		return PhraseTokens(n.Words)
	}
	return nil
}

// PhraseTokens is the token sequence of a Phrase's words: QueryTokens of
// each, "*" kept for a wildcard.
func PhraseTokens(words []string) []string {
	var toks []string
	for _, w := range words {
		if w == "*" {
			toks = append(toks, "*")
			continue
		}
		toks = append(toks, QueryTokens(w)...)
	}
	return toks
}
