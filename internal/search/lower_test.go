package search

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

// TestLower checks the lowered form of each kind of node: terms resolved
// to the values stores compare (tokens, tag keys, lower-case names).
func TestLower(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(dayLayout, s); return t }
	for _, c := range []struct {
		q    string
		want Cond
	}{
		{"Café", CondText{Tokens: []string{"cafe"}}},
		{"+News", CondText{Tokens: []string{"news"}}},
		{"e-mail", CondText{Tokens: []string{"e", "mail"}}},
		{"東京", CondText{Tokens: []string{"東", "京"}}},
		{`"The * * CAT"`, CondText{Tokens: []string{"the", "*", "*", "cat"}}},
		{`"* the cat *"`, CondText{Tokens: []string{"the", "cat"}}},
		{"url:GitHub.com/X", CondURL{Sub: "github.com/x", Runs: []string{"github", "com", "x"}, HeadCut: true, TailCut: true}},
		{"url:/status/", CondURL{Sub: "/status/", Runs: []string{"status"}}},
		{"url:é.com", CondURL{Sub: "é.com", HeadCut: false, TailCut: false}},
		{"https://Example.com/a_b", CondURL{Sub: "example.com/a_b", Runs: []string{"example", "com", "a", "b"}, HeadCut: true, TailCut: true}},
		{"#Go", CondTag{Key: "#go"}},
		{"$BRK.A", CondTag{Key: "$brk.a"}},
		{"@Bob", CondMention{Name: "bob"}},
		{"from:Alice", CondAuthor{Name: "alice"}},
		{"to:BOB", CondReplyTo{Name: "bob"}},
		{"lang:PT-br", CondLang{Code: "pt-br"}},
		{"list:7", CondList{ID: 7}},
		{"max_id:9", CondID{Max: true, ID: 9}},
		{"since:2025-01-02", CondTime{Since: true, T: day("2025-01-02")}},
		{"quoted_user_id:5", CondRef{Kind: RefQuotedUser, ID: 5}},
		{"min_retweets:3", CondCount{Kind: Retweets, Min: 3}},
		{"-min_faves:3", CondNot{Cond: CondCount{Kind: Faves, Min: 4}}},
		{"exclude:replies", CondNot{Cond: CondFilter{Kind: FilterReplies}}},
		{"a (b OR #c)", CondAnd{Conds: []Cond{CondText{Tokens: []string{"a"}}, CondOr{Conds: []Cond{CondText{Tokens: []string{"b"}}, CondTag{Key: "#c"}}}}}},
	} {
		q, err := Parse(c.q, testNow)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if got := Lower(q).Root; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: lowered %#v, want %#v", c.q, got, c.want)
		}
	}
}

// TestLowerPlan checks the facts of the top level: the conditions, the id
// and time ranges (bounds under OR or NOT do not count), the repost rule
// and contradictions.
func TestLowerPlan(t *testing.T) {
	at := func(s string) time.Time { t, _ := time.Parse(dayLayout, s); return t }
	q, err := Parse("since_id:5 max_id:90 since_id:7 max_id:80 since:2025-01-02 since:2025-01-05 until:2025-03-01 (until:2025-02-01 OR a) -since:2025-01-09 include:nativeretweets", testNow)
	if err != nil {
		t.Fatal(err)
	}
	p := Lower(q)
	if p.Lo != 7 || p.Hi != 80 || !p.Since.Equal(at("2025-01-05")) || !p.Until.Equal(at("2025-03-01")) {
		t.Errorf("ranges: ids (%d, %d], times [%v, %v)", p.Lo, p.Hi, p.Since, p.Until)
	}
	if len(p.Kids) != 9 || p.Reposts != RepostsIncluded || p.Never {
		t.Errorf("kids %d, reposts %v, never %v", len(p.Kids), p.Reposts, p.Never)
	}
	if p := Lower(nil); p.Root != nil || p.Kids != nil || p.Lo != 0 || p.Hi != math.MaxInt64 || p.Reposts != RepostsExcluded {
		t.Errorf("nil query: %+v", p)
	}
	q, _ = Parse("word", testNow)
	if p := Lower(q); !reflect.DeepEqual(p.Kids, []Cond{CondText{Tokens: []string{"word"}}}) || p.Hi != math.MaxInt64 {
		t.Errorf("one condition: kids %#v, hi %d", p.Kids, p.Hi)
	}
	q, _ = Parse(`"The cat" -CAT`, testNow)
	if !Lower(q).Never {
		t.Errorf("%q: not Never", `"The cat" -CAT`)
	}
}

func TestTextRuns(t *testing.T) {
	for _, c := range []struct {
		toks []string
		want []TextRun
	}{
		{[]string{"a"}, []TextRun{{Tokens: []string{"a"}}}},
		{[]string{"a", "b"}, []TextRun{{Tokens: []string{"a", "b"}}}},
		{[]string{"a", "*", "b", "c", "*", "*", "d"}, []TextRun{{Tokens: []string{"a"}}, {Tokens: []string{"b", "c"}, Gap: 1}, {Tokens: []string{"d"}, Gap: 2}}},
		{nil, nil},
	} {
		x := CondText{Tokens: c.toks}
		if got := x.Runs(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: runs %v, want %v", c.toks, got, c.want)
		}
		if x.Wild() != (len(c.want) > 1) {
			t.Errorf("%q: Wild %v", c.toks, x.Wild())
		}
	}
}

// checkLowered checks that every node of a lowered tree is one a compiler
// knows (no nil), and that a text's wildcards are interior.
func checkLowered(c Cond) error {
	switch c := c.(type) {
	case CondAnd:
		return checkLoweredAll(c.Conds)
	case CondOr:
		return checkLoweredAll(c.Conds)
	case CondNot:
		if c.Cond == nil {
			return fmt.Errorf("a CondNot of nothing")
		}
		return checkLowered(c.Cond)
	case CondText:
		if n := len(c.Tokens); n > 0 && (c.Tokens[0] == "*" || c.Tokens[n-1] == "*") {
			return fmt.Errorf("text %q: a wildcard at an end", c.Tokens)
		}
	}
	return nil
}

func checkLoweredAll(cs []Cond) error {
	for _, c := range cs {
		if c == nil {
			return fmt.Errorf("a nil condition")
		}
		if err := checkLowered(c); err != nil {
			return err
		}
	}
	return nil
}
