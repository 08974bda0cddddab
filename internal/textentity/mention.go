package textentity

import "github.com/roostapi/roost/internal/social"

const (
	maxScreenNameLen = 20 // twitter-text's [a-z0-9_]{1,20}
	maxListSlugLen   = 25 // a letter, then up to 24 of [a-z0-9_-]
)

// MentionOrList is an @-mention of a user, or of one of the user's lists
// when written @user/slug.
type MentionOrList struct {
	ScreenName string // without the at sign
	ListSlug   string // "/slug" for a list, "" for a plain mention
	Start, End int    // code-point span from the at sign to the end of the name or slug
}

// mentionSpan is one accepted @mention or @list in code points.
type mentionSpan struct {
	at, nameEnd, end int // at sign, end of screen name, end of match (after any slug)
}

func (m mentionSpan) isList() bool { return m.end > m.nameEnd }

// Mentions returns the @mentions of users in text, without the lists
// (@user/slug), as twitter-text's extractMentionedScreennamesWithIndices
// does. UserID is zero: text carries no ids.
func Mentions(text string) []social.Mention {
	var db decodeBuf
	var mb [16]mentionSpan
	d := decode(text, &db)
	return mentionsOf(text, d.off, scanMentions(d.r, mb[:0]))
}

// MentionsOrLists returns the @mentions and @user/slug list references in
// text, in order.
func MentionsOrLists(text string) []MentionOrList {
	var db decodeBuf
	var mb [16]mentionSpan
	d := decode(text, &db)
	spans := scanMentions(d.r, mb[:0])
	if len(spans) == 0 {
		return nil
	}
	out := make([]MentionOrList, len(spans))
	for i, m := range spans {
		out[i] = MentionOrList{
			ScreenName: d.off.cut(text, m.at+1, m.nameEnd),
			ListSlug:   d.off.cut(text, m.nameEnd, m.end),
			Start:      m.at,
			End:        m.end,
		}
	}
	return out
}

// ReplyScreenName returns the screen name that text replies to: an
// @mention that opens the text, after nothing but white space. It returns
// "" when text is not a reply.
func ReplyScreenName(text string) string {
	var db decodeBuf
	d := decode(text, &db)
	r := d.r
	i := 0
	for i < len(r) && isUnicodeSpace(r[i]) {
		i++
	}
	if i >= len(r) || !isAtSign(r[i]) {
		return ""
	}
	end := screenNameEnd(r, i+1)
	if end == i+1 || invalidMentionEnd(r, end) {
		return ""
	}
	return d.off.cut(text, i+1, end)
}

// mentionsOf turns the plain mentions among spans, those whose end is not
// negative, into social mentions of d.
func mentionsOf(text string, off offsets, spans []mentionSpan) []social.Mention {
	n := 0
	for _, m := range spans {
		if m.end >= 0 && !m.isList() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]social.Mention, 0, n)
	for _, m := range spans {
		if m.end >= 0 && !m.isList() {
			out = append(out, social.Mention{ScreenName: off.cut(text, m.at+1, m.nameEnd), Start: m.at, End: m.nameEnd})
		}
	}
	return out
}

// scanMentions finds every @mention and @list the way twitter-text's
// VALID_MENTION_OR_LIST pattern does, successive matches starting where the
// previous one ended, and keeps those not followed by an at sign, a Latin
// accented letter or "://". It appends them to out.
func scanMentions(r []rune, out []mentionSpan) []mentionSpan {
	pos := 0
	for pos < len(r) {
		a := nextAtSign(r, pos)
		if a < 0 {
			break
		}
		found := false
		var m mentionSpan
		// A match's preceding part is at most four characters ("xRT:").
		for s := max(pos, a-4); s <= a && !found; s++ {
			m, found = mentionAt(r, s)
		}
		if !found {
			pos = a + 1
			continue
		}
		if !invalidMentionEnd(r, m.end) {
			out = append(out, m)
		}
		pos = m.end
	}
	return out
}

func nextAtSign(r []rune, from int) int {
	for i := from; i < len(r); i++ {
		if isAtSign(r[i]) {
			return i
		}
	}
	return -1
}

// mentionAt tries the mention pattern with its preceding part starting at
// s, alternatives in the pattern's order: one allowed character, the start
// of text, or "RT" with an optional colon after the start of text or after
// an allowed character.
func mentionAt(r []rune, s int) (mentionSpan, bool) {
	n := len(r)
	if s < n && !hasClass(r[s], clsMentionBlock) && r[s] != '\uff20' {
		if m, ok := mentionBody(r, s+1); ok {
			return m, true
		}
	}
	if s == 0 {
		if m, ok := mentionBody(r, 0); ok {
			return m, true
		}
		if m, ok := mentionAfterRT(r, 0); ok {
			return m, true
		}
	}
	if s < n && !hasClass(r[s], clsRTBlock) {
		return mentionAfterRT(r, s+1)
	}
	return mentionSpan{}, false
}

// mentionAfterRT matches "RT", an optional colon and a mention body at p.
func mentionAfterRT(r []rune, p int) (mentionSpan, bool) {
	if p+1 >= len(r) || lowerASCII(r[p]) != 'r' || lowerASCII(r[p+1]) != 't' {
		return mentionSpan{}, false
	}
	if p+2 < len(r) && r[p+2] == ':' {
		return mentionBody(r, p+3)
	}
	return mentionBody(r, p+2)
}

// mentionBody matches one or more at signs, a screen name and an optional
// list slug at p.
func mentionBody(r []rune, p int) (mentionSpan, bool) {
	i := p
	for i < len(r) && isAtSign(r[i]) {
		i++
	}
	if i == p {
		return mentionSpan{}, false
	}
	nameEnd := screenNameEnd(r, i)
	if nameEnd == i {
		return mentionSpan{}, false
	}
	m := mentionSpan{at: i - 1, nameEnd: nameEnd, end: nameEnd}
	if nameEnd+1 < len(r) && r[nameEnd] == '/' && isASCIILetter(r[nameEnd+1]) && r[nameEnd+1] < 128 {
		j := nameEnd + 2
		for j < len(r) && j-nameEnd-1 < maxListSlugLen && (hasClass(r[j], clsUsername) || r[j] == '-') {
			j++
		}
		m.end = j
	}
	return m, true
}

// screenNameEnd returns the end of the screen name starting at p (p itself
// when there is none).
func screenNameEnd(r []rune, p int) int {
	j := p
	for j < len(r) && j-p < maxScreenNameLen && hasClass(r[j], clsUsername) {
		j++
	}
	return j
}

// invalidMentionEnd reports twitter-text's INVALID_MENTION_MATCH_END at p.
func invalidMentionEnd(r []rune, p int) bool {
	if p >= len(r) {
		return false
	}
	return isAtSign(r[p]) || isLatinAccent(r[p]) || hasSchemeSep(r, p)
}

// hasSchemeSep reports whether "://" starts at p.
func hasSchemeSep(r []rune, p int) bool {
	return p+2 < len(r) && r[p] == ':' && r[p+1] == '/' && r[p+2] == '/'
}
