package postgres

import (
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// tokens is the token string the full-text index holds for a post's text:
// search.IndexText, which folds case and accents and splits CJK characters
// in Go, the same for every engine. Its output is folded tokens separated
// by single spaces, which to_tsvector('simple', …) and
// phraseto_tsquery('simple', …) read alike (as words, nearly always one a
// token; see tsvector.go for where the server's parser differs, and how
// writes make its vectors in Go). Folding in Go rather than with the
// unaccent extension keeps the index and the query compiler consistent
// whether or not the extension is installed.
func tokens(text string) string { return search.IndexText(text) }

// urlText makes URLs indexable: IndexText leaves URLs out of post text, so
// the scheme separator is spaced out first ("https://a.b/c" gives the tokens
// https a b c, as SQLite's unicode61 tokenizer gives for its url column).
func urlText(s string) string { return strings.ReplaceAll(s, "://", " ") }

// urlTokens is what url_tsv holds: the tokens of the expanded URLs.
func urlTokens(e *social.Entities) string {
	var b strings.Builder
	for _, u := range e.URLs {
		b.WriteString(urlText(u.ExpandedURL))
		b.WriteByte(' ')
	}
	return tokens(b.String())
}

// urlLines is what the urls column holds: the lower-cased expanded URLs,
// one a line.
func urlLines(e *social.Entities) string {
	lines := make([]string, len(e.URLs))
	for i, u := range e.URLs {
		lines[i] = strings.ToLower(u.ExpandedURL)
	}
	return strings.Join(lines, "\n")
}

// urlPattern is the regular expression (PostgreSQL ARE) that finds sub in
// one line of urls: sub lower-cased, every ASCII punctuation character
// escaped, and '_' matching '_' or '-' as on the website. ok is false when
// sub cannot match (empty, or spanning lines).
func urlPattern(sub string) (string, bool) {
	sub = strings.ToLower(sub)
	if sub == "" || strings.ContainsAny(sub, "\n\r") {
		return "", false
	}
	var b strings.Builder
	for _, r := range sub {
		switch {
		case r == '_':
			b.WriteString("[-_]")
		case r < 0x80 && !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9'):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String(), true
}

// urlIndexTokens are tokens that every URL containing url:'s SUB holds
// whole: the ASCII alphanumeric runs of SUB bounded by separators on both
// sides (a run at either end of SUB may be part of a longer token). Empty
// when SUB gives none, or holds non-ASCII text whose token boundaries are
// the tokenizer's.
func urlIndexTokens(u search.CondURL) string {
	runs := u.Runs
	if u.HeadCut && len(runs) > 0 {
		runs = runs[1:]
	}
	if u.TailCut && len(runs) > 0 {
		runs = runs[:len(runs)-1]
	}
	return strings.Join(runs, " ")
}
