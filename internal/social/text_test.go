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

func TestCheckJSONText(t *testing.T) {
	for doc, want := range map[string]string{
		`{"a":"ok","b":["x",{"c":1}]}`:         "",
		`not json \u0000`:                      "",
		`{"usernames":["ok","ab\u0000c"]}`:     "usernames: contains a NUL byte at byte 2",
		`{"q":{"k":[1,{"x\u0000":2}]}}`:        "q: contains a NUL byte at byte 1",
		`{"a\u0000":1}`:                        `: field name "a\x00" contains a NUL byte at byte 1`,
		`"\u0000"`:                             ": contains a NUL byte at byte 0",
		"{\"a\":\"\xff\"}":                     "", // read as U+FFFD
		`{"a":1,"b":"x\u0000"} {"c":"\u0000"}`: "b: contains a NUL byte at byte 1",
		`{"a":"ok"`:                            "",
	} {
		field, err := CheckJSONText([]byte(doc))
		got := ""
		if err != nil {
			got = field + ": " + err.Error()
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("CheckJSONText(%s): %v is not ErrInvalid", doc, err)
			}
		}
		if got != want {
			t.Errorf("CheckJSONText(%s) = %q, want %q", doc, got, want)
		}
	}
}
