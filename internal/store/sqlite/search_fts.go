package sqlite

import (
	"strings"
	"unicode"

	"github.com/roostapi/roost/internal/search"
)

// FTS5 expressions that drive a search. posts_fts indexes IndexText tokens
// with the unicode61 tokenizer, which may split an index token further
// (it keeps fewer characters inside tokens) or fold it further (its
// diacritics table). It does so character by character, so the FTS5 tokens
// of a query token always occur, adjacent, wherever the index token occurs:
// every expression built here matches a superset of the exact matches, and
// the exact condition (search_compile.go) decides. Only constructs that keep
// that superset property are used: phrases of whole tokens, AND, OR and
// prefix tokens; never NOT (it would drop rows that FTS5 over-matches) nor
// NEAR (one wildcard token can be several FTS5 tokens).

// ftsQuote makes text one FTS5 string: double quotes inside are doubled, so
// nothing in it acts as FTS5 syntax.
func ftsQuote(text string) string {
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}

// ftsExpr compiles a subtree of text conditions into an FTS5 expression
// over the whole row; ok is false when the subtree holds anything else or
// gives no usable full-text term.
func ftsExpr(n search.Node) (string, bool) {
	switch n := n.(type) {
	case search.Word:
		return ftsRun(search.QueryTokens(n.Text))
	case search.Phrase:
		return ftsPhrase(n.Words)
	case search.URL:
		return ftsURL(n.Sub)
	case search.And, search.Or:
		kids, op := children(n)
		var parts []string
		for _, k := range kids {
			m, ok := ftsExpr(k)
			if !ok {
				if op == " OR " {
					return "", false // an OR needs every branch
				}
				continue // an AND keeps a superset without the branch
			}
			parts = append(parts, m)
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, op) + ")", true
	}
	return "", false
}

// ftsRun is the phrase of adjacent index tokens toks, restricted to the
// text column.
func ftsRun(toks []string) (string, bool) {
	if !ftsUsable(toks) {
		return "", false
	}
	return "text : " + ftsQuote(strings.Join(toks, " ")), true
}

// ftsUsable reports whether tokens give FTS5 something to match: every
// token holds an ASCII letter or digit, or a letter or digit of the Basic
// Multilingual Plane, which unicode61 keeps as token characters. A token of
// marks only ("\u0903") would be an empty FTS5 phrase, which matches
// nothing; such text is found by the exact condition on a scan instead.
func ftsUsable(toks []string) bool {
	if len(toks) == 0 {
		return false
	}
	for _, t := range toks {
		ok := false
		for _, r := range t {
			if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' ||
				r >= 0x80 && r < 0x10000 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// ftsPhrase compiles a phrase: its runs of words between wildcards, each an
// FTS5 phrase, all required.
func ftsPhrase(words []string) (string, bool) {
	var parts []string
	var run []string
	flush := func() {
		if m, ok := ftsRun(run); ok {
			parts = append(parts, m)
		}
		run = nil
	}
	for _, w := range words {
		if w == "*" {
			flush()
			continue
		}
		run = append(run, search.QueryTokens(w)...)
	}
	flush()
	if len(parts) == 0 {
		return "", false
	}
	return "(" + strings.Join(parts, " AND ") + ")", true
}

// ftsURL compiles url:SUB into a phrase over the urls column. SUB is a
// substring of an expanded URL: its first ASCII alphanumeric run may be the
// tail of a longer token and is left out unless SUB starts at a separator;
// its last run may be the head of a longer token and becomes a prefix token
// unless SUB ends at a separator. A non-ASCII SUB is not used (the
// unicode61 token boundaries of non-ASCII text are not ours to predict).
func ftsURL(sub string) (string, bool) {
	sub = strings.ToLower(sub)
	var runs []string
	start := -1
	for i := 0; i <= len(sub); i++ {
		alnum := i < len(sub) && (sub[i] >= 'a' && sub[i] <= 'z' || sub[i] >= '0' && sub[i] <= '9')
		if i < len(sub) && sub[i] >= 0x80 {
			return "", false
		}
		switch {
		case alnum && start < 0:
			start = i
		case !alnum && start >= 0:
			runs = append(runs, sub[start:i])
			start = -1
		}
	}
	if len(runs) == 0 {
		return "", false
	}
	if isAlnumByte(sub[0]) {
		runs = runs[1:]
	}
	if len(runs) == 0 {
		return "", false
	}
	m := "urls : " + ftsQuote(strings.Join(runs, " "))
	if isAlnumByte(sub[len(sub)-1]) {
		m += " *"
	}
	return m, true
}

func isAlnumByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
