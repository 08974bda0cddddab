// Package storable finds what neither database engine can keep in a text
// value: PostgreSQL's text type holds no NUL byte and only valid UTF-8
// (SQLSTATE 22021 otherwise), and SQLite ends LIKE patterns and FTS5 query
// strings at a NUL byte. It is the one definition of that rule, below
// package social (which serves it to every layer as social.CheckText) and
// package search (which social imports).
package storable

import (
	"strings"
	"unicode/utf8"
)

// Find returns the byte offset of the first byte of s that cannot be
// stored, and whether it is a NUL byte (else an invalid UTF-8 sequence
// starts there); pos is -1 when s can be stored whole.
func Find(s string) (pos int, nul bool) {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return -1, false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0:
			return i, true
		case c < utf8.RuneSelf:
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i, false
		}
		i += n
	}
	return -1, false
}

// Repair returns s with each NUL byte and each byte of an invalid UTF-8
// sequence replaced by U+FFFD, as encoding/json decodes invalid UTF-8; s
// itself when it can be stored.
func Repair(s string) string {
	first, _ := Find(s)
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteString(s[:first])
	for i := first; i < len(s); {
		if s[i] == 0 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
