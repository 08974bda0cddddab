package search

import (
	"strings"
	"unicode"
)

// IndexText is the text a store gives its full-text index for a post: the
// post text with every CJK character (Han, Hiragana, Katakana, Hangul)
// standing alone as a token, so that a query of CJK characters can be
// compiled to a phrase of single-character tokens. Stores index this, never
// the raw text, and compile Word and Phrase nodes through QueryTokens.
func IndexText(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 16)
	for _, r := range text {
		if isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
