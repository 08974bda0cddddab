package postgres

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestPostRowSameAsValues checks that the row copied straight into posts
// is byte for byte the row of postValues encoded by column type.
func TestPostRowSameAsValues(t *testing.T) {
	views := int64(77)
	all := &tsRunes{}
	all.ascii.Store(1)
	for _, p := range []social.Post{
		{ID: 1, AuthorID: 2, CreatedAt: time.Unix(1700000000, 5000), Text: "hello world 1e5x", Lang: "en"},
		{ID: 3, AuthorID: 4, Text: "a &amp; b", Source: "<a>x</a>", Truncated: true, InReplyToID: 1, InReplyToUserID: 2,
			InReplyToScreenName: "bob", QuotedID: 9, RepostOfID: 8, ConversationID: 1, CommunityID: 5, QuoteCount: 1,
			ReplyCount: 2, RetweetCount: 3, FavoriteCount: 4, BookmarkCount: 6, Views: &views,
			Entities: social.Entities{URLs: []social.URL{{URL: "https://t.co/x", ExpandedURL: "https://Example.com/A_b"}},
				Hashtags: []social.Tag{{Text: "Go"}}}},
	} {
		vals, err := postValues(&p, p.Views, tokens(p.Text), urlTokens(&p.Entities), all)
		if err != nil {
			t.Fatal(err)
		}
		n := upsertPost.targets()
		if vals[n] != nil || vals[n+1] != nil {
			t.Fatalf("post %d: vectors left to the server", p.ID)
		}
		want, err := copyRows(upsertPost, n, [][]any{vals[:n]})
		if err != nil {
			t.Fatal(err)
		}
		ent, _ := json.Marshal(&p.Entities)
		var vb tsvBuilder
		tsv, _ := all.vector(&vb, tokens(p.Text))
		urlTSV, _ := all.vector(&vb, urlTokens(&p.Entities))
		got, err := appendPostRow([]byte(copyHeader), &p, p.Views, ent, tsv, urlTSV)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, 0xff, 0xff)
		if !bytes.Equal(got, want) {
			t.Errorf("post %d: appendPostRow\n%x\nwant\n%x", p.ID, got, want)
		}
	}
}

// TestCopyRowsRefusesWrongTypes checks that a value of the wrong Go type
// for its column is an error, not a panic or a wrong row.
func TestCopyRowsRefusesWrongTypes(t *testing.T) {
	for _, row := range [][]any{{"x", true}, {"x", "1"}, {int64(1), int64(2)}, {"x", 1.5}, {"x"}} {
		if _, err := copyRows(insertMention, 2, [][]any{row}); err == nil {
			t.Errorf("copyRows(%v) made a row", row)
		}
	}
	if _, err := appendValue(nil, "tsvector", "a b"); err == nil {
		t.Errorf("a string made a tsvector")
	}
	if _, err := appendValue(nil, "json", "{}"); err == nil {
		t.Errorf("a value of a type without encoding made a field")
	}
}

// TestSortWords checks the insertion sort of few words against a general
// sort.
func TestSortWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		words := make([]tsWord, rng.IntN(40))
		for i := range words {
			words[i] = tsWord{lex: string(rune('a' + rng.IntN(5))), pos: uint16(i + 1)}
		}
		want := slices.Clone(words)
		slices.SortFunc(want, func(a, b tsWord) int {
			if a.lex != b.lex {
				return strings.Compare(a.lex, b.lex)
			}
			return int(a.pos) - int(b.pos)
		})
		sortWords(words)
		if !slices.Equal(words, want) {
			t.Fatalf("sortWords: %v, want %v", words, want)
		}
	}
}

// TestVectorNeedsTheServer checks that no vector is made before the server
// was asked how it reads ASCII tokens.
func TestVectorNeedsTheServer(t *testing.T) {
	var r tsRunes
	if _, ok := r.vector(&tsvBuilder{}, "abc"); ok {
		t.Errorf("a vector made before asking the server")
	}
	r.ascii.Store(2)
	if _, ok := r.vector(&tsvBuilder{}, "abc"); ok {
		t.Errorf("a vector made though the server reads ASCII tokens otherwise")
	}
}

// TestWriteOrphanRowsFallBack stores a mention row of a post that is not
// stored (as a store of an older version could leave), then writes that
// post in a batch of new ones: the straight copy of mention rows meets the
// row, and the batch is written again as upserts, with exact stats.
func TestWriteOrphanRowsFallBack(t *testing.T) {
	ctx := context.Background()
	s, logs := openLogged(t, freshURL(t))
	ensurePartitions(t, s, 150)
	if _, err := s.pool.Exec(ctx, `INSERT INTO post_mentions (name, post_id) VALUES ('bob', 150)`); err != nil {
		t.Fatal(err)
	}
	st, err := s.Write(ctx, postsBatch(100, 100))
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsInserted != 100 || st.PostsUpdated != 0 {
		t.Errorf("stats %+v", st)
	}
	page, err := s.Mentions(ctx, "bob", social.PageReq{Limit: 200})
	if err != nil || len(page.Items) != 100 {
		t.Errorf("mentions: %v, %d posts", err, len(page.Items))
	}
	if !strings.Contains(logs.String(), "writing the batch again as upserts") {
		t.Errorf("the batch was not written again: %s", logs)
	}
}

