package sqlite

import (
	"database/sql/driver"
	"unicode"

	sqlite3 "modernc.org/sqlite"

	"github.com/roostapi/roost/internal/search"
)

// Where the full-text index decides a match alone. posts_fts holds each
// post's search.IndexText, which FTS5's unicode61 tokenizer may split or
// fold further (a combining mark of an Indic script is a separator to it,
// not to IndexText), so a full-text match is a superset of the exact one
// and search checks every candidate with roost_match (search_func.go), at
// about two microseconds a call. For most posts the two agree: when every
// character of the post's IndexText is a space, or a letter or digit of the
// scripts below, unicode61 makes exactly IndexText's tokens of it
// (TestFTSFaithfulRanges checks every such character against the
// tokenizer). The posts for which that does not hold carry flagFTSInexact
// (set when they are written; migration 0015 sets it on those written
// before), and the research readers skip roost_match for the others when
// the full-text driver already holds the condition exactly (exactFTS).

// flagFTSInexact marks a post whose IndexText unicode61 may tokenize
// otherwise. It lies far above sqlstore's flag bits.
const flagFTSInexact int64 = 1 << 40

// fnFTSFaithful is roost_fts_faithful(text): 1 when IndexText of text
// tokenizes alike in FTS5 (migration 0015).
const fnFTSFaithful = "roost_fts_faithful"

func init() {
	sqlite3.MustRegisterDeterministicScalarFunction(fnFTSFaithful, 1, func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
		text, ok := textArg(args[0])
		return b2i64(ok && ftsFaithful(search.IndexText(text))), nil
	})
}

// ftsFaithfulRanges are the blocks whose letters and digits unicode61
// keeps as they are, one token with their neighbours: Latin, Greek and
// Cyrillic, Armenian, Hebrew and Arabic letters, CJK and kana, Hangul,
// full-width forms.
var ftsFaithfulRanges = [][2]rune{
	{0x80, 0x482}, {0x48A, 0x590}, {0x5D0, 0x5FF}, {0x61B, 0x655}, {0x3000, 0x302D}, {0x3030, 0x9FFF},
	{0xAC00, 0xD7A3}, {0xFF00, 0xFFEF},
}

// ftsFaithful reports whether unicode61 tokenizes index (IndexText output)
// into exactly its space-separated tokens.
func ftsFaithful(index string) bool {
	for i := 0; i < len(index); i++ {
		c := index[i]
		if c < 0x80 {
			if c == ' ' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				continue
			}
			return false
		}
		for _, r := range index[i:] {
			if !ftsFaithfulRune(r) {
				return false
			}
		}
		return true
	}
	return true
}

func ftsFaithfulRune(r rune) bool {
	if r < 0x80 {
		return r == ' ' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	}
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		return false
	}
	for _, x := range ftsFaithfulRanges {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

// exactFTS reports whether the full-text expression of n (ftsExpr) matches
// exactly the posts n matches, among the posts without flagFTSInexact:
// words and phrases without wildcards whose tokens unicode61 keeps as
// they are, and ANDs and ORs of those only.
func exactFTS(n search.Cond) bool {
	var kids []search.Cond
	switch n := n.(type) {
	case search.CondText:
		return !n.Wild() && faithfulTokens(n.Tokens)
	case search.CondAnd:
		kids = n.Conds
	case search.CondOr:
		kids = n.Conds
	default:
		return false
	}
	for _, k := range kids {
		if !exactFTS(k) {
			return false
		}
	}
	return len(kids) > 0
}

func faithfulTokens(toks []string) bool {
	if _, ok := ftsRun(toks); !ok {
		return false
	}
	for _, t := range toks {
		if !ftsFaithful(t) {
			return false
		}
	}
	return true
}
