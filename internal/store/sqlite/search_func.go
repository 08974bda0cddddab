package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sqlite3 "modernc.org/sqlite"

	"github.com/roostapi/roost/internal/search"
)

// SQL functions of search. They are pure functions of their arguments and
// are registered as deterministic scalar functions with the driver.
//
// The driver's registry is process-global and a function reaches only the
// connections opened after it is registered, so registration must precede
// the first connection of any Store. A package init does that with no
// state of ours and no ordering hazard (a sync.Once called from Open would
// work too, but would add a package-level variable and a step Open must
// never forget). Registering the same name twice is a programming error,
// which is why init panics on it.
const (
	// fnMatch is roost_match(text, pattern): 1 when the index tokens of
	// text (search.IndexText) hold pattern, a space-separated sequence of
	// index tokens in which "*" is exactly one arbitrary token.
	fnMatch = "roost_match"
	// fnURL is roost_url(entities, sub): 1 when an expanded URL of the
	// post's entities JSON contains sub (see urlContains).
	fnURL = "roost_url"
)

func init() {
	sqlite3.MustRegisterDeterministicScalarFunction(fnMatch, 2, sqlMatch)
	sqlite3.MustRegisterDeterministicScalarFunction(fnURL, 2, sqlURL)
}

func sqlMatch(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
	text, ok1 := textArg(args[0])
	pat, ok2 := textArg(args[1])
	if !ok1 || !ok2 || !mayMatch(text, pat) {
		return int64(0), nil
	}
	return b2i64(tokensMatch(search.IndexText(text), pat)), nil
}

// mayMatch is a quick necessary condition of roost_match, which spares the
// tokenising of most ASCII posts that cannot match: the index tokens of an
// ASCII text are lower-cased ASCII substrings of it (IndexText only lowers
// ASCII letters and splits; the entities it decodes become no token
// characters), so every token of the pattern must occur in the text,
// ignoring case.
func mayMatch(text, pattern string) bool {
	if !isASCII(text) {
		return true
	}
	for rest := pattern; rest != ""; {
		var tok string
		tok, rest, _ = strings.Cut(rest, " ")
		if tok == "*" || tok == "" {
			continue
		}
		if !isASCII(tok) || !containsLowerASCII(text, tok) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsLowerASCII reports whether s holds sub (lower-case ASCII),
// ignoring the case of s.
func containsLowerASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func sqlURL(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
	ent, ok1 := textArg(args[0])
	sub, ok2 := textArg(args[1])
	if !ok1 || !ok2 {
		return int64(0), nil
	}
	var e struct {
		URLs []struct {
			Expanded string `json:"expanded_url"`
		} `json:"urls"`
	}
	if err := json.Unmarshal([]byte(ent), &e); err != nil {
		return nil, fmt.Errorf("%s: stored entities: %w", fnURL, err)
	}
	for _, u := range e.URLs {
		if urlContains(u.Expanded, sub) {
			return int64(1), nil
		}
	}
	return int64(0), nil
}

// textArg reads a TEXT (or BLOB) argument of an SQL function.
func textArg(v driver.Value) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

func b2i64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// tokensMatch reports whether index (IndexText output: tokens joined by
// single spaces) holds the token sequence pattern, in which "*" is exactly
// one arbitrary token.
func tokensMatch(index, pattern string) bool {
	if pattern == "" {
		return false
	}
	if !strings.Contains(pattern, "*") {
		return containsRun(index, pattern)
	}
	toks := strings.Split(index, " ")
	pat := strings.Split(pattern, " ")
	for i := 0; i+len(pat) <= len(toks); i++ {
		ok := true
		for j, w := range pat {
			if w != "*" && toks[i+j] != w {
				ok = false
				break
			}
		}
		if ok && toks[i] != "" {
			return true
		}
	}
	return false
}

// containsRun reports whether run occurs in index on token boundaries.
func containsRun(index, run string) bool {
	for from := 0; from+len(run) <= len(index); {
		k := strings.Index(index[from:], run)
		if k < 0 {
			return false
		}
		k += from
		end := k + len(run)
		if (k == 0 || index[k-1] == ' ') && (end == len(index) || index[end] == ' ') {
			return true
		}
		from = k + 1
	}
	return false
}

// urlContains reports whether the expanded URL u contains sub, ignoring
// case, where '_' in sub matches '_' or '-' (the website's url: treats
// them alike).
func urlContains(u, sub string) bool {
	u, sub = strings.ToLower(u), strings.ToLower(sub)
	if !strings.Contains(sub, "_") {
		return strings.Contains(u, sub)
	}
	for i := 0; i+len(sub) <= len(u); {
		if urlAt(u[i:], sub) {
			return true
		}
		_, n := utf8.DecodeRuneInString(u[i:])
		i += n
	}
	return false
}

// urlAt reports whether s starts with sub, '_' in sub matching '_' or '-'.
func urlAt(s, sub string) bool {
	for j := 0; j < len(sub); j++ {
		c := s[j]
		if sub[j] == '_' {
			if c != '_' && c != '-' {
				return false
			}
		} else if c != sub[j] {
			return false
		}
	}
	return true
}
