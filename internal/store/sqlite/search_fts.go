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
func ftsExpr(n search.Cond) (string, bool) {
	var kids []search.Cond
	op := " AND "
	switch n := n.(type) {
	case search.CondText:
		return ftsWords(n)
	case search.CondURL:
		return ftsURL(n)
	case search.CondAnd:
		kids = n.Conds
	case search.CondOr:
		kids, op = n.Conds, " OR "
	default:
		return "", false
	}
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

// ftsWords compiles a word or phrase: its runs of tokens between
// wildcards, each an FTS5 phrase, all required (a run FTS5 cannot match is
// left out).
func ftsWords(t search.CondText) (string, bool) {
	runs := t.Runs()
	if len(runs) == 1 {
		return ftsRun(runs[0].Tokens)
	}
	var parts []string
	for _, r := range runs {
		if m, ok := ftsRun(r.Tokens); ok {
			parts = append(parts, m)
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return "(" + strings.Join(parts, " AND ") + ")", true
}

// ftsURL compiles url:SUB into a phrase over the urls column: the runs of
// SUB that are whole tokens of a URL holding it, the last one a prefix
// token when SUB may end inside a longer token (search.CondURL). A
// non-ASCII SUB is not used (the unicode61 token boundaries of non-ASCII
// text are not ours to predict).
func ftsURL(u search.CondURL) (string, bool) {
	runs := u.Runs
	if u.HeadCut && len(runs) > 0 {
		runs = runs[1:]
	}
	if len(runs) == 0 {
		return "", false
	}
	m := "urls : " + ftsQuote(strings.Join(runs, " "))
	if u.TailCut {
		m += " *"
	}
	return m, true
}
