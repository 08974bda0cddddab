package postgres

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// PostgreSQL's limits on a tsvector (tsearch/ts_type.h), which to_tsvector
// applies and tsvectorOf applies the same way.
const (
	tsMaxWordLen   = 1<<11 - 1 // MAXSTRLEN: a longer word is left out
	tsMaxPos       = 1<<14 - 1 // MAXENTRYPOS-1: later positions are this one
	tsMaxPositions = 1<<8 - 1  // MAXNUMPOS-1: positions kept per lexeme
)

// Posts' full-text vectors are made in Go and sent with the rows: the
// server's to_tsvector was the largest single cost of storing a post, and
// a row that needs no server-side expression can be copied straight into
// its table. The vectors must be exactly those to_tsvector('simple', …)
// makes of the same tokens (search.IndexText's, see tokens), since queries
// are still compiled by phraseto_tsquery on the server and rows stored
// before are to_tsvector's. The server's parser does not merely split at
// spaces: it classifies each character by the database's locale (a mark
// cannot start a word, a letter a newer Unicode knows may be no letter to
// it, …) and reads "1e5x" as the number "1e5" and the word "x". So:
//
//   - ASCII letters and digits are letters and digits in every locale; the
//     number rule and the limits are applied in Go (see sciPrefix and
//     tsvectorOf), once the server has shown, once per Store, that its
//     'simple' configuration reads ASCII tokens so (see asciiProbe);
//   - any other character is asked of the server once per Store (see
//     tsRunes): it counts as a letter only when the server's parser reads
//     it as one in every position of a word and lower-casing keeps it;
//   - a token string with any other character is left to the server's
//     to_tsvector (tsvectorOf reports !ok).

// tsRunes is what a Store learnt of the server's text-search parser: how
// its 'simple' configuration reads tokens of ASCII letters and digits
// (asked once: as tsvectorOf does, unless someone changed that
// configuration), and which characters beyond ASCII are letters to it
// (true: it reads them as letters in every position and lower-casing keeps
// them; see probe). The map is replaced, never changed, so reads need no
// lock.
type tsRunes struct {
	mu    sync.Mutex   // serialises learning
	ascii atomic.Int32 // 0: not asked yet, 1: as tsvectorOf reads them, 2: otherwise
	known atomic.Pointer[map[rune]bool]
}

// asciiProbe is the token string that tells whether the 'simple'
// configuration reads ASCII tokens as tsvectorOf does: common words (no
// stop words), digits, numbers in scientific notation, a repeat, and a
// word too long to index.
var asciiProbe = "the a and of 0 9 z 1e5x x1e5 12ab 1e5 abc abc " + strings.Repeat("w", tsMaxWordLen+1) + " y"

// vector is tsvectorOf with what t knows: ok is false also when the server
// was not asked yet, or reads ASCII tokens otherwise.
func (t *tsRunes) vector(b *tsvBuilder, toks string) (pgtype.TSVector, bool) {
	if t.ascii.Load() != 1 {
		return pgtype.TSVector{}, false
	}
	return b.vector(toks, t.letter)
}

// letter reports whether r is known to be a letter to the server (see
// tsRunes); unknown characters are not.
func (t *tsRunes) letter(r rune) bool {
	m := t.known.Load()
	return m != nil && (*m)[r]
}

