package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a user name in from:, to: and @mentions.
const (
	minUserLen = 2
	maxUserLen = 50
)

// word builds the node of a plain run of characters: a #hashtag, $cashtag,
// @mention, a pasted http(s) link (a URL node), or text. Text with one
// index token is a Word; with several (a CJK run, "e-mail", "12:30") it is a
// Phrase of its tokens as written; with none ("-", "&") it is dropped.
func (p *parser) word(t token) (Node, error) {
	text := t.text
	switch text[0] {
	case '#':
		if tag := trimPunct(text[1:]); isHashtag(tag) {
			return Hashtag{Tag: tag}, p.count(t.pos)
		}
	case '$':
		if tag := trimPunct(text[1:]); isCashtag(tag) {
			return Cashtag{Tag: tag}, p.count(t.pos)
		}
	case '@':
		if name := trimPunct(text[1:]); name != "" && isUserName(name) {
			if err := checkUserLen("mention", name, t.pos+1); err != nil {
				return nil, err
			}
			return Mention{User: name}, p.count(t.pos)
		}
	}
	if sub, ok := pastedURL(text); ok {
		return URL{Sub: sub}, p.count(t.pos)
	}
	var pieces []string
	eachToken(text, func(start, end int, _ []byte) { pieces = append(pieces, text[start:end]) })
	switch len(pieces) {
	case 0:
		return nil, nil
	case 1:
		return Word{Text: text, Plus: t.plus}, nil
	}
	return Phrase{Words: pieces}, nil
}

// phrase builds the node of a quoted phrase whose contents start at byte
// pos+1. Each white-space-separated piece gives its index tokens as written;
// a piece "*" stands for any one token. Wildcards at either end are
// dropped, as they constrain nothing the compilers can use.
func phrase(text string, pos int) (Node, error) {
	var words []string
	fields, stars := 0, 0
	for _, f := range strings.FieldsFunc(text, unicode.IsSpace) {
		fields++
		if f == "*" {
			stars++
			if len(words) > 0 {
				words = append(words, "*")
			}
			continue
		}
		eachToken(f, func(start, end int, _ []byte) { words = append(words, f[start:end]) })
	}
	for len(words) > 0 && words[len(words)-1] == "*" {
		words = words[:len(words)-1]
	}
	switch {
	case fields == 0:
		return nil, errAt(pos, "empty phrase")
	case fields == stars:
		return nil, errAt(pos, "phrase needs a word besides *")
	case len(words) == 0:
		return nil, nil
	}
	return Phrase{Words: words}, nil
}

// pastedURL reports whether text is an http(s) link and returns it without
// its scheme, for a URL node.
func pastedURL(text string) (string, bool) {
	for _, scheme := range [...]string{"http://", "https://"} {
		if len(text) > len(scheme)+1 && strings.EqualFold(text[:len(scheme)], scheme) {
			return text[len(scheme):], true
		}
	}
	return "", false
}

// trimPunct drops trailing punctuation other than '_' ("#tag," "@jack!").
func trimPunct(s string) string {
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		if r == '_' || !unicode.IsPunct(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// isHashtag reports whether tag (without '#') is a hashtag: letters, marks,
// digits, '_' and zero-width joiners, with at least one letter or mark.
func isHashtag(tag string) bool {
	letter := false
	for _, r := range tag {
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			letter = true
		case unicode.IsDigit(r) || r == '_' || r == '\u200c' || r == '\u200d':
		default:
			return false
		}
	}
	return letter
}

// isCashtag reports whether tag (without '$') is a cashtag: 1 to 6 ASCII
// letters, optionally followed by '.' or '_' and 1 or 2 letters ($BRK.A).
func isCashtag(tag string) bool {
	head, tail, dotted := strings.Cut(tag, ".")
	if !dotted {
		head, tail, dotted = strings.Cut(tag, "_")
	}
	if !asciiLetters(head, 1, 6) {
		return false
	}
	return !dotted || asciiLetters(tail, 1, 2)
}

func asciiLetters(s string, lo, hi int) bool {
	if len(s) < lo || len(s) > hi {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isASCIILetter(s[i]) {
			return false
		}
	}
	return true
}

// isUserName reports whether s holds only the characters of a screen name.
func isUserName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

// checkUserLen checks the length of a user name at byte pos; what names
// where it was given ("from", "to", "mention").
func checkUserLen(what, name string, pos int) error {
	switch {
	case len(name) < minUserLen:
		return errAt(pos, "%s: user name too short: at least %d characters", what, minUserLen)
	case len(name) > maxUserLen:
		return errAt(pos, "%s: user name too long: at most %d characters", what, maxUserLen)
	}
	return nil
}
