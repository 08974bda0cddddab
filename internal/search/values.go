package search

import (
	"math"
	"strconv"
	"time"
	"unicode"
)

// Bounds of operator values.
const (
	// maxCount bounds min_faves: and friends; -min_faves:N becomes N+1.
	maxCount = 1_000_000_000_000
	// maxUnix is 9999-12-31 23:59:59 UTC, the last second since: can write.
	maxUnix = 253402300799
	// maxWithin bounds within_time: to about a century.
	maxWithin = 36500 * 24 * time.Hour
)

// Layouts of since: and until:.
const (
	dayLayout  = "2006-01-02"
	timeLayout = "2006-01-02_15:04:05_UTC"
)

// parseID reads a positive 63-bit id; what names it in the error.
func parseID(v opValue, what string) (int64, error) {
	n, ok := parseDigits(v.text)
	if !ok || n < 1 {
		return 0, errAt(v.pos, "%s: expects %s (1 to %d)", v.name, what, int64(math.MaxInt64))
	}
	return n, nil
}

func parseCount(v opValue) (int64, error) {
	n, ok := parseDigits(v.text)
	if !ok || n > maxCount {
		return 0, errAt(v.pos, "%s: expects a whole number from 0 to %d", v.name, maxCount)
	}
	return n, nil
}

// parseDigits reads a non-negative decimal number of ASCII digits only.
func parseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseDate reads YYYY-MM-DD (midnight UTC) or YYYY-MM-DD_HH:MM:SS_UTC.
func parseDate(v opValue) (time.Time, error) {
	layout := ""
	switch {
	case shaped(v.text, "dddd-dd-dd"):
		layout = dayLayout
	case shaped(v.text, "dddd-dd-dd_dd:dd:dd_UTC"):
		layout = timeLayout
	default:
		return time.Time{}, errAt(v.pos, "%s: expects a date YYYY-MM-DD or YYYY-MM-DD_HH:MM:SS_UTC", v.name)
	}
	t, err := time.Parse(layout, v.text)
	if err != nil {
		return time.Time{}, errAt(v.pos, "%s: %q is not a valid date and time", v.name, v.text)
	}
	return unixUTC(t.Unix()), nil
}

// shaped reports whether s has the shape of pattern, where 'd' is any ASCII
// digit and other bytes stand for themselves.
func shaped(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if pattern[i] == 'd' {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		} else if s[i] != pattern[i] {
			return false
		}
	}
	return true
}

func parseUnix(v opValue) (time.Time, error) {
	n, ok := parseDigits(v.text)
	if !ok || n > maxUnix {
		return time.Time{}, errAt(v.pos, "%s: expects Unix seconds from 0 to %d", v.name, maxUnix)
	}
	return unixUTC(n), nil
}

// parseWithin reads within_time:'s duration: a whole number and a unit d,
// h, m or s.
func parseWithin(v opValue) (time.Duration, error) {
	s := v.text
	var unit time.Duration
	switch s[len(s)-1] {
	case 'd':
		unit = 24 * time.Hour
	case 'h':
		unit = time.Hour
	case 'm':
		unit = time.Minute
	case 's':
		unit = time.Second
	}
	n, digits := parseDigits(s[:len(s)-1])
	if unit == 0 || !digits || n < 1 {
		return 0, errAt(v.pos, "%s: expects a positive number and a unit d, h, m or s, such as 2d", v.name)
	}
	if n > int64(maxWithin/unit) {
		return 0, errAt(v.pos, "%s: at most %dd", v.name, int64(maxWithin/(24*time.Hour)))
	}
	return time.Duration(n) * unit, nil
}

// isLangCode reports whether code (lower case) is a language code: 2 or 3
// letters, then optional subtags of 1 to 8 letters or digits ("pt-br").
func isLangCode(code string) bool {
	i := 0
	for i < len(code) && code[i] >= 'a' && code[i] <= 'z' {
		i++
	}
	if i < 2 || i > 3 {
		return false
	}
	for i < len(code) {
		if code[i] != '-' {
			return false
		}
		i++
		j := i
		for j < len(code) && (code[j] >= 'a' && code[j] <= 'z' || code[j] >= '0' && code[j] <= '9') {
			j++
		}
		if j-i < 1 || j-i > 8 {
			return false
		}
		i = j
	}
	return true
}

// unixUTC is the time of Unix second s in UTC, the one form every TimeBound
// holds so that parsed queries compare equal.
func unixUTC(s int64) time.Time { return time.Unix(s, 0).UTC() }

func isSpaceRune(r rune) bool { return unicode.IsSpace(r) }