// learn asks the server, in one query, about ASCII tokens if it was not
// asked yet, and about every character beyond ASCII in toks that it was
// not asked about.
func (t *tsRunes) learn(ctx context.Context, tx pgx.Tx, toks []string) error {
	known := map[rune]bool{}
	if m := t.known.Load(); m != nil {
		known = *m
	}
	var ask []rune
	seen := map[rune]bool{}
	for _, s := range toks {
		for i := 0; i < len(s); i++ {
			if s[i] < utf8.RuneSelf {
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n - 1
			if _, ok := known[r]; !ok && !seen[r] {
				seen[r] = true
				ask = append(ask, r)
			}
		}
	}
	if len(ask) == 0 && t.ascii.Load() != 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	texts := make([]string, 1, len(ask)+1)
	texts[0] = asciiProbe
	for _, r := range ask {
		texts = append(texts, probe(r))
	}
	got, err := serverVectors(ctx, tx, texts)
	if err != nil {
		return err
	}
	all := func(rune) bool { return true }
	if t.ascii.Load() == 0 {
		want, _ := tsvectorOf(asciiProbe, all)
		if sameVector(got[0], want) {
			t.ascii.Store(1)
		} else {
			t.ascii.Store(2)
		}
	}
	next := map[rune]bool{}
	if m := t.known.Load(); m != nil {
		next = maps.Clone(*m)
	}
	for i, r := range ask {
		want, _ := tsvectorOf(texts[i+1], all)
		next[r] = sameVector(got[i+1], want)
	}
	t.known.Store(&next)
	return nil
}

// probe is the text that tells whether the server's parser reads r as a
// letter that lower-casing keeps: r alone, inside a word, after a digit,
// after a number in scientific notation, and repeated. Only for such a
// letter is to_tsvector's vector of it the one tsvectorOf makes when it
// takes r for a letter.
func probe(r rune) string {
	c := string(r)
	return c + " x" + c + "x 1" + c + " 1e1" + c + " " + c + c
}

// serverVectors is to_tsvector('simple', …) of each text, on the server.
func serverVectors(ctx context.Context, tx pgx.Tx, texts []string) ([]pgtype.TSVector, error) {
	rows, err := tx.Query(ctx, `SELECT to_tsvector('simple', p) FROM unnest($1::text[]) WITH ORDINALITY AS u(p, i) ORDER BY i`, texts)
	if err != nil {
		return nil, fmt.Errorf("text search parser: %w", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[pgtype.TSVector])
	if err != nil {
		return nil, fmt.Errorf("text search parser: %w", err)
	}
	if len(got) != len(texts) {
		return nil, fmt.Errorf("text search parser: %d answers to %d texts", len(got), len(texts))
	}
	return got, nil
}

// sameVector reports whether two vectors hold the same lexemes at the same
// positions.
func sameVector(a, b pgtype.TSVector) bool {
	return a.Valid == b.Valid && slices.EqualFunc(a.Lexemes, b.Lexemes, func(x, y pgtype.TSVectorLexeme) bool {
		return x.Word == y.Word && slices.EqualFunc(x.Positions, y.Positions, func(p, q pgtype.TSVectorPosition) bool {
			return p.Position == q.Position // weights are all D (0)
		})
	})
}

// tsvBuilder makes vectors (see tsvectorOf); it reuses its scratch space
// and hands out the positions and lexemes of many vectors from shared
// arrays.
type tsvBuilder struct {
	words     []tsWord
	positions []pgtype.TSVectorPosition
	lexemes   []pgtype.TSVectorLexeme
}

type tsWord struct {
	lex string
	pos uint16
}

// tsvectorOf is the tsvector of a token string (tokens separated by single
// spaces, as search.IndexText makes them), made in Go exactly as
// to_tsvector('simple', toks) makes it on the server; ok is false when
// toks holds a character beyond ASCII that letter does not accept, which
// only the server can read.
//
// Every token is a word, except that a leading number in scientific
// notation is a word of its own (see sciPrefix). Each word takes the next
// position, counting from 1; a word longer than tsMaxWordLen bytes is left
// out without taking a position; positions past tsMaxPos are clamped to
// it; each lexeme keeps its first tsMaxPositions distinct positions, and
// none after a clamped one; lexemes are sorted bytewise.
func tsvectorOf(toks string, letter func(rune) bool) (v pgtype.TSVector, ok bool) {
	var b tsvBuilder
	return b.vector(toks, letter)
}

// reset forgets the vectors made so far, to reuse their space.
func (b *tsvBuilder) reset() {
	b.positions, b.lexemes = b.positions[:0], b.lexemes[:0]
}

// vector is tsvectorOf.
func (b *tsvBuilder) vector(toks string, letter func(rune) bool) (v pgtype.TSVector, ok bool) {
	words := b.words[:0]
	pos := 0
	add := func(w string) {
		if len(w) > tsMaxWordLen {
			return
		}
		pos++
		words = append(words, tsWord{w, uint16(min(pos, tsMaxPos))})
	}
	start := 0
	for i := 0; i <= len(toks); i++ {
		if i == len(toks) || toks[i] == ' ' {
			if t := toks[start:i]; t != "" {
				if n := sciPrefix(t); n > 0 && n < len(t) {
					add(t[:n])
					t = t[n:]
				}
				add(t)
			}
			start = i + 1
			continue
		}
		if c := toks[i]; c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(toks[i:])
			if !letter(r) {
				return pgtype.TSVector{}, false
			}
			i += n - 1
		} else if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return pgtype.TSVector{}, false
		}
	}
	b.words = words
	sortWords(words)
	// The positions of a lexeme are a window of b.positions, the lexemes of
	// the vector one of b.lexemes; both grow by fresh arrays, never by
	// moving what earlier vectors hold.
	if cap(b.positions)-len(b.positions) < len(words) {
		b.positions = make([]pgtype.TSVectorPosition, 0, max(4096, len(words)))
	}
	if cap(b.lexemes)-len(b.lexemes) < len(words) {
		b.lexemes = make([]pgtype.TSVectorLexeme, 0, max(1024, len(words)))
	}
	lex0, start := len(b.lexemes), 0
	for i, w := range words {
		if i == 0 || w.lex != words[i-1].lex {
			start = len(b.positions)
			b.positions = append(b.positions, pgtype.TSVectorPosition{Position: w.pos})
			b.lexemes = append(b.lexemes, pgtype.TSVectorLexeme{Word: w.lex,
				Positions: b.positions[start:len(b.positions):len(b.positions)]})
			continue
		}
		last := b.positions[len(b.positions)-1].Position
		if len(b.positions)-start < tsMaxPositions && last != tsMaxPos && last != w.pos {
			b.positions = append(b.positions, pgtype.TSVectorPosition{Position: w.pos})
			b.lexemes[len(b.lexemes)-1].Positions = b.positions[start:len(b.positions):len(b.positions)]
		}
	}
	lexemes := b.lexemes[lex0:len(b.lexemes):len(b.lexemes)]
	return pgtype.TSVector{Lexemes: lexemes, Valid: true}, true
}

// sortWords sorts words by lexeme (bytewise), then position: by insertion
// for the few words of most posts, which beats a general sort there.
func sortWords(words []tsWord) {
	if len(words) > 32 {
		slices.SortFunc(words, func(a, b tsWord) int {
			if c := strings.Compare(a.lex, b.lex); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
		return
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		j := i
		// Positions grow with i, so among equal lexemes w goes last.
		for ; j > 0 && w.lex < words[j-1].lex; j-- {
			words[j] = words[j-1]
		}
		words[j] = w
	}
}

// sciPrefix is the length of the number in scientific notation that the
// token t starts with (digits, 'e', digits, as many as there are), or 0
// if it starts with none: the server's parser reads such a number as a
// word of its own ("1e5x" is "1e5" and "x").
func sciPrefix(t string) int {
	digits := func(i int) int {
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		return i
	}
	i := digits(0)
	if i == 0 || i >= len(t) || t[i] != 'e' {
		return 0
	}
	j := digits(i + 1)
	if j == i+1 {
		return 0
	}
	return j
}
