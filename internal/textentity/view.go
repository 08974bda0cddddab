package textentity

import "unicode/utf8"

// stackRunes is how many code points a text may have before its decoding
// spills from the stack to the heap; most posts are far shorter.
const stackRunes = 512

// decodeBuf is caller-provided room for decoding a typical post.
type decodeBuf struct {
	r   [stackRunes]rune
	off [stackRunes + 1]int
}

// decoded is a text's code points and where each starts: off[i] is the
// byte offset of r[i], off[len(r)] the text's length. (It does not hold
// the text itself, so that strings cut from the text, which outlive the
// call, do not drag the buffers to the heap.)
type decoded struct {
	r   []rune
	off offsets
}

// decode splits text into code points, an invalid UTF-8 byte reading as
// one U+FFFD, as a conversion to []rune does.
func decode(text string, b *decodeBuf) decoded {
	// A text has at most as many code points as bytes.
	r, off := b.r[:], b.off[:]
	if len(text) > stackRunes {
		r, off = make([]rune, len(text)), make(offsets, len(text)+1)
	}
	n := 0
	for i := 0; i < len(text); n++ {
		c, w := rune(text[i]), 1
		if c >= utf8.RuneSelf {
			c, w = utf8.DecodeRuneInString(text[i:])
		}
		r[n], off[n] = c, i
		i += w
	}
	off[n] = len(text)
	return decoded{r: r[:n], off: off[:n+1]}
}

// offsets are the byte offsets of a text's code points, and its length.
type offsets []int

// cut returns the part of text between code-point indices start and end.
func (o offsets) cut(text string, start, end int) string {
	return text[o[start]:o[end]]
}
