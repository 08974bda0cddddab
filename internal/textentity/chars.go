package textentity

import "unicode"

// Character classes of twitter-text's patterns. Its patterns are
// case-insensitive without Unicode case folding, so every ASCII letter class
// below takes both cases and nothing else is folded.

// ASCII class bits, looked up in asciiClasses.
const (
	clsAlnum          = 1 << iota // [a-z0-9], either case
	clsUsername                   // [a-z0-9_]
	clsPathGeneral                // URL path characters (ASCII part)
	clsPathEnding                 // URL path ending characters (ASCII part)
	clsQuery                      // URL query characters
	clsQueryEnding                // URL query ending characters
	clsURLPunct                   // twitter-text's PUNCTUATION_CHARS
	clsJavaPunct                  // Java's \p{Punct}: all ASCII punctuation
	clsMentionBlock               // characters that may not precede an @mention
	clsRTBlock                    // characters that may not precede "RT" before an @mention
	clsDomainLabel                // [a-z0-9-] of a domain name label
	clsSubdomainLabel             // [a-z0-9_-] of a subdomain label
)

// asciiClasses maps each ASCII code point to its class bits. It is built
// once and never written afterwards.
var asciiClasses = buildASCIIClasses()

func buildASCIIClasses() [128]uint16 {
	var t [128]uint16
	set := func(bits uint16, chars string) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= bits
		}
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= clsAlnum | clsUsername | clsPathGeneral | clsPathEnding | clsQuery | clsQueryEnding
	}
	for c := 'a'; c <= 'z'; c++ {
		for _, x := range []rune{c, c - 'a' + 'A'} {
			t[x] |= clsAlnum | clsUsername | clsPathGeneral | clsPathEnding | clsQuery | clsQueryEnding
		}
	}
	set(clsUsername, "_")
	set(clsPathGeneral, "!*';:=+,.$/%#[]-_~|&@")
	set(clsPathEnding, "=_#/-+")
	set(clsQuery, "!?*'();:&=+$/%#[]-_.,~|@")
	set(clsQueryEnding, "-_&=#/")
	set(clsURLPunct, "-_!\"#$%&'()*+,./:;<=>?@[]^`{|}~")
	set(clsJavaPunct, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
	set(clsMentionBlock, "_!#$%&*@")
	set(clsRTBlock, "_+~.-")
	set(clsDomainLabel, "-")
	set(clsSubdomainLabel, "-_")
	for c := range t {
		if t[c]&clsAlnum != 0 {
			t[c] |= clsMentionBlock | clsRTBlock | clsDomainLabel | clsSubdomainLabel
		}
	}
	return t
}

// hasClass reports whether r is ASCII and has any of the class bits.
func hasClass(r rune, bits uint16) bool {
	return r >= 0 && r < 128 && asciiClasses[r]&bits != 0
}

func isASCIIAlnum(r rune) bool { return hasClass(r, clsAlnum) }

