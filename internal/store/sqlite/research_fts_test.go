package sqlite

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestFTSFaithfulRanges: every character ftsFaithful accepts in IndexText
// output is one IndexText keeps as it is, and one that FTS5's unicode61
// tokenizer, as posts_fts configures it, keeps as it is too, one token
// with its neighbours; ftsFaithful refuses what unicode61 splits (an Indic
// vowel sign).
func TestFTSFaithfulRanges(t *testing.T) {
	db, err := openDB("file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5 (x, tokenize = 'unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// kept is IndexText of r between two letters, when r comes out as it
	// is (within their token, or a token of its own for CJK).
	kept := func(r rune) (string, bool) {
		out := search.IndexText("a" + string(r) + "b")
		return out, out == "a"+string(r)+"b" || out == "a "+string(r)+" b"
	}
	want := map[int64]string{}
	add := func(r rune) {
		text, _ := kept(r)
		want[int64(r)] = text
		if _, err := tx.Exec(`INSERT INTO t (rowid, x) VALUES (?, ?)`, int64(r), text); err != nil {
			t.Fatal(err)
		}
	}
	for r := rune('0'); r <= 'z'; r++ {
		if ftsFaithfulRune(r) {
			add(r)
		}
	}
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		// Whatever IndexText makes of any character, the characters of
		// its output that ftsFaithful accepts are ones it keeps as they
		// are: those checked against unicode61 below.
		for _, c := range search.IndexText("a" + string(r) + "b") {
			if _, ok := kept(c); c >= 0x80 && ftsFaithfulRune(c) && !ok {
				t.Fatalf("IndexText makes %U of %U, which it does not keep", c, r)
			}
		}
	}
	for _, x := range ftsFaithfulRanges {
		for r := x[0]; r <= x[1]; r++ {
			if _, ok := kept(r); (unicode.IsLetter(r) || unicode.IsNumber(r)) && ok {
				add(r)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got := map[int64][]string{}
	rows, err := db.Query(`SELECT doc, term FROM v ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var doc int64
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		got[doc] = append(got[doc], term)
	}
	if len(want) < 20000 {
		t.Fatalf("only %d characters checked", len(want))
	}
	bad := 0
	for r, text := range want {
		if g := got[r]; strings.Join(g, " ") != text {
			if bad++; bad < 10 {
				t.Errorf("%U: unicode61 makes %q of %q", rune(r), g, text)
			}
		}
	}
	if ftsFaithful(search.IndexText("abc\u093edef")) || !ftsFaithful(search.IndexText("Ünïcode 東京 москва café 😀 #tag")) {
		t.Error("ftsFaithful misjudges a vowel sign or plain scripts")
	}
}

// TestTrustFTS: the research readers trust the full-text index for a word
// only in posts unicode61 tokenizes as IndexText does: a post where a
// vowel sign splits "abc" from "def" for FTS5 matches neither word, on a
// fresh write and after migration 0015 marks a post written before it.
func TestTrustFTS(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	at := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "w"}}}
	for i, text := range []string{"abc\u093edef here", "abc plain", "zz abc\u093edef", "def"} {
		b.Posts = append(b.Posts, social.Post{ID: int64(1 << 30 * (i + 1)), AuthorID: 1, CreatedAt: at.Add(time.Duration(i) * time.Hour),
			Text: text, Lang: "en"})
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	count := func(text string) int64 {
		q, err := search.Parse(text, at)
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.researchMatch(ctx, q, false)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.From, "posts_fts") || !strings.Contains(m.Where, "flags & 1099511627776") {
			t.Fatalf("%q is not read through a trusted full-text driver: %s WHERE %s", text, m.From, m.Where)
		}
		bs, err := s.SearchCounts(ctx, q, social.Day)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, x := range bs {
			n += x.Count
		}
		return n
	}
	check := func(when string) {
		for text, want := range map[string]int64{"abc": 1, "def": 1, `"abc plain"`: 1, "abc OR def": 2, "here": 1} {
			if got := count(text); got != want {
				t.Errorf("%s: %q counts %d, want %d", when, text, got, want)
			}
		}
	}
	check("written")
	if _, err := s.write.ExecContext(ctx, `UPDATE posts SET flags = flags & ~?`, flagFTSInexact); err != nil {
		t.Fatal(err)
	}
	if got := count("abc"); got != 3 {
		t.Fatalf("without the flag, %q counts %d: the test no longer tells", "abc", got)
	}
	migration, err := migrationFiles.ReadFile("migrations/0015_fts_inexact.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.ExecContext(ctx, string(migration)); err != nil {
		t.Fatal(err)
	}
	check("migrated")
}
