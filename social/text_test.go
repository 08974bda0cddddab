package social

import (
	"errors"
	"testing"
)

func TestCheckText(t *testing.T) {
	for in, want := range map[string]string{
		"":          "",
		"jack":      "",
		"東京 🐈":      "",
		"ab\x00c":   "contains a NUL byte at byte 2",
		"\x00":      "contains a NUL byte at byte 0",
		"abcd\xffe": "is not valid UTF-8 at byte 4",
	} {
		err := CheckText(in)
		if want == "" {
			if err != nil {
				t.Errorf("CheckText(%q) = %v, want nil", in, err)
			}
			continue
		}
		var te *TextError
		if err == nil || err.Error() != want || !errors.As(err, &te) || !errors.Is(err, ErrInvalid) {
			t.Errorf("CheckText(%q) = %v, want a *TextError %q that is ErrInvalid", in, err, want)
		}
	}
	if got := RepairText("a\x00b\xff"); got != "a\uFFFDb\uFFFD" {
		t.Errorf("RepairText = %q", got)
	}
}
