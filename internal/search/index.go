package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IndexText is the text a store gives its full-text index for a post: the
// post's index tokens, folded and joined by single spaces. Stores index this,
// never the raw text, and compile Word and Phrase nodes through QueryTokens,
// so that both engines see exactly the same tokens.
//
// Post text is stored HTML-escaped as the network serves it; IndexText
// first undoes the three escapes the network writes (&amp; &lt; &gt;), so
// that "R&amp;D" gives the tokens of "R&D" ("r" "d"), as a query typed by a
// person does, and never a token "amp".
//
// Tokenisation, shared with QueryTokens:
//   - text is split at white space; in each white-space-separated run, a URL
//     (a scheme such as https followed by "://", up to the end of the run)
//     is left out: t.co links are noise, and url: searches links instead;
//   - a token is a maximal run of letters, digits and combining marks; every
//     other character separates tokens (so "e-mail" is "e" "mail" and
//     "#Brexit" is "brexit");
//   - each CJK character (Han, Hiragana, Katakana, Hangul) is a token of its
//     own, so that a CJK query compiles to a phrase of single characters;
//   - tokens are folded: compatibility forms are unified (NFKD: full-width
//     "Ａ" is "a"), combining accents are removed ("é" is "e"), letters are
//     lower-cased, and final sigma is sigma.
//
// Because the output holds only folded tokens of letters, digits and marks
// separated by spaces, any engine tokenizer that splits on ASCII spaces and
// punctuation (SQLite FTS5 "ascii" or "unicode61", PostgreSQL "simple")
// reproduces these tokens without folding on its own.
func IndexText(text string) string {
	if strings.Contains(text, "&") {
		text = strings.ReplaceAll(text, "&lt;", "<")
		text = strings.ReplaceAll(text, "&gt;", ">")
		text = strings.ReplaceAll(text, "&amp;", "&")
	}
	var b strings.Builder
	b.Grow(len(text))
	eachToken(text, func(_, _ int, tok []byte) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(tok)
	})
	return b.String()
}

// QueryTokens is how a store turns the text of a Word, or one word of a
// Phrase, into index tokens: the same tokens IndexText gives for that text.
// For the nodes Parse builds it returns exactly one token (words that would
// give several become Phrases); a Phrase word "*" is a wildcard and is not
// passed here. A nil result means the text holds nothing searchable.
func QueryTokens(word string) []string {
	var toks []string
	eachToken(word, func(_, _ int, tok []byte) { toks = append(toks, string(tok)) })
	return toks
}

// eachToken calls fn for every index token of text, in order, with the byte
// span [start, end) of the raw characters it comes from and the folded
// token. tok is reused between calls.
func eachToken(text string, fn func(start, end int, tok []byte)) {
	var buf []byte
	i := 0
	for i < len(text) {
		if n := spaceAt(text, i); n > 0 {
			i += n
			continue
		}
		j := i + 1
		for j < len(text) && spaceAt(text, j) == 0 {
			j++
		}
		run := text[i:j]
		if u := urlStart(run); u >= 0 {
			run = run[:u]
		}
		buf = tokenizeRun(run, i, buf, fn)
		i = j
	}
}

// spaceAt is the length of the white-space character at byte i of text, or
// 0 when none starts there (also inside a multi-byte character).
func spaceAt(text string, i int) int {
	c := text[i]
	if c < utf8.RuneSelf {
		if c == ' ' || c >= '\t' && c <= '\r' {
			return 1
		}
		return 0
	}
	if !utf8.RuneStart(c) {
		return 0
	}
	r, n := utf8.DecodeRuneInString(text[i:])
	if unicode.IsSpace(r) {
		return n
	}
	return 0
}

// tokenizeRun tokenises one white-space-free run that starts at byte base of
// the text; buf is scratch space, returned for reuse. ASCII bytes take a
// short path: a letter or digit, lower-cased, or a separator.
func tokenizeRun(run string, base int, buf []byte, fn func(start, end int, tok []byte)) []byte {
	start := -1
	flush := func(end int) {
		if start >= 0 && len(buf) > 0 {
			fn(base+start, base+end, buf)
		}
		start = -1
		buf = buf[:0]
	}
	for k := 0; k < len(run); {
		if c := run[k]; c < utf8.RuneSelf {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			case c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			default:
				flush(k)
				k++
				continue
			}
			if start < 0 {
				start = k
			}
			buf = append(buf, c)
			k++
			continue
		}
		r, n := utf8.DecodeRuneInString(run[k:])
		switch {
		case isCJK(r):
			flush(k)
			start = k
			buf = appendFold(buf, r)
			flush(k + n)
		case isTokenRune(r):
			if start < 0 {
				start = k
			}
			buf = appendFold(buf, r)
		default:
			flush(k)
		}
		k += n
	}
	flush(len(run))
	return buf
}

// urlStart is the byte offset in run where a URL ("scheme://...") begins,
// or -1 when run holds none.
func urlStart(run string) int {
	k := strings.Index(run, "://")
	if k <= 0 {
		return -1
	}
	s := k
	for s > 0 && isSchemeByte(run[s-1]) {
		s--
	}
	for s < k && !isASCIILetter(run[s]) {
		s++
	}
	if s == k {
		return -1
	}
	return s
}

func isSchemeByte(c byte) bool {
	return isASCIILetter(c) || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// isTokenRune reports whether r belongs to a token: letters, numbers and
// combining marks.
func isTokenRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9' || isASCIILetter(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// isCJK reports whether r is a token character (see isTokenRune) of a
// script written without spaces between words, which the index keeps one
// character to a token. Symbols of those scripts (CJK radicals such as
// U+2E8A) are separators like any other symbol.
func isCJK(r rune) bool {
	return r >= 0x1100 && isTokenRune(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// appendFold appends the folded form of the token rune r to buf.
func appendFold(buf []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return append(buf, byte(r))
	}
	var enc [utf8.UTFMax]byte
	n := utf8.EncodeRune(enc[:], r)
	d := norm.NFKD.Properties(enc[:n]).Decomposition()
	if d == nil { // r is its own decomposition (Hangul syllables included)
		if isAccent(r) {
			return buf
		}
		return utf8.AppendRune(buf, foldCase(r))
	}
	var tmp [32]byte
	part := tmp[:0]
	for _, x := range string(d) {
		if isAccent(x) || !isTokenRune(x) {
			continue
		}
		part = utf8.AppendRune(part, foldCase(x))
	}
	if utf8.RuneCount(part) <= 1 { // a letter without its accents, as a rule
		return append(buf, part...)
	}
	return norm.NFC.Append(buf, part...)
}

// isAccent reports whether r is a combining mark that folding removes: the
// generic combining diacritics (script Inherited), such as acute, grave,
// diaeresis, cedilla, and variation selectors.
func isAccent(r rune) bool {
	return unicode.Is(unicode.Mn, r) && unicode.Is(unicode.Inherited, r)
}

func foldCase(r rune) rune {
	if r == 'ς' {
		return 'σ'
	}
	return unicode.ToLower(r)
}
