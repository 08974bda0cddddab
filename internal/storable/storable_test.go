package storable

import (
	"testing"
	"unicode/utf8"
)

func TestFind(t *testing.T) {
	for _, c := range []struct {
		in  string
		pos int
		nul bool
	}{
		{"", -1, false},
		{"hello", -1, false},
		{"東京 🐈", -1, false},
		{"\uFFFD", -1, false},
		{"\x00", 0, true},
		{"ab\x00c", 2, true},
		{"é\x00", 2, true},
		{"a\xffb", 1, false},
		{"a\xff\x00", 1, false},             // the first problem wins
		{"a\x00\xff", 1, true},              //
		{"\xe6\x9d", 0, false},              // a cut sequence
		{"x\xed\xa0\x80", 1, false},         // an encoded surrogate
		{"ok \xf4\x90\x80\x80", 3, false},   // above U+10FFFF
		{"\xc0\xaf", 0, false},              // overlong
		{"abc\u0001\u007f", -1, false},      // other control characters are storable
		{"\U0010FFFF\x00", 4, true},         // after a 4-byte rune
		{"tab\there\nnew\rline", -1, false}, //
	} {
		pos, nul := Find(c.in)
		if pos != c.pos || nul != c.nul {
			t.Errorf("Find(%q) = %d, %v; want %d, %v", c.in, pos, nul, c.pos, c.nul)
		}
	}
}

func TestRepair(t *testing.T) {
	for in, want := range map[string]string{
		"":              "",
		"plain":         "plain",
		"ab\x00c":       "ab\uFFFDc",
		"\x00\x00":      "\uFFFD\uFFFD",
		"a\xffb":        "a\uFFFDb",
		"\xe6\x9d":      "\uFFFD\uFFFD", // each byte, as encoding/json does
		"é\x00東\xff":    "é\uFFFD東\uFFFD",
		"x\xed\xa0\x80": "x\uFFFD\uFFFD\uFFFD",
	} {
		got := Repair(in)
		if got != want {
			t.Errorf("Repair(%q) = %q, want %q", in, got, want)
		}
		if pos, _ := Find(got); pos >= 0 || !utf8.ValidString(got) {
			t.Errorf("Repair(%q) = %q still holds what cannot be stored", in, got)
		}
	}
	s := "no change"
	if got := Repair(s); got != s {
		t.Errorf("Repair changed %q", s)
	}
}

func FuzzRepair(f *testing.F) {
	for _, s := range []string{"", "a\x00b", "\xff", "東\xe6\x9d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Repair(s)
		if pos, _ := Find(got); pos >= 0 {
			t.Fatalf("Repair(%q) = %q: byte %d cannot be stored", s, got, pos)
		}
		if pos, _ := Find(s); pos < 0 && got != s {
			t.Fatalf("Repair(%q) = %q changed a storable value", s, got)
		}
	})
}