func isASCIILetter(r rune) bool { return r|0x20 >= 'a' && r|0x20 <= 'z' }

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// lowerASCII folds an ASCII capital letter to lower case.
func lowerASCII(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// isLatinAccent reports twitter-text's LATIN_ACCENTS_CHARS.
func isLatinAccent(r rune) bool {
	switch {
	case r < 0xc0:
		return false
	case r <= 0xff:
		return r != 0xd7 && r != 0xf7
	case r <= 0x24f:
		return true
	case r <= 0x2bb:
		switch r {
		case 0x253, 0x254, 0x256, 0x257, 0x259, 0x25b, 0x263, 0x268, 0x26f, 0x272, 0x289, 0x28b, 0x2bb:
			return true
		}
		return false
	case r >= 0x300 && r <= 0x36f:
		return true
	case r >= 0x1e00 && r <= 0x1eff:
		return true
	}
	return false
}

func isCyrillic(r rune) bool { return r >= 0x400 && r <= 0x4ff }

// isDomainChar reports URL_VALID_CHARS: ASCII letters, digits and Latin accents.
func isDomainChar(r rune) bool {
	if r < 128 {
		return r >= 0 && asciiClasses[r]&clsAlnum != 0
	}
	return isLatinAccent(r)
}

// isUnicodeDomainChar reports URL_VALID_UNICODE_CHARS: anything but URL
// punctuation, Java white space (\s), separators (\p{Z}) and the General
// Punctuation block.
func isUnicodeDomainChar(r rune) bool {
	switch {
	case r < 128:
		return asciiClasses[r]&clsURLPunct == 0 && !isJavaSpace(r)
	case r >= 0x2000 && r <= 0x206f:
		return false
	}
	return !unicode.Is(unicode.Z, r)
}

// isJavaSpace reports Java's ASCII-only \s.
func isJavaSpace(r rune) bool {
	return r == ' ' || (r >= '\t' && r <= '\r')
}

// isUnicodeSpace reports twitter-text's UNICODE_SPACES.
func isUnicodeSpace(r rune) bool {
	switch {
	case r == ' ' || (r >= '\t' && r <= '\r'):
		return true
	case r < 0x85:
		return false
	case r == 0x85 || r == 0xa0 || r == 0x1680 || r == 0x180e:
		return true
	case r >= 0x2000 && r <= 0x200a:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0x202f || r == 0x205f || r == 0x3000:
		return true
	}
	return false
}

// isDirectional reports the bidirectional formatting characters.
func isDirectional(r rune) bool {
	switch {
	case r == 0x61c || r == 0x200e || r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func isAtSign(r rune) bool   { return r == '@' || r == '\uff20' }
func isHashSign(r rune) bool { return r == '#' || r == '\uff03' }

// isPathGeneral reports URL_VALID_GENERAL_PATH_CHARS.
func isPathGeneral(r rune) bool {
	if r < 128 {
		return r >= 0 && asciiClasses[r]&clsPathGeneral != 0
	}
	return r == 0x2013 || isLatinAccent(r) || isCyrillic(r)
}

// isPathEnding reports the character-class part of URL_VALID_PATH_ENDING_CHARS.
func isPathEnding(r rune) bool {
	if r < 128 {
		return r >= 0 && asciiClasses[r]&clsPathEnding != 0
	}
	return isLatinAccent(r) || isCyrillic(r)
}

// hashtagExtraLetters are the code points twitter-text counts as hashtag
// letters beyond Unicode's letters and marks (private-use characters that
// some platforms use for letters). The rest of its list of additions is
// already letters or marks in the Unicode tables Go ships.
var hashtagExtraLetters = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0xf870, Hi: 0xf87f, Stride: 1},
		{Lo: 0xf882, Hi: 0xf882, Stride: 1},
		{Lo: 0xf884, Hi: 0xf89f, Stride: 1},
		{Lo: 0xf8b8, Hi: 0xf8b8, Stride: 1},
		{Lo: 0xf8c1, Hi: 0xf8d6, Stride: 1},
	},
}

// isHashtagLetter reports HASHTAG_LETTERS_AND_MARKS.
func isHashtagLetter(r rune) bool {
	if r < 128 {
		return isASCIILetter(r)
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(hashtagExtraLetters, r)
}

// isHashtagChar reports HASHTAG_LETTERS_NUMERALS: letters, marks, decimal
// digits and a few joiners and punctuation marks used inside words.
func isHashtagChar(r rune) bool {
	if r < 128 {
		return isASCIIAlnum(r) || r == '_'
	}
	switch r {
	case 0x200c, 0x200d, 0xa67e, 0x05be, 0x05f3, 0x05f4, 0xff5e, 0x301c,
		0x309b, 0x309c, 0x30a0, 0x30fb, 0x3003, 0x0f0b, 0x0f0c, 0x00b7:
		return true
	}
	return isHashtagLetter(r) || unicode.IsDigit(r)
}
