package postgres

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/roostapi/roost/internal/search"
)

// containsURL is url:'s meaning (as package sqlite has it): u contains sub,
// ignoring case, '_' in sub matching '_' or '-'.
func containsURL(u, sub string) bool {
	u, sub = strings.ToLower(u), strings.ToLower(sub)
	for i := 0; i+len(sub) <= len(u); i++ {
		ok := true
		for j := 0; j < len(sub); j++ {
			c := u[i+j]
			if sub[j] == '_' {
				ok = c == '_' || c == '-'
			} else {
				ok = c == sub[j]
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func checkURL(t *testing.T, u, sub string) {
	pat, ok := urlPattern(sub)
	want := sub != "" && !strings.ContainsAny(sub, "\n\r") && containsURL(u, sub)
	if !ok {
		if want {
			t.Errorf("urlPattern(%q) refused, but %q contains it", sub, u)
		}
		return
	}
	re, err := regexp.Compile(pat) // the pattern is plain enough for RE2 and ARE alike
	if err != nil {
		t.Fatalf("urlPattern(%q) = %q: %v", sub, pat, err)
	}
	if got := re.MatchString(strings.ToLower(u)); got != want {
		t.Errorf("url %q, sub %q (pattern %q): match %v, want %v", u, sub, pat, got, want)
	}
	// The index tokens are a superset condition: whole tokens of every
	// URL containing sub.
	if want {
		toks := " " + tokens(urlText(u)) + " "
		for _, tok := range strings.Fields(urlIndexTokens(search.LowerURL(sub))) {
			if !strings.Contains(toks, " "+tok+" ") {
				t.Errorf("url %q contains %q but lacks its index token %q (tokens %q)", u, sub, tok, toks)
			}
		}
	}
}

func TestURLPattern(t *testing.T) {
	u := "https://Example.com/some-path_x?q=a+b&c=(1)"
	for _, sub := range []string{"example", "xample.co", "some_path", "some-path", "some_path_x", "some.path",
		"q=a+b", "c=(1)", "(1)", ".*", "https://", "", "e.c", "PATH", "x?q", "[a]", "\\", "$", "^h"} {
		checkURL(t, u, sub)
	}
}

func FuzzURLPattern(f *testing.F) {
	f.Add("https://example.com/some-path", "some_path")
	f.Add("http://a.b/c?d=e", "b/c?")
	f.Add("https://ü.example/ä-ö", "ä_ö")
	f.Fuzz(func(t *testing.T, u, sub string) {
		if !utf8.ValidString(u) || !utf8.ValidString(sub) {
			return
		}
		checkURL(t, u, sub)
	})
}
