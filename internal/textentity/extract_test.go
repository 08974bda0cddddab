package textentity

import (
	"reflect"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// at returns the code-point index of the first occurrence of sub in text.
func at(t *testing.T, text, sub string) int {
	t.Helper()
	i := strings.Index(text, sub)
	if i < 0 {
		t.Fatalf("%q not in %q", sub, text)
	}
	return len([]rune(text[:i]))
}

func TestExtract(t *testing.T) {
	post := "RT @roost_dev: 🚀 new importer &amp; more at https://example.com/blog/x?ref=tw #golang $GOOG cc @alice"
	tests := []struct {
		name string
		text string
		want func(t *testing.T) social.Entities
	}{
		{"empty", "", func(*testing.T) social.Entities { return social.Entities{} }},
		{"plain text", "nothing to see here", func(*testing.T) social.Entities { return social.Entities{} }},
		{"all kinds with astral and escaped text", post, func(t *testing.T) social.Entities {
			u := at(t, post, "https://")
			g := at(t, post, "#golang")
			s := at(t, post, "$GOOG")
			a := at(t, post, "@alice")
			return social.Entities{
				Mentions: []social.Mention{
					{ScreenName: "roost_dev", Start: 3, End: 13},
					{ScreenName: "alice", Start: a, End: a + 6},
				},
				URLs: []social.URL{{
					URL: "https://example.com/blog/x?ref=tw", ExpandedURL: "https://example.com/blog/x?ref=tw",
					DisplayURL: "example.com/blog/x?ref=tw", Start: u, End: u + 33,
				}},
				Hashtags: []social.Tag{{Text: "golang", Start: g, End: g + 7}},
				Symbols:  []social.Tag{{Text: "GOOG", Start: s, End: s + 5}},
			}
		}},
		{"mention and hashtag inside a URL are dropped", "see http://example.com/@bob/#tag now", func(t *testing.T) social.Entities {
			return social.Entities{URLs: []social.URL{{
				URL: "http://example.com/@bob/#tag", ExpandedURL: "http://example.com/@bob/#tag",
				DisplayURL: "example.com/@bob/#tag", Start: 4, End: 32,
			}}}
		}},
		{"list reference is not a user mention", "@bob/team and @carol", func(t *testing.T) social.Entities {
			return social.Entities{Mentions: []social.Mention{{ScreenName: "carol", Start: 14, End: 20}}}
		}},
		{"URL without scheme keeps it out of display", "read roost.dev/docs.", func(t *testing.T) social.Entities {
			return social.Entities{URLs: []social.URL{{
				URL: "roost.dev/docs", ExpandedURL: "roost.dev/docs", DisplayURL: "roost.dev/docs", Start: 5, End: 19,
			}}}
		}},
		{"HTML entity before a hashtag", "fish &amp;#chips &#39;#ok", func(t *testing.T) social.Entities {
			return social.Entities{Hashtags: []social.Tag{
				{Text: "chips", Start: 10, End: 16},
				{Text: "ok", Start: 22, End: 25},
			}}
		}},
		{"full-width signs", "＠bob ＃tag", func(t *testing.T) social.Entities {
			return social.Entities{
				Mentions: []social.Mention{{ScreenName: "bob", Start: 0, End: 4}},
				Hashtags: []social.Tag{{Text: "tag", Start: 5, End: 9}},
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Extract(tc.text)
			if want := tc.want(t); !reflect.DeepEqual(got, want) {
				t.Errorf("Extract(%q)\n got %+v\nwant %+v", tc.text, got, want)
			}
		})
	}
}

func TestFinerFunctions(t *testing.T) {
	text := "@a/list_1 @b http://t.co/abc?x=1 #x $AB.C"
	if got, want := MentionsOrLists(text), []MentionOrList{
		{ScreenName: "a", ListSlug: "/list_1", Start: 0, End: 9},
		{ScreenName: "b", Start: 10, End: 12},
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("MentionsOrLists = %+v, want %+v", got, want)
	}
	if got, want := Mentions(text), []social.Mention{{ScreenName: "b", Start: 10, End: 12}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Mentions = %+v, want %+v", got, want)
	}
	if got, want := URLs(text), []social.URL{{
		URL: "http://t.co/abc?x=1", ExpandedURL: "http://t.co/abc?x=1", DisplayURL: "t.co/abc?x=1", Start: 13, End: 32,
	}}; !reflect.DeepEqual(got, want) {
		t.Errorf("URLs = %+v, want %+v", got, want)
	}
	if got, want := Hashtags(text), []social.Tag{{Text: "x", Start: 33, End: 35}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Hashtags = %+v, want %+v", got, want)
	}
	if got, want := Cashtags(text), []social.Tag{{Text: "AB.C", Start: 36, End: 41}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Cashtags = %+v, want %+v", got, want)
	}
	if got := ReplyScreenName(" @bob hi"); got != "bob" {
		t.Errorf("ReplyScreenName = %q, want bob", got)
	}
	for _, f := range []func(string) int{
		func(s string) int { return len(Mentions(s)) },
		func(s string) int { return len(MentionsOrLists(s)) },
		func(s string) int { return len(URLs(s)) },
		func(s string) int { return len(Hashtags(s)) },
		func(s string) int { return len(Cashtags(s)) },
	} {
		if n := f("no entities"); n != 0 {
			t.Errorf("got %d entities from plain text", n)
		}
	}
}

func TestURLEdges(t *testing.T) {
	long := "http://example.com/" + strings.Repeat("a", maxURLLen)
	tests := []struct {
		text string
		want []string
	}{
		{"HTTPS://EXAMPLE.COM/X", []string{"HTTPS://EXAMPLE.COM/X"}},
		{"http://example.com:8080/a?b=c.", []string{"http://example.com:8080/a?b=c"}},
		{"go to foo.xn--p1ai/x now", []string{"foo.xn--p1ai/x"}},
		{"vermögensberatung: shop.vermögensberatung/x", []string{"shop.vermögensberatung/x"}},
		{"track/We_Up http://r.io/We_Up_(Album_(Edited))/ x", []string{"http://r.io/We_Up_(Album_(Edited))/"}},
		{"a (see http://example.com/x) b", []string{"http://example.com/x"}},
		{"http://ab.com/" + strings.Repeat("x", 10) + "()", []string{"http://ab.com/xxxxxxxxxx"}},
		{"http://あ。い.com", []string{"http://あ。い.com"}},
		{"http://مثال.com http://aمثال.com", []string{"http://مثال.com"}},
		{long, nil},
		{"xn--bcher-kva.com xn--bücher.com", []string{"xn--bcher-kva.com"}},
	}
	for _, tc := range tests {
		got := mapSlice(URLs(tc.text), func(u social.URL) string { return u.URL })
		if tc.want == nil {
			tc.want = []string{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("URLs(%.60q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func TestPunycodeLen(t *testing.T) {
	tests := []struct {
		label string
		want  string // RFC 3492 encodings
	}{
		{"bücher", "bcher-kva"},
		{"münchen", "mnchen-3ya"},
		{"☃", "n3h"},
		{"他们为什么不说中文", "ihqwcrb4cv8a8dqg056pqjye"},
		{"ليهمابتكلموشعربي؟", "egbpdaj6bu4bxfgehfvwxn"},
		{"3年b組金八先生", "3b-ww4c5e180e575a65lsy2b"},
	}
	for _, tc := range tests {
		n, ok := punycodeLen([]rune(tc.label))
		if !ok || n != len(tc.want) {
			t.Errorf("punycodeLen(%q) = %d, %v; want %d (%s)", tc.label, n, ok, len(tc.want), tc.want)
		}
	}
}

func TestASCIIHostLength(t *testing.T) {
	tests := []struct {
		host string
		want int
		ok   bool
	}{
		{"example.com", 11, true},
		{"bücher.de", len("xn--bcher-kva.de"), true},
		{"xn--はじめよう.com", 0, false},
		{strings.Repeat("a", 64) + ".com", 0, false},
		{strings.Repeat("あ", 60) + ".com", 0, false},
		{"a\u200bb.com", 6, true},  // zero-width space maps to nothing
		{"a\ue000b.com", 0, false}, // private use is prohibited
		{"مثالa.com", 0, false},    // right-to-left label with a Latin letter
		{"مثال.com", len("xn--mgbh0fb.com"), true},
	}
	for _, tc := range tests {
		n, ok := asciiHostLength([]rune(tc.host))
		if ok != tc.ok || (ok && n != tc.want) {
			t.Errorf("asciiHostLength(%q) = %d, %v; want %d, %v", tc.host, n, ok, tc.want, tc.ok)
		}
	}
}

func TestTLDIndex(t *testing.T) {
	for _, name := range strings.Fields(genericTLDList + " " + countryTLDList) {
		r := []rune(name)
		if end, ok := tlds.match(r, 0); !ok || end != len(r) {
			t.Errorf("TLD %q not matched whole: %d, %v", name, end, ok)
		}
	}
	for _, text := range []string{"comm", "co-op", "com@x", "baz", "c_o"} {
		if end, ok := tlds.match([]rune(text), 0); ok {
			t.Errorf("tlds.match(%q) = %d, want no match", text, end)
		}
	}
}
