package textentity

import "math"

// memoMinChain is the number of labels in a row past which a domain
// matcher starts remembering its results by position.
const memoMinChain = 8

// domainMatcher matches URL_VALID_DOMAIN at successive positions of one
// text. It remembers the label runs and, once a text shows long runs of
// labels, each position's result, so that a whole text takes linear time
// however its labels are arranged.
type domainMatcher struct {
	r    []rune
	runs [2]struct{ start, end int } // last label run found, without and with underscores
	// deep holds, per label start, the result of the "subdomains + domain
	// + TLD" alternative there: 0 unknown, -1 no match, else its end + 1.
	deep []int32
}

// match matches URL_VALID_DOMAIN at d and returns its end. Of the
// pattern's alternatives, "domain + ccTLD" after a scheme and "domain +
// ccTLD + '/'" can only match where "subdomains + domain + TLD" already
// does, so only the latter and "one Unicode label + TLD" after a scheme
// are tried.
func (m *domainMatcher) match(d int, afterScheme bool) (int, bool) {
	if e, ok := m.labelsAndTLD(d); ok {
		return e, true
	}
	if afterScheme {
		if q, ok := unicodeLabelAt(m.r, d); ok {
			return tlds.match(m.r, q)
		}
	}
	return 0, false
}

// labelsAndTLD matches subdomains, a domain name and a TLD at d.
// Subdomains are atomic and greedy: the matcher takes as many as follow
// each other and gives them back one at a time, from the last, until a
// domain name and a TLD follow; so the answer is the last subdomain start
// where one does.
//
// A domain name label is a subdomain label without underscores, so a
// domain name can only start where a subdomain does.
func (m *domainMatcher) labelsAndTLD(d int) (int, bool) {
	var buf [16]int
	starts := buf[:0] // starts of valid subdomains, in order
	end, found := 0, false
	for p := d; ; {
		if e, ok, known := m.remembered(p); known {
			end, found = e, ok
			break
		}
		q, ok := m.label(p, true)
		if !ok {
			break
		}
		starts = append(starts, p)
		p = q
	}
	if len(starts) > memoMinChain && m.deep == nil && len(m.r) < math.MaxInt32 {
		m.deep = make([]int32, len(m.r)+1)
	}
	for k := len(starts) - 1; k >= 0; k-- {
		if !found {
			end, found = m.domainNameAndTLD(starts[k])
		}
		m.remember(starts[k], end, found)
	}
	return end, found
}

// domainNameAndTLD matches a domain name label and a TLD at p.
func (m *domainMatcher) domainNameAndTLD(p int) (int, bool) {
	q, ok := m.label(p, false)
	if !ok {
		return 0, false
	}
	if e, ok := tlds.match(m.r, q); ok {
		return e, true
	}
	return punycodeTLDAt(m.r, q)
}

func (m *domainMatcher) remembered(p int) (end int, ok, known bool) {
	if m.deep == nil || m.deep[p] == 0 {
		return 0, false, false
	}
	if m.deep[p] < 0 {
		return 0, false, true
	}
	return int(m.deep[p]) - 1, true, true
}

func (m *domainMatcher) remember(p, end int, ok bool) {
	if m.deep == nil {
		return
	}
	if ok {
		m.deep[p] = int32(end + 1)
	} else {
		m.deep[p] = -1
	}
}

// label matches a subdomain (underscores allowed) or a domain name label
// at p: domain characters and hyphens, starting and ending with a domain
// character, then '.'. It returns the position after the dot.
func (m *domainMatcher) label(p int, underscore bool) (int, bool) {
	r := m.r
	q := m.runEnd(p, underscore)
	if q == p || q >= len(r) || r[q] != '.' || !isDomainChar(r[p]) || !isDomainChar(r[q-1]) {
		return 0, false
	}
	return q + 1, true
}

// runEnd returns the end of the run of domain characters, hyphens and,
// if underscore, underscores at p. Every position inside a run shares its
// end, so the last run found answers for all of them.
func (m *domainMatcher) runEnd(p int, underscore bool) int {
	c := &m.runs[0]
	if underscore {
		c = &m.runs[1]
	}
	if p >= c.start && p < c.end {
		return c.end
	}
	q := labelRunEnd(m.r, p, underscore)
	if q > p {
		c.start, c.end = p, q
	}
	return q
}

// labelRunEnd returns the end of the run of domain characters, hyphens
// and, if underscore, underscores at p.
func labelRunEnd(r []rune, p int, underscore bool) int {
	bit := uint16(clsDomainLabel)
	if underscore {
		bit = clsSubdomainLabel
	}
	q := p
	for ; q < len(r); q++ {
		c := r[q]
		if c < 128 {
			if c < 0 || asciiClasses[c]&bit == 0 {
				break
			}
		} else if !isLatinAccent(c) {
			break
		}
	}
	return q
}

// unicodeLabelAt matches URL_VALID_UNICODE_DOMAIN_NAME at p: one label of
// Unicode domain characters and hyphens, starting and ending with a
// Unicode domain character, then '.'.
func unicodeLabelAt(r []rune, p int) (int, bool) {
	q := p
	for q < len(r) && (isUnicodeDomainChar(r[q]) || r[q] == '-') {
		q++
	}
	if q == p || q >= len(r) || r[q] != '.' || !isUnicodeDomainChar(r[p]) || !isUnicodeDomainChar(r[q-1]) {
		return 0, false
	}
	return q + 1, true
}
