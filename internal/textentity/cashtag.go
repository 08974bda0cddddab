package textentity

import "github.com/roostapi/roost/internal/social"

const (
	maxCashtagLetters = 6 // [a-z]{1,6}
	maxCashtagSuffix  = 2 // (?:[._][a-z]{1,2})?
)

// Cashtags returns the $cashtags in text: a dollar sign at the start of
// text or after white space, one to six ASCII letters, optionally a '.' or
// '_' and one or two more letters, followed by the end of text, ASCII
// white space or ASCII punctuation.
func Cashtags(text string) []social.Tag {
	var db decodeBuf
	var cb [8]span
	d := decode(text, &db)
	return tagsOf(text, d.off, scanCashtags(d.r, cb[:0]))
}

// scanCashtags finds cashtags the way twitter-text's VALID_CASHTAG pattern
// does, successive matches starting where the previous one ended. It
// appends them to out.
func scanCashtags(r []rune, out []span) []span {
	prevEnd := 0
	for d := 0; d < len(r); d++ {
		if r[d] != '$' {
			continue
		}
		// The preceding space must not belong to the previous match.
		if d > 0 && (!isUnicodeSpace(r[d-1]) || d-1 < prevEnd) {
			continue
		}
		if end, ok := cashtagBody(r, d+1); ok {
			prevEnd = end
			out = append(out, span{start: d, end: end})
			d = end - 1
		}
	}
	return out
}

// cashtagBody matches the cashtag symbol at p, trying lengths in the
// order a backtracking matcher would, and returns its end.
func cashtagBody(r []rune, p int) (int, bool) {
	letters := letterRun(r, p, maxCashtagLetters)
	for k := letters; k >= 1; k-- {
		q := p + k
		if q+1 < len(r) && (r[q] == '.' || r[q] == '_') {
			for m := letterRun(r, q+1, maxCashtagSuffix); m >= 1; m-- {
				if cashtagEndsAt(r, q+1+m) {
					return q + 1 + m, true
				}
			}
		}
		if cashtagEndsAt(r, q) {
			return q, true
		}
	}
	return 0, false
}

// letterRun counts the ASCII letters at p, at most limit.
func letterRun(r []rune, p, limit int) int {
	k := 0
	for p+k < len(r) && k < limit && r[p+k] < 128 && isASCIILetter(r[p+k]) {
		k++
	}
	return k
}

// cashtagEndsAt reports the lookahead (?=$|\s|\p{Punct}) at p.
func cashtagEndsAt(r []rune, p int) bool {
	return p >= len(r) || isJavaSpace(r[p]) || hasClass(r[p], clsJavaPunct)
}
