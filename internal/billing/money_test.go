package billing

import (
	"math"
	"testing"
)

func TestFormatUSD(t *testing.T) {
	tests := []struct {
		micros int64
		want   string
	}{
		{0, "0"}, {1, "0.000001"}, {200, "0.0002"}, {12_345_600, "12.3456"}, {12_500_000, "12.5"},
		{1_000_000, "1"}, {-5, "-0.000005"}, {-12_000_000, "-12"},
		{math.MaxInt64, "9223372036854.775807"}, {math.MinInt64, "-9223372036854.775808"},
	}
	for _, tt := range tests {
		if got := FormatUSD(tt.micros); got != tt.want {
			t.Errorf("FormatUSD(%d) = %q, want %q", tt.micros, got, tt.want)
		}
	}
}

func TestParseUSD(t *testing.T) {
	good := []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"12.5", 12_500_000}, {"12", 12_000_000}, {"12.", 12_000_000}, {".5", 500_000},
		{"0.000001", 1}, {"0.0002", 200}, {"007.10", 7_100_000}, {"9223372036854.775807", math.MaxInt64},
	}
	for _, tt := range good {
		if got, err := ParseUSD(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseUSD(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	bad := []string{"", ".", "-1", "+1", "1e3", " 1", "1 ", "1.0000001", "abc", "1.2.3", "1,5",
		"9223372036854.775808", "99999999999999999999", "0x10", "NaN", "Inf", "١"}
	for _, in := range bad {
		if got, err := ParseUSD(in); err == nil {
			t.Errorf("ParseUSD(%q) = %d, want an error", in, got)
		}
	}
}

func FuzzParseUSD(f *testing.F) {
	for _, s := range []string{"0", "12.5", ".000001", "-1", "1e9", "9223372036854.775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseUSD(s)
		if err != nil {
			return
		}
		if m < 0 {
			t.Fatalf("ParseUSD(%q) = %d < 0", s, m)
		}
		back, err := ParseUSD(FormatUSD(m))
		if err != nil || back != m {
			t.Fatalf("round trip of %q: %d → %q → %d, %v", s, m, FormatUSD(m), back, err)
		}
	})
}
