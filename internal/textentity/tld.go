package textentity

import "strings"

// maxASCIITLDLen bounds the ASCII top-level domains looked up; the longest
// known one is shorter.
const maxASCIITLDLen = 32

// tldIndex finds the top-level domains of genericTLDList and countryTLDList
// in text. It is built once and never written afterwards.
type tldIndex struct {
	ascii map[string]bool // lower-case all-ASCII names
	// other holds the names with a non-ASCII character by first rune
	// (ASCII lower-cased), longest first, each as runes.
	other map[rune][][]rune
}

var tlds = buildTLDIndex()

func buildTLDIndex() tldIndex {
	idx := tldIndex{ascii: map[string]bool{}, other: map[rune][][]rune{}}
	for _, list := range []string{genericTLDList, countryTLDList} {
		for _, name := range strings.Fields(list) {
			if isASCIIString(name) {
				idx.ascii[name] = true
				continue
			}
			rs := []rune(name)
			first := lowerASCII(rs[0])
			idx.other[first] = append(idx.other[first], rs)
		}
	}
	for first, names := range idx.other {
		// Stable insertion sort, longest first: the lists already put a
		// name before its prefixes, so this only merges the two lists.
		for i := 1; i < len(names); i++ {
			for j := i; j > 0 && len(names[j]) > len(names[j-1]); j-- {
				names[j], names[j-1] = names[j-1], names[j]
			}
		}
		idx.other[first] = names
	}
	return idx
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// tldEndsAt reports the lookahead after a top-level domain,
// (?=[^a-z0-9@+-]|$), at p.
func tldEndsAt(r []rune, p int) bool {
	if p >= len(r) {
		return true
	}
	c := r[p]
	return !isASCIIAlnum(c) && c != '@' && c != '+' && c != '-'
}

// match returns the end of the longest known top-level domain at p that
// is followed by a character that may end one. ASCII letters match in
// either case.
func (idx tldIndex) match(r []rune, p int) (int, bool) {
	best := -1
	q := p
	for q < len(r) && isASCIIAlnum(r[q]) {
		q++
	}
	if q > p && q-p <= maxASCIITLDLen && tldEndsAt(r, q) {
		var buf [maxASCIITLDLen]byte
		for i := p; i < q; i++ {
			buf[i-p] = byte(lowerASCII(r[i]))
		}
		if idx.ascii[string(buf[:q-p])] {
			best = q
		}
	}
	if p < len(r) {
		for _, name := range idx.other[lowerASCII(r[p])] {
			end := p + len(name)
			if end <= best {
				break
			}
			if end <= len(r) && hasPrefixFold(r[p:], name) && tldEndsAt(r, end) {
				best = end
				break
			}
		}
	}
	return best, best >= 0
}

// hasPrefixFold reports whether r starts with name, ASCII letters in
// either case.
func hasPrefixFold(r, name []rune) bool {
	if len(r) < len(name) {
		return false
	}
	for i, c := range name {
		if lowerASCII(r[i]) != c {
			return false
		}
	}
	return true
}

// punycodeTLDAt matches URL_PUNYCODE, "xn--" and a run of [-0-9a-z], at p.
func punycodeTLDAt(r []rune, p int) (int, bool) {
	if p+4 >= len(r) || lowerASCII(r[p]) != 'x' || lowerASCII(r[p+1]) != 'n' || r[p+2] != '-' || r[p+3] != '-' {
		return 0, false
	}
	q := p + 4
	for q < len(r) && (isASCIIAlnum(r[q]) || r[q] == '-') {
		q++
	}
	if q == p+4 {
		return 0, false
	}
	return q, true
}
