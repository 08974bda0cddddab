package textentity

import "github.com/roostapi/roost/internal/social"

// Hashtags returns the #hashtags in text, leaving out those inside a URL,
// as twitter-text's extractHashtagsWithIndices does.
func Hashtags(text string) []social.Tag {
	var db decodeBuf
	var tb [16]span
	var ub [8]urlSpan
	d := decode(text, &db)
	tags := scanHashtags(d.r, tb[:0])
	if len(tags) == 0 {
		return nil
	}
	return tagsOf(text, d.off, dropCovered(tags, scanURLs(d.r, ub[:0])))
}

// dropCovered removes, in place, the spans of tags that overlap a URL,
// resolving overlaps the way twitter-text does: ordered by start, an
// entity that begins inside the previous kept one is dropped, and a tag
// wins a tie.
func dropCovered(tags []span, urls []urlSpan) []span {
	if len(urls) == 0 {
		return tags
	}
	out := tags[:0]
	prevEnd := 0
	ui := 0
	for _, t := range tags {
		for ui < len(urls) && urls[ui].start < t.start {
			if urls[ui].start >= prevEnd {
				prevEnd = urls[ui].end
			}
			ui++
		}
		if t.start >= prevEnd {
			out = append(out, t)
			prevEnd = t.end
		}
	}
	return out
}

// span is an entity's code-point span: start at its sign (#, $ or @),
// end exclusive.
type span struct{ start, end int }

// tagsOf turns the spans whose end is not negative into tags of d,
// leaving out the leading sign.
func tagsOf(text string, off offsets, spans []span) []social.Tag {
	n := 0
	for _, s := range spans {
		if s.end >= 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]social.Tag, 0, n)
	for _, s := range spans {
		if s.end >= 0 {
			out = append(out, social.Tag{Text: off.cut(text, s.start+1, s.end), Start: s.start, End: s.end})
		}
	}
	return out
}

// scanHashtags finds hashtags the way twitter-text's VALID_HASHTAG pattern
// does, successive matches starting where the previous one ended, keeping
// those not followed by another hash sign or "://". It does not look at
// URLs. It appends them to out.
func scanHashtags(r []rune, out []span) []span {
	pos := 0
	for pos < len(r) {
		h := nextHashSign(r, pos)
		if h < 0 {
			break
		}
		var t span
		found := false
		// The preceding part is empty (start of text) or one character.
		for s := max(pos, h-1); s <= h && !found; s++ {
			t, found = hashtagAt(r, s)
		}
		if !found {
			pos = h + 1
			continue
		}
		if !invalidHashtagEnd(r, t.end) {
			out = append(out, t)
		}
		pos = t.end
	}
	return out
}

func nextHashSign(r []rune, from int) int {
	for i := from; i < len(r); i++ {
		if isHashSign(r[i]) {
			return i
		}
	}
	return -1
}

// hashtagAt tries the hashtag pattern with its preceding part at s: the
// start of text, a variation selector, or a character that is neither '&'
// nor a hashtag character.
func hashtagAt(r []rune, s int) (span, bool) {
	if s == 0 {
		if t, ok := hashtagBody(r, 0); ok {
			return t, true
		}
	}
	if s >= len(r) {
		return span{}, false
	}
	c := r[s]
	if c == '\ufe0e' || c == '\ufe0f' || (c != '&' && !isHashtagChar(c)) {
		return hashtagBody(r, s+1)
	}
	return span{}, false
}

// hashtagBody matches a hash sign at p and the longest run of hashtag
// characters after it, which must hold at least one letter or mark.
func hashtagBody(r []rune, p int) (span, bool) {
	if p >= len(r) || !isHashSign(r[p]) {
		return span{}, false
	}
	if p+1 < len(r) && (r[p+1] == '\ufe0f' || r[p+1] == '\u20e3') {
		return span{}, false
	}
	letter := false
	j := p + 1
	for j < len(r) && isHashtagChar(r[j]) {
		letter = letter || isHashtagLetter(r[j])
		j++
	}
	if !letter {
		return span{}, false
	}
	return span{start: p, end: j}, true
}

// invalidHashtagEnd reports twitter-text's INVALID_HASHTAG_MATCH_END at p.
func invalidHashtagEnd(r []rune, p int) bool {
	return p < len(r) && (isHashSign(r[p]) || hasSchemeSep(r, p))
}
