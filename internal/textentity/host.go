package textentity

import "unicode"

// maxLabelLen is the longest DNS label, in ASCII (punycode) form.
const maxLabelLen = 63

// asciiHostLength returns the length of host converted to ASCII the way
// IDNA's ToASCII does (RFC 3490, unassigned code points allowed, no STD3
// rules), and whether the conversion succeeds: every label must be 1 to 63
// characters once encoded, a non-ASCII label must not already carry the
// "xn--" prefix nor hold a character that nameprep prohibits, and a label
// with right-to-left characters must hold no left-to-right ones and start
// and end with right-to-left ones.
//
// Nameprep is approximated: the characters it maps to nothing are dropped
// and letters lower-cased, without the NFKC step; bidirectional classes
// are approximated from Unicode blocks and categories.
func asciiHostLength(host []rune) (int, bool) {
	if len(host) == 0 {
		return 0, false
	}
	total := 0
	start := 0
	for i := 0; i <= len(host); i++ {
		if i < len(host) && !isLabelSeparator(host[i]) {
			continue
		}
		n, ok := asciiLabelLength(host[start:i])
		if !ok {
			return 0, false
		}
		total += n
		if i < len(host) {
			total++ // the dot
		}
		start = i + 1
	}
	return total, true
}

// isLabelSeparator reports the dots IDNA splits labels at.
func isLabelSeparator(r rune) bool {
	return r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61'
}

// asciiLabelLength converts one label, which must not be empty.
func asciiLabelLength(label []rune) (int, bool) {
	if isASCIIRunes(label) {
		return len(label), len(label) > 0 && len(label) <= maxLabelLen
	}
	var buf [maxLabelLen + 1]rune
	mapped := buf[:0]
	for _, c := range label {
		if mapsToNothing(c) {
			continue
		}
		if nameprepProhibited(c) {
			return 0, false
		}
		mapped = append(mapped, unicode.ToLower(c))
	}
	if !bidiLabelOK(mapped) {
		return 0, false
	}
	if isASCIIRunes(mapped) {
		return len(mapped), len(mapped) > 0 && len(mapped) <= maxLabelLen
	}
	if len(mapped) >= 4 && lowerASCII(mapped[0]) == 'x' && lowerASCII(mapped[1]) == 'n' &&
		mapped[2] == '-' && mapped[3] == '-' {
		return 0, false
	}
	n, ok := punycodeLen(mapped)
	if !ok {
		return 0, false
	}
	n += len("xn--")
	return n, n <= maxLabelLen
}

func isASCIIRunes(r []rune) bool {
	for _, c := range r {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// mapsToNothing reports nameprep's table B.1.
func mapsToNothing(r rune) bool {
	switch {
	case r == 0xad || r == 0x34f || r == 0x1806 || r == 0x2060 || r == 0xfeff:
		return true
	case r >= 0x180b && r <= 0x180d, r >= 0x200b && r <= 0x200d, r >= 0xfe00 && r <= 0xfe0f:
		return true
	}
	return false
}

// nameprepProhibited reports the non-ASCII characters nameprep prohibits
// (RFC 3491 section 5): spaces, controls, private use, non-characters,
// surrogates and the characters inappropriate for plain text, canonical
// representation, display or tagging.
func nameprepProhibited(r rune) bool {
	if r < 0x80 {
		return false
	}
	switch {
	case unicode.Is(unicode.Zs, r), unicode.Is(unicode.Cc, r), unicode.Is(unicode.Co, r):
		return true
	case r == 0x6dd || r == 0x70f || r == 0x180e || r == 0xfeff:
		return true
	case r >= 0x200c && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r >= 0x1d173 && r <= 0x1d17a, r >= 0xfff9 && r <= 0xfffd, r >= 0x2ff0 && r <= 0x2ffb:
		return true
	case r == 0x340 || r == 0x341 || r == 0xe0001 || (r >= 0xe0020 && r <= 0xe007f):
		return true
	case r >= 0xfdd0 && r <= 0xfdef, r&0xfffe == 0xfffe, r >= 0xd800 && r <= 0xdfff:
		return true
	case r >= 0xf0000:
		return true // planes 15 and 16 are private use
	}
	return false
}

// bidiLabelOK applies stringprep's bidirectional rule: a label with a
// right-to-left character (bidirectional class R or AL) holds no
// left-to-right one (class L) and starts and ends with a right-to-left one.
func bidiLabelOK(label []rune) bool {
	rtl, ltr := false, false
	for _, c := range label {
		switch {
		case isRightToLeft(c):
			rtl = true
		case isLeftToRight(c):
			ltr = true
		}
	}
	if !rtl {
		return true
	}
	return !ltr && isRightToLeft(label[0]) && isRightToLeft(label[len(label)-1])
}

// isRightToLeft approximates bidirectional classes R and AL: what the
// blocks Unicode keeps for right-to-left scripts hold, but marks (NSM),
// digits (EN, AN) and format characters, plus the Arabic letter mark.
func isRightToLeft(r rune) bool {
	if r == 0x61c {
		return true
	}
	inRTLBlock := (r >= 0x590 && r <= 0x8ff) || (r >= 0xfb1d && r <= 0xfdff) ||
		(r >= 0xfe70 && r <= 0xfefe) || (r >= 0x10800 && r <= 0x10fff) || (r >= 0x1e800 && r <= 0x1efff)
	if !inRTLBlock {
		return false
	}
	return !unicode.IsMark(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Cf, r) &&
		!(r >= 0x660 && r <= 0x66c) && r != 0x6dd
}

// isLeftToRight approximates bidirectional class L: letters and spacing
// marks outside the right-to-left blocks.
func isLeftToRight(r rune) bool {
	if r < 0x80 {
		return isASCIILetter(r)
	}
	return (unicode.IsLetter(r) || unicode.Is(unicode.Mc, r)) && !isRightToLeft(r)
}