// ensurePartitions creates, on a partitioned database, the partitions of
// the posts of ids, for rows a test inserts by SQL of its own.
func ensurePartitions(t *testing.T, s *Store, ids ...int64) {
	t.Helper()
	if s.parts == nil {
		return
	}
	if err := s.parts.ensureIDs(context.Background(), ids); err != nil {
		t.Fatal(err)
	}
}

// openLogged opens a store whose log, debug messages included, is kept.
func openLogged(t *testing.T, u string) (*Store, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	s, err := Open(context.Background(), u, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, &buf
}

// TestWriteRaceFallsBack lets another session insert a post of a batch
// after the batch's existence check: the straight copy waits for that
// session, fails on its row when it commits, and the batch is written
// again as upserts, counting that post as updated.
func TestWriteRaceFallsBack(t *testing.T) {
	ctx := context.Background()
	var tag [6]byte
	crand.Read(tag[:])
	app := "roost_race_" + hex.EncodeToString(tag[:])
	u, err := url.Parse(freshURL(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	s, logs := openLogged(t, u.String())
	ensurePartitions(t, s, 150)
	other, err := s.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback(ctx)
	if _, err := other.Exec(ctx, `INSERT INTO posts (id, author_id, created_at, text) VALUES (150, 1, 0, 'early')`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		st  social.WriteStats
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := s.Write(ctx, postsBatch(100, 100))
		done <- result{st, err}
	}()
	// Wait until the write waits for the other session's row.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var waiting int
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND wait_event_type = 'Lock' AND query LIKE 'COPY%'`, app).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the write never waited for the other session")
		}
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.st.PostsInserted != 99 || r.st.PostsUpdated != 1 {
		t.Errorf("stats %+v, want 99 inserted and 1 updated", r.st)
	}
	ps, err := s.Posts(ctx, []int64{150})
	if err != nil || len(ps) != 1 || ps[0].Text != "common w150 @bob #go" {
		t.Errorf("post 150: %v, %+v", err, ps)
	}
	if got := searchIDs(t, s, "w150"); !slices.Equal(got, []int64{150}) {
		t.Errorf("search for the raced post: %v", got)
	}
	if !strings.Contains(logs.String(), "writing the batch again as upserts") {
		t.Errorf("the batch was not written again: %s", logs)
	}
}

// TestBulkRelationsCopyFallBack loads follows twice in one bulk load: the
// first batch is copied straight in, the second meets its rows and is
// upserted (and so is every later batch of follows); the rows end as plain
// writes leave them.
func TestBulkRelationsCopyFallBack(t *testing.T) {
	ctx := context.Background()
	follows := func(n int, at time.Time) *social.Batch {
		b := &social.Batch{}
		for i := range n {
			b.Follows = append(b.Follows, social.Follow{FollowerID: int64(1 + i%10), FolloweeID: int64(100 + i), CreatedAt: at})
		}
		return b
	}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	batches := []*social.Batch{follows(100, t0), follows(150, t0.Add(time.Hour)), follows(200, t0.Add(2*time.Hour))}
	plain, bulk := open(t, freshURL(t)), open(t, freshURL(t))
	for _, b := range batches {
		if _, err := plain.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	var bw *bulkWriter
	err := bulk.Bulk(ctx, 1000, func(w social.Writer) error {
		bw = w.(*bulkWriter)
		for _, b := range batches {
			if _, err := w.Write(ctx, b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bw.first.try("follows") {
		t.Errorf("follows still copied straight in after a copy met existing rows")
	}
	if a, b := digest(t, plain, "follows", "follower_id, followee_id"), digest(t, bulk, "follows", "follower_id, followee_id"); a != b {
		t.Errorf("follows differ between Write and Bulk")
	}
	var n int
	if err := bulk.pool.QueryRow(ctx, `SELECT count(*) FROM follows WHERE created_at = $1`,
		sqlstore.Micros(t0.Add(2*time.Hour))).Scan(&n); err != nil || n != 200 {
		t.Errorf("%d follows of the last batch's time (%v), want 200", n, err)
	}
}

// TestStoredVectorsOfRefusedCharacters writes new posts holding characters
// the server does not read as letters (a Bengali currency sign, a lone
// combining mark) among others: those posts' vectors are the server's.
func TestStoredVectorsOfRefusedCharacters(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	b := postsBatch(1, 80)
	odd := []string{"৴ sign", "x\u0483 mark \u0483", "жук 東京", "1e5ж", "plain words"}
	for i := range b.Posts {
		b.Posts[i].Text = odd[i%len(odd)] + " " + b.Posts[i].Text
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	var bad int
	for _, p := range b.Posts {
		var same bool
		if err := s.pool.QueryRow(ctx, `SELECT tsv::text = to_tsvector('simple', $2::text)::text FROM posts WHERE id = $1`,
			p.ID, tokens(p.Text)).Scan(&same); err != nil {
			t.Fatal(err)
		}
		if !same {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%d posts with vectors other than the server's", bad)
	}
	if got := searchIDs(t, s, "жук"); len(got) != 16 {
		t.Errorf("search жук: %d posts, want 16", len(got))
	}
}
