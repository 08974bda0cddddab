package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
)

func noLetters(rune) bool { return false }

// serverMismatches stores each token string of toks with its tsvectorOf
// (binary COPY, as writes send it) and returns those whose vector differs
// from what to_tsvector('simple', …) makes of them on the server.
func serverMismatches(t *testing.T, s *Store, toks []string, letter func(rune) bool) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `CREATE TEMPORARY TABLE tsv_check (toks text, v tsvector)`); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, `DROP TABLE tsv_check`)
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"tsv_check"}, []string{"toks", "v"},
		pgx.CopyFromSlice(len(toks), func(i int) ([]any, error) {
			v, ok := tsvectorOf(toks[i], letter)
			if !ok {
				return nil, fmt.Errorf("tsvectorOf(%q) refused", toks[i])
			}
			return []any{toks[i], v}, nil
		})); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT left(toks, 60) || ' → ' || left(v::text, 60) || ', server: ' ||
		left(to_tsvector('simple', toks)::text, 60)
		FROM tsv_check WHERE v::text IS DISTINCT FROM to_tsvector('simple', toks)::text LIMIT 20`)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// randomTokens is n token strings of 1 to 4 tokens, each of 1 to 12
// characters drawn from alphabet.
func randomTokens(rng *rand.Rand, n int, alphabet []rune) []string {
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for w := range 1 + rng.IntN(4) {
			if w > 0 {
				b.WriteByte(' ')
			}
			for range 1 + rng.IntN(12) {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
		}
		out[i] = b.String()
	}
	return out
}

// TestTSVectorOfMatchesServer checks that the vectors made in Go are those
// the server's to_tsvector('simple', …) makes of the same tokens: the edge
// cases of its limits (long words, many positions, late positions), numbers
// in scientific notation, and random tokens of ASCII letters and digits,
// alone and in runs.
func TestTSVectorOfMatchesServer(t *testing.T) {
	toks := []string{
		"", "a", "a a a", "b a c a b", "abc 1e5 12 x1y 00012 e5 5e 0x1f ab12cd 1e 123e4567 abc abc",
		"1e5x 1e5 x 1e5e5 38e06e9x 1ee5 1ex e1e5x 0e0 0e0e0e0 1e5 1e5x", "1e5x 1e5x 1e5y 1e5",
		strings.Repeat("x", tsMaxWordLen) + " y " + strings.Repeat("z", tsMaxWordLen+1) + " y",
		"1e5" + strings.Repeat("z", tsMaxWordLen+1) + " y 1e5" + strings.Repeat("z", tsMaxWordLen),
		strings.Repeat("w ", 300) + "v",                         // more than tsMaxPositions positions
		strings.TrimSpace(strings.Repeat("a b c ", tsMaxPos/2)), // positions past tsMaxPos
		strings.TrimSpace(strings.Repeat("q ", tsMaxPos+10)),
		strings.TrimSpace(strings.Repeat("q r ", tsMaxPos/2-2) + strings.Repeat("1e1x ", 10)),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	toks = append(toks, randomTokens(rng, 50_000, []rune("abcdefghijklmnopqrstuvwxyz0123456789eeeee0123456789"))...)
	if bad := serverMismatches(t, open(t, freshURL(t)), toks, noLetters); len(bad) > 0 {
		t.Errorf("token strings whose vector differs from to_tsvector on the server:\n%s", strings.Join(bad, "\n"))
	}
}

// TestTSVectorOfRefuses checks that tsvectorOf leaves to the server every
// token string with a character it does not know for a letter.
func TestTSVectorOfRefuses(t *testing.T) {
	for _, toks := range []string{"é", "a é", "abc 東", "x\u0301", "A", "a-b", "a\tb", "1e5é", "a\x00b", "\xff"} {
		if _, ok := tsvectorOf(toks, noLetters); ok {
			t.Errorf("tsvectorOf(%q) made a vector; want it left to the server", toks)
		}
	}
	if _, ok := tsvectorOf("abc 東", func(r rune) bool { return r == '東' }); !ok {
		t.Errorf("tsvectorOf refused a letter it was told of")
	}
}

// TestTSRunesMatchServer asks the server about every letter, digit and
// mark of Unicode (as search.IndexText folds them), then checks the
// vectors of random token strings of the accepted characters, ASCII letters
// and digits against to_tsvector on the server.
func TestTSRunesMatchServer(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	var all []string
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) {
			all = append(all, search.IndexText(string(r)))
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return s.runes.learn(ctx, tx, all) })
	if err != nil {
		t.Fatal(err)
	}
	var letters []rune
	for r, ok := range *s.runes.known.Load() {
		if ok {
			letters = append(letters, r)
		}
	}
	t.Logf("%d characters beyond ASCII are letters to the server, of %d asked", len(letters), len(*s.runes.known.Load()))
	// Cyrillic and Han are letters in every locale.
	for _, r := range []rune{'ж', '東'} {
		if !s.runes.letter(r) {
			t.Errorf("%q is no letter to the server", r)
		}
	}
	if len(letters) == 0 {
		t.Fatal("no letters")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := append([]rune("abcxyz0123456789eeee0123"), letters...)
	toks := randomTokens(rng, 30_000, alphabet)
	for _, r := range letters { // each letter in a few positions, after a number too
		c := string(r)
		toks = append(toks, c+" 1e5"+c+" 12"+c+c+" a"+c+"b "+c)
	}
	if bad := serverMismatches(t, s, toks, s.runes.letter); len(bad) > 0 {
		t.Errorf("token strings whose vector differs from to_tsvector on the server:\n%s", strings.Join(bad, "\n"))
	}
	for r, ok := range *s.runes.known.Load() {
		if toks := "a" + string(r); !ok {
			if _, made := tsvectorOf(toks, s.runes.letter); made {
				t.Errorf("tsvectorOf(%q) made a vector of a character the server reads otherwise", toks)
			}
		}
	}
}

// recorder keeps the posts written through it.
type recorder struct {
	w     social.Writer
	posts []social.Post
}

func (r *recorder) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	r.posts = append(r.posts, b.Posts...)
	return r.w.Write(ctx, b)
}

// TestStoredVectorsMatchServer writes a generated network (text in many
// scripts) and checks that every post's vectors are what to_tsvector on the
// server makes of its tokens.
func TestStoredVectorsMatchServer(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	rec := &recorder{w: s}
	if _, err := gen.Generate(ctx, rec, gen.Config{Seed: 5, Users: 100, Posts: 3000, BatchSize: 500}, nil); err != nil {
		t.Fatal(err)
	}
	byScript := 0
	for _, p := range rec.posts {
		if strings.ContainsFunc(p.Text, func(r rune) bool { return r >= utf8.RuneSelf && unicode.IsLetter(r) }) {
			byScript++
		}
	}
	if byScript == 0 {
		t.Fatal("no post with letters beyond ASCII: the test tests nothing")
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `CREATE TEMPORARY TABLE want (id bigint, toks text, url_toks text)`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"want"}, []string{"id", "toks", "url_toks"},
		pgx.CopyFromSlice(len(rec.posts), func(i int) ([]any, error) {
			p := &rec.posts[i]
			return []any{p.ID, tokens(p.Text), urlTokens(&p.Entities)}, nil
		})); err != nil {
		t.Fatal(err)
	}
	var n, bad int
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE p.tsv::text <> to_tsvector('simple', w.toks)::text
		OR p.url_tsv::text <> to_tsvector('simple', w.url_toks)::text) FROM posts p JOIN want w USING (id)`).Scan(&n, &bad); err != nil {
		t.Fatal(err)
	}
	if n != 3000 || bad != 0 {
		t.Errorf("%d posts, %d with vectors other than the server's", n, bad)
	}
}
