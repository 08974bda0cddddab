package textentity

import (
	"strings"

	"github.com/roostapi/roost/internal/social"
)

const (
	// maxTcoSlugLen is the longest t.co path twitter-text accepts.
	maxTcoSlugLen = 40
	// maxURLLen is the longest URL, in UTF-16 units with its host in
	// punycode and a scheme counted when it has none, that the network
	// links.
	maxURLLen = 4096
	// schemeAllowance is what a URL without scheme is charged for one.
	schemeAllowance = len("https://")
)

// URLs returns the URLs in text, with and without scheme. URL and
// ExpandedURL are the URL as written; DisplayURL leaves out the scheme.
func URLs(text string) []social.URL {
	var db decodeBuf
	var ub [8]urlSpan
	d := decode(text, &db)
	return urlsOf(text, d.off, scanURLs(d.r, ub[:0]))
}

// urlSpan is one accepted URL in code points.
type urlSpan struct {
	start, end int // the URL (after t.co trimming)
	schemeLen  int // length of "http://" or "https://", 0 when absent
}

// urlsOf turns the spans whose end is not negative into social URLs of d.
func urlsOf(text string, off offsets, spans []urlSpan) []social.URL {
	n := 0
	for _, u := range spans {
		if u.end >= 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]social.URL, 0, n)
	for _, u := range spans {
		if u.end < 0 {
			continue
		}
		s := off.cut(text, u.start, u.end)
		// The scheme is ASCII: as many bytes as code points.
		out = append(out, social.URL{URL: s, ExpandedURL: s, DisplayURL: s[u.schemeLen:], Start: u.start, End: u.end})
	}
	return out
}

// urlMatch is one match of the URL pattern.
type urlMatch struct {
	before     int // index of the preceding character, -1 at the start of text
	start, end int // the URL
	schemeLen  int
	hostEnd    int // the host is r[start+schemeLen : hostEnd]
}

// scanURLs finds URLs the way twitter-text's extractURLsWithIndices does:
// successive matches of its VALID_URL pattern, each starting where the
// previous one ended, keeping a match unless it has no scheme and follows
// one of "-_./", is a t.co link with too long a path, or has an invalid
// host or too great a length. A t.co link is cut after its path and query.
// It appends them to out.
func scanURLs(r []rune, out []urlSpan) []urlSpan {
	if !containsDot(r) {
		return out
	}
	dm := domainMatcher{r: r}
	pos := 0
	for pos < len(r) {
		m, ok := nextURLMatch(&dm, pos)
		if !ok {
			break
		}
		pos = m.end
		if u, keep := acceptURL(r, m); keep {
			out = append(out, u)
		}
	}
	return out
}

// containsDot reports whether r has a '.', which every domain needs.
func containsDot(r []rune) bool {
	for _, c := range r {
		if c == '.' {
			return true
		}
	}
	return false
}

// nextURLMatch returns the first match of the URL pattern whose preceding
// part starts at or after pos.
func nextURLMatch(dm *domainMatcher, pos int) (urlMatch, bool) {
	r := dm.r
	for s := pos; s < len(r); s++ {
		// A URL starts with a domain character ("http" included), or with
		// any character of a Unicode label right after "://".
		if !urlBlockedBefore(r[s]) && s+1 < len(r) && (isDomainChar(r[s+1]) || r[s] == '/') {
			if m, ok := urlAt(dm, s+1); ok {
				m.before = s
				return m, true
			}
		}
		if s == 0 {
			if m, ok := urlAt(dm, 0); ok {
				m.before = -1
				return m, true
			}
		}
	}
	return urlMatch{}, false
}

// urlBlockedBefore reports the characters that may not precede a URL.
func urlBlockedBefore(c rune) bool {
	switch c {
	case '@', '\uff20', '$', '#', '\uff03', '\ufffe', '\ufeff', '\uffff':
		return true
	}
	return isASCIIAlnum(c)
}

