package search

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestIndexText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Hello, World!", "hello world"},
		{"Café crème brûlée", "cafe creme brulee"},
		{"nai\u0308ve", "naive"}, // decomposed input folds like precomposed
		{"İstanbul ΟΔΟΣ ὁδός", "istanbul οδοσ οδοσ"},
		{"ＡＢＣ１２３", "abc123"},
		{"ﬁne ①", "fine 1"},
		{"e-mail don't 12:30 3.14", "e mail don t 12 30 3 14"},
		{"#Brexit @Jack $AAPL", "brexit jack aapl"},
		{"東京タワー", "東 京 タ ワ ー"},
		{"a⺊b ⻌道", "a b 道"}, // CJK radicals are symbols: separators
		{"iPhone用の", "iphone 用 の"},
		{"한국어 텍스트", "한 국 어 텍 스 트"},
		{"ｶﾀｶﾅ", "カ タ カ ナ"},
		{"see https://t.co/AbC123 now", "see now"},
		{"(https://example.com/x) and HTTP://X.Y", "and"},
		{"see:https://x.com 1.https://y.z", "see 1"},
		{"12://x www.example.com", "12 x www example com"},
		{"I ❤️ Go 🎉", "i go"},
		{"x\u200dy\u00a0z\u3000w", "x y z w"},
		{"हिन्दी", "हिन्दी"},                     // Devanagari marks stay in the token
		{"Привет, мир! ёлка", "привет мир елка"}, // ё folds like any accent
		{"\xff bad \xfe", "bad"},
		{"R&amp;D &lt;3 a&gt;b &amp;amp;", "r d 3 a b amp"}, // the network's escapes are undone first
	} {
		if got := IndexText(tc.in); got != tc.want {
			t.Errorf("IndexText(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// A person types the unescaped text.
		if got, want := QueryTokens(unescape(tc.in)), strings.Fields(IndexText(tc.in)); !slices.Equal(got, want) && len(want) > 0 {
			t.Errorf("QueryTokens(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestQueryTokens(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Café", []string{"cafe"}},
		{"+word", []string{"word"}},
		{"hello!", []string{"hello"}},
		{"東京", []string{"東", "京"}},
		{"e-mail", []string{"e", "mail"}},
		{"&", nil},
		{"https://example.com", nil},
	} {
		if got := QueryTokens(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("QueryTokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPostsMatchTheirOwnWords checks that the parser and IndexText agree:
// every word of a post, searched alone, and the whole post, searched as a
// phrase, give tokens found in order in the post's IndexText.
func TestPostsMatchTheirOwnWords(t *testing.T) {
	texts := []string{
		"Café crème at 12:30 — e-mail me: jack@example.com #Brexit $AAPL https://t.co/xyz",
		"東京タワーに行きました！ iPhone用のケース、ＡＢＣ",
		"Ünïcödé naïve façade İstanbul ΟΔΟΣ 한국어 텍스트 ｶﾀｶﾅ",
	}
	texts = append(texts, sharedTexts(t)...)
	checked := 0
	for _, text := range texts {
		index := strings.Fields(IndexText(text))
		text = unescape(text) // stored escaped, typed unescaped
		for _, w := range strings.Fields(text) {
			checked += checkFound(t, text, index, w)
		}
		// As a phrase: quotes would end it and a lone * is a wildcard there.
		inner := strings.NewReplacer(`"`, "'", "*", "'").Replace(text)
		checked += checkFound(t, text, index, `"`+inner+`"`)
	}
	t.Logf("%d texts, %d searches checked", len(texts), checked)
}

// checkFound parses query and, when it is a Word or Phrase, checks that its
// tokens occur in order in index. It returns 1 when it checked something.
func checkFound(t *testing.T, text string, index []string, query string) int {
	t.Helper()
	q, err := Parse(query, testNow)
	if err != nil || q.Root == nil {
		return 0 // operators, limits: not a text search
	}
	var want []string
	switch n := q.Root.(type) {
	case Word:
		want = QueryTokens(n.Text)
		if len(want) != 1 {
			t.Errorf("Word %q gives tokens %q, want exactly one", n.Text, want)
		}
	case Phrase:
		for _, w := range n.Words {
			if w == "*" {
				want = append(want, "*")
				continue
			}
			toks := QueryTokens(w)
			if len(toks) != 1 {
				t.Errorf("Phrase word %q gives tokens %q, want exactly one", w, toks)
			}
			want = append(want, toks...)
		}
	default:
		return 0
	}
	match := func(at []string) bool {
		for k, w := range want {
			if w != "*" && at[k] != w {
				return false
			}
		}
		return true
	}
	for i := 0; i+len(want) <= len(index); i++ {
		if match(index[i : i+len(want)]) {
			return 1
		}
	}
	t.Errorf("post %q: search %q gives tokens %q, not in its index %q", text, query, want, index)
	return 1
}

// sharedTexts reads post texts from the shared test data, skipping the
// test where it is absent (and failing in CI).
func sharedTexts(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "testdata")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared test data missing in CI: %v", err)
		}
		t.Logf("shared test data absent (%v): checking built-in texts only", err)
		return nil
	}
	var texts []string
	read := func(name string, each func(line []byte)) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("open %s: %v", name, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			each(sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
	}
	read("v1/rtweet-statuses.jsonl", func(line []byte) {
		var s struct {
			FullText string `json:"full_text"`
		}
		if json.Unmarshal(line, &s) == nil && s.FullText != "" {
			texts = append(texts, s.FullText)
		}
	})
	for _, name := range []string{"v2/brexit.jsonl", "v2/kpop.jsonl", "v2/cashtags.jsonl", "v2/entities_test.jsonl"} {
		read(name, func(line []byte) {
			var page struct {
				Data []struct {
					Text string `json:"text"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &page) == nil {
				for _, d := range page.Data {
					texts = append(texts, d.Text)
				}
			}
		})
	}
	if len(texts) == 0 {
		t.Fatalf("no post texts found in %s", dir)
	}
	return texts
}

// FuzzIndexText checks that QueryTokens and IndexText agree on any text and
// that index tokens hold only token characters, so an engine tokenizer
// splitting at spaces and punctuation keeps them whole.
func FuzzIndexText(f *testing.F) {
	for _, s := range []string{"Café e-mail 東京タワー", "ｶﾞ ﬁ ① ὁδός", "https://t.co/x see:http://y", "\xff\u0301x", "a⺊b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		idx := IndexText(text)
		toks := QueryTokens(text)
		if !slices.Equal(toks, strings.Fields(idx)) {
			t.Fatalf("QueryTokens(%q) = %q, IndexText = %q", text, toks, idx)
		}
		for _, tok := range toks {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("bad token %q from %q", tok, text)
			}
			for _, r := range tok {
				if !isTokenRune(r) {
					t.Fatalf("token %q from %q holds %U", tok, text, r)
				}
			}
		}
	})
}

// unescape undoes the network's HTML escapes, as a person reading a post
// would before typing its words.
func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}

// FuzzEachToken checks eachToken, whose ASCII bytes take a short path,
// against refEachToken, the plain rune-by-rune definition: the same
// tokens with the same spans on any text.
func FuzzEachToken(f *testing.F) {
	for _, s := range []string{"Just setting up my twttr https://t.co/x #go @a $B", "Café CRÈME\u00a0x\u2028y 東京A1",
		"\xe2\x80\xa8a\xe2\x80 b\xff\xfeC", "\u0085x\tY\r\nz\v\f", "e-mail: a.b@c.d http:/x ftp://y"} {
		f.Add(s)
	}
	type tok struct {
		start, end int
		text       string
	}
	collect := func(each func(string, func(int, int, []byte)), text string) []tok {
		var out []tok
		each(text, func(s, e int, b []byte) { out = append(out, tok{s, e, string(b)}) })
		return out
	}
	f.Fuzz(func(t *testing.T, text string) {
		got, want := collect(eachToken, text), collect(refEachToken, text)
		if !slices.Equal(got, want) {
			t.Fatalf("eachToken(%q) = %v, want %v", text, got, want)
		}
	})
}

// refEachToken is eachToken without its short paths: runes decoded one by
// one, white space by unicode.IsSpace.
func refEachToken(text string, fn func(start, end int, tok []byte)) {
	var buf []byte
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += n
		}
		run := text[i:j]
		if u := urlStart(run); u >= 0 {
			run = run[:u]
		}
		start := -1
		flush := func(end int) {
			if start >= 0 && len(buf) > 0 {
				fn(i+start, i+end, buf)
			}
			start = -1
			buf = buf[:0]
		}
		for k, r := range run {
			switch {
			case isCJK(r):
				flush(k)
				start = k
				buf = appendFold(buf, r)
				flush(k + utf8.RuneLen(r))
			case isTokenRune(r):
				if start < 0 {
					start = k
				}
				buf = appendFold(buf, r)
			default:
				flush(k)
			}
		}
		flush(len(run))
		i = j
	}
}
