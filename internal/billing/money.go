package billing

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MicrosPerUSD is one US dollar in micro-USD, the unit of every balance
// and price.
const MicrosPerUSD = 1_000_000

// FormatUSD writes micro-USD as a decimal dollar amount, exactly and
// without trailing zeros: 12345600 → "12.3456", 0 → "0", -5 → "-0.000005".
func FormatUSD(micros int64) string {
	var b [32]byte
	return string(AppendUSD(b[:0], micros))
}

// AppendUSD appends FormatUSD(micros) to b.
func AppendUSD(b []byte, micros int64) []byte {
	u := uint64(micros)
	if micros < 0 {
		b = append(b, '-')
		u = -u // exact for math.MinInt64 too, in uint64
	}
	whole, frac := u/MicrosPerUSD, u%MicrosPerUSD
	b = strconv.AppendUint(b, whole, 10)
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	for div := uint64(MicrosPerUSD / 10); frac != 0; div /= 10 {
		b = append(b, byte('0'+frac/div))
		frac %= div
	}
	return b
}

// ParseUSD reads a non-negative decimal dollar amount ("12", "12.5",
// "0.000001", ".5") into micro-USD exactly, without floating point. More
// than six decimals, signs, exponents, spaces and values beyond int64 are
// errors.
func ParseUSD(s string) (int64, error) {
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, fmt.Errorf("parse USD amount %q: no digits", s)
	}
	if !digits(whole) || !digits(frac) {
		return 0, fmt.Errorf("parse USD amount %q: not a plain decimal number", s)
	}
	if hasDot && len(frac) > 6 {
		return 0, fmt.Errorf("parse USD amount %q: more than 6 decimals", s)
	}
	var w uint64
	if whole != "" {
		var err error
		if w, err = strconv.ParseUint(whole, 10, 64); err != nil || w > math.MaxInt64/MicrosPerUSD {
			return 0, fmt.Errorf("parse USD amount %q: %w", s, errTooLarge)
		}
	}
	var f uint64
	if frac != "" {
		f, _ = strconv.ParseUint(frac+strings.Repeat("0", 6-len(frac)), 10, 64)
	}
	total := w*MicrosPerUSD + f
	if total > math.MaxInt64 {
		return 0, fmt.Errorf("parse USD amount %q: %w", s, errTooLarge)
	}
	return int64(total), nil
}

var errTooLarge = errors.New("too large")

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