// acceptURL applies twitter-text's checks after a match.
func acceptURL(r []rune, m urlMatch) (urlSpan, bool) {
	if m.schemeLen == 0 && m.before >= 0 && strings.ContainsRune("-_./", r[m.before]) {
		return urlSpan{}, false
	}
	end := m.end
	if m.schemeLen > 0 {
		if tcoEnd, slug, ok := tcoAt(r, m.start, m.schemeLen, m.end); ok {
			if slug > maxTcoSlugLen {
				return urlSpan{}, false
			}
			end = tcoEnd
		}
	}
	host := r[m.start+m.schemeLen : m.hostEnd]
	asciiHostLen, ok := asciiHostLength(host)
	if !ok {
		return urlSpan{}, false
	}
	length := utf16Len(r[m.start:end]) + asciiHostLen - utf16Len(host)
	if m.schemeLen == 0 {
		length += schemeAllowance
	}
	if length > maxURLLen {
		return urlSpan{}, false
	}
	return urlSpan{start: m.start, end: end, schemeLen: m.schemeLen}, true
}

func utf16Len(r []rune) int {
	n := len(r)
	for _, c := range r {
		if c >= 0x10000 {
			n++
		}
	}
	return n
}

// tcoAt matches VALID_TCO_URL, ^https?://t\.co/([a-z0-9]+)(?:\?query)?,
// within r[start:end] and returns the end of its match and the slug's
// length.
func tcoAt(r []rune, start, schemeLen, end int) (int, int, bool) {
	p := start + schemeLen
	if p+5 > end || lowerASCII(r[p]) != 't' || r[p+1] != '.' || lowerASCII(r[p+2]) != 'c' ||
		lowerASCII(r[p+3]) != 'o' || r[p+4] != '/' {
		return 0, 0, false
	}
	q := p + 5
	for q < end && isASCIIAlnum(r[q]) {
		q++
	}
	if q == p+5 {
		return 0, 0, false
	}
	slug := q - p - 5
	if qe, ok := queryAt(r[:end], q); ok {
		q = qe
	}
	return q, slug, true
}

// schemeLenAt returns the length of "http://" or "https://" (either case)
// at p, or 0.
func schemeLenAt(r []rune, p int) int {
	if p+7 > len(r) || lowerASCII(r[p]) != 'h' || lowerASCII(r[p+1]) != 't' ||
		lowerASCII(r[p+2]) != 't' || lowerASCII(r[p+3]) != 'p' {
		return 0
	}
	q := p + 4
	if lowerASCII(r[q]) == 's' {
		q++
	}
	if q+3 <= len(r) && r[q] == ':' && r[q+1] == '/' && r[q+2] == '/' {
		return q + 3 - p
	}
	return 0
}

// schemeEndsAt reports the look-behind (?<=https?://) at p.
func schemeEndsAt(r []rune, p int) bool {
	return (p >= 7 && schemeLenAt(r, p-7) == 7) || (p >= 8 && schemeLenAt(r, p-8) == 8)
}

// urlAt matches the URL part of the pattern at u: optional scheme,
// domain, optional port, path and query.
func urlAt(dm *domainMatcher, u int) (urlMatch, bool) {
	r := dm.r
	schemeLen := schemeLenAt(r, u)
	d := u + schemeLen
	// Without its scheme, a URL starting "http://" cannot match: "http"
	// is followed by ':' where a domain label needs '.'.
	hostEnd, ok := dm.match(d, schemeLen > 0 || schemeEndsAt(r, d))
	if !ok {
		return urlMatch{}, false
	}
	e := hostEnd
	if e+1 < len(r) && r[e] == ':' && isDigit(r[e+1]) {
		e++
		for e < len(r) && isDigit(r[e]) {
			e++
		}
	}
	if e < len(r) && r[e] == '/' {
		e = pathEnd(r, e+1)
	}
	if qe, ok := queryAt(r, e); ok {
		e = qe
	}
	return urlMatch{start: u, end: e, schemeLen: schemeLen, hostEnd: hostEnd}, true
}
