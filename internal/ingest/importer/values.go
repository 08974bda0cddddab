package importer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// flexInt decodes an integer written as a JSON number, a JSON string or null
// (null and "" are zero). It parses the digits exactly, never through
// float64, so ids above 2^53 survive.
type flexInt int64

// UnmarshalJSON implements json.Unmarshaler.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	if len(b) == 0 || string(b) == "null" {
		*f = 0
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		// Counters may be written with a fraction or exponent ("1.0",
		// "1e3"): accept those that are exact integers.
		if bytes.ContainsAny(b, ".eE") {
			fl, ferr := strconv.ParseFloat(string(b), 64)
			if ferr == nil && fl == float64(int64(fl)) && fl < 1<<53 && fl > -(1<<53) {
				*f = flexInt(fl)
				return nil
			}
		}
		return fmt.Errorf("not an integer: %.40q", b)
	}
	*f = flexInt(n)
	return nil
}

// first returns the first non-zero value.
func first(vs ...flexInt) int64 {
	for _, v := range vs {
		if v != 0 {
			return int64(v)
		}
	}
	return 0
}

// rubyLayout is the v1.1 timestamp form, also used by GraphQL legacy
// objects and the data export.
const rubyLayout = "Mon Jan 02 15:04:05 -0700 2006"

// parseTime reads any of the timestamp forms the formats use: the v1.1
// form, RFC 3339 (v2, roost's own responses) and Unix milliseconds.
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("empty timestamp")
	}
	if t, err := time.Parse(rubyLayout, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.UnixMilli(n).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("unrecognised timestamp %.40q", s)
}

// optTime parses a timestamp that may be absent; an unreadable one is zero.
func optTime(s string) time.Time {
	t, err := parseTime(s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// escapeHTML writes text in the form the network stores (&, < and >
// escaped) and returns, for each code point offset of the input (0..n), the
// offset of the same position in the output, so entity indices computed on
// the raw text can be moved onto the escaped one.
func escapeHTML(s string) (string, []int) {
	if !strings.ContainsAny(s, "&<>") {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	pos := make([]int, 0, utf8.RuneCountInString(s)+1)
	out := 0
	for _, r := range s {
		pos = append(pos, out)
		switch r {
		case '&':
			b.WriteString("&amp;")
			out += 5
		case '<':
			b.WriteString("&lt;")
			out += 4
		case '>':
			b.WriteString("&gt;")
			out += 4
		default:
			b.WriteRune(r)
			out++
		}
	}
	pos = append(pos, out)
	return b.String(), pos
}

// remap moves an index through an escapeHTML position table.
func remap(pos []int, i int) int {
	if pos == nil {
		return i
	}
	if i < 0 {
		return 0
	}
	if i >= len(pos) {
		return pos[len(pos)-1] + (i - (len(pos) - 1))
	}
	return pos[i]
}
