package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// schemaOf lists name and DDL of the indexes of posts.
func schemaOf(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.write.QueryContext(context.Background(),
		`SELECT name || ': ' || sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'posts' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func countRows(t *testing.T, s *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.write.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// postsBatch makes n posts with ids from first, each mentioning @bob and
// tagged #go, with the word "common" and a word of its own.
func postsBatch(first int64, n int) *social.Batch {
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice"}, {ID: 2, ScreenName: "bob"}}}
	for i := range n {
		id := first + int64(i)
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1, CreatedAt: t0.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("common w%d @bob #go", id), Entities: social.Entities{
				Mentions: []social.Mention{{UserID: 2, ScreenName: "bob", Start: 13, End: 17}},
				Hashtags: []social.Tag{{Text: "go", Start: 18, End: 21}}}})
	}
	return b
}

func TestBulkDropsAndRestoresIndexes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	want := schemaOf(t, s)
	if len(want) < 5 {
		t.Fatalf("posts has %d indexes: %v", len(want), want)
	}
	if _, err := s.Write(ctx, postsBatch(100, 10)); err != nil {
		t.Fatal(err)
	}
	var total social.WriteStats
	err := s.Bulk(ctx, 1000, func(w social.Writer) error {
		if got := schemaOf(t, s); len(got) != 0 {
			t.Errorf("indexes during a large load: %v", got)
		}
		if n := countRows(t, s, `SELECT count(*) FROM bulk_restore`); n < len(want) {
			t.Errorf("bulk_restore holds %d rows, want at least %d", n, len(want))
		}
		for _, table := range []string{"posts_fts", "post_urls"} {
			if v := countRows(t, s, `SELECT v FROM `+table+`_config WHERE k = 'pgsz'`); v != ftsPgszDefault {
				t.Errorf("%s pgsz = %d during the load, want FTS5's %d", table, v, ftsPgszDefault)
			}
		}
		for i := range 5 {
			st, err := w.Write(ctx, postsBatch(int64(105+100*i), 100))
			if err != nil {
				return err
			}
			total.Add(st)
		}
		// Readers keep working without the indexes.
		page, err := s.UserPosts(ctx, 1, false, social.PageReq{Limit: 3})
		if err != nil || len(page.Items) != 3 || page.Items[0].ID != 604 {
			t.Errorf("UserPosts during the load: %v, %+v", err, page.Items)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := schemaOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after the load:\n%v\nwant\n%v", got, want)
	}
	if n := countRows(t, s, `SELECT count(*) FROM bulk_restore`); n != 0 {
		t.Errorf("bulk_restore holds %d rows after the load", n)
	}
	for _, table := range []string{"posts_fts", "post_urls"} {
		if v := countRows(t, s, `SELECT v FROM `+table+`_config WHERE k = 'automerge'`); v != ftsAutomergeDefault {
			t.Errorf("%s automerge = %d after the load", table, v)
		}
		if v := countRows(t, s, `SELECT v FROM `+table+`_config WHERE k = 'crisismerge'`); v != ftsCrisismerge {
			t.Errorf("%s crisismerge = %d after the load, want migration 0034's %d", table, v, ftsCrisismerge)
		}
		if v := countRows(t, s, `SELECT v FROM `+table+`_config WHERE k = 'pgsz'`); v != ftsPgsz {
			t.Errorf("%s pgsz = %d after the load, want migration 0038's %d", table, v, ftsPgsz)
		}
	}
	// Exact stats: 5 posts (105..109) existed, 495 are new.
	if total.PostsInserted != 495 || total.PostsUpdated != 5 || total.UsersUpdated != 10 {
		t.Errorf("stats %+v", total)
	}
	if n := countRows(t, s, `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'common'`); n != 505 {
		t.Errorf("full-text finds %d posts, want 505", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'w107'`); n != 1 {
		t.Errorf("full-text finds %d copies of an updated post, want 1", n)
	}
	page, err := s.Mentions(ctx, "BOB", social.PageReq{Limit: 600})
	if err != nil || len(page.Items) != 505 {
		t.Errorf("mentions: %v, %d posts", err, len(page.Items))
	}
	if n := countRows(t, s, `PRAGMA synchronous`); n != 2 {
		t.Errorf("synchronous = %d after the load, want 2 (FULL)", n)
	}
}

func TestBulkSmallLoadKeepsIndexes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	want := schemaOf(t, s)
	if _, err := s.Write(ctx, postsBatch(1, 100)); err != nil {
		t.Fatal(err)
	}
	err := s.Bulk(ctx, 10, func(w social.Writer) error {
		if got := schemaOf(t, s); !slices.Equal(got, want) {
			t.Errorf("a small load dropped indexes: %v", got)
		}
		if n := countRows(t, s, `SELECT count(*) FROM posts_fts_config WHERE k = 'automerge'`); n != 0 {
			t.Errorf("a small load changed full-text merging")
		}
		if v := countRows(t, s, `SELECT v FROM posts_fts_config WHERE k = 'crisismerge'`); v != ftsCrisismerge {
			t.Errorf("a small load set crisismerge to %d", v)
		}
		_, err := w.Write(ctx, postsBatch(1000, 10))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM bulk_restore`); n != 0 {
		t.Errorf("bulk_restore holds %d rows after the load", n)
	}
}

func TestBulkFailedLoadRestores(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	want := schemaOf(t, s)
	boom := errors.New("boom")
	err := s.Bulk(ctx, 1000, func(w social.Writer) error {
		if _, err := w.Write(ctx, postsBatch(1, 50)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Bulk = %v, want the load's error", err)
	}
	if got := schemaOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after a failed load: %v", got)
	}
	if n := countRows(t, s, `SELECT count(*) FROM posts`); n != 50 {
		t.Errorf("%d posts kept, want the 50 committed", n)
	}
}

// TestBulkCrashRecovery leaves a load unfinished, as a killed process
// does: the next Open rebuilds what it dropped.
func TestBulkCrashRecovery(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "roost.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := schemaOf(t, s)
	if err := s.bulkBegin(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := (bulkWriter{s: s}).Write(ctx, postsBatch(1, 20)); err != nil {
		t.Fatal(err)
	}
	if got := schemaOf(t, s); len(got) != 0 {
		t.Fatalf("indexes during the load: %v", got)
	}
	s.Close() // no bulkRestore: the process died
	s, err = Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := schemaOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after reopening:\n%v\nwant\n%v", got, want)
	}
	if n := countRows(t, s, `SELECT count(*) FROM bulk_restore`); n != 0 {
		t.Errorf("bulk_restore holds %d rows after reopening", n)
	}
	if n := countRows(t, s, `SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'common'`); n != 20 {
		t.Errorf("full-text finds %d posts, want 20", n)
	}
}

// TestWriteRepeatsInOneBatch writes the same posts twice in one batch,
// changed: the indexes hold the second copy only, and stats count one
// insert and one update, as two Writes would.
func TestWriteRepeatsInOneBatch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.Write(ctx, postsBatch(1, 1)); err != nil {
		t.Fatal(err)
	}
	b := postsBatch(1, 2) // post 1 stored, post 2 new
	second := postsBatch(1, 2).Posts
	for i := range second {
		second[i].Text = fmt.Sprintf("changed z%d @carol", second[i].ID)
		second[i].Entities = social.Entities{Mentions: []social.Mention{{ScreenName: "carol", Start: 11, End: 17}}}
	}
	b.Posts = append(b.Posts, second...)
	st, err := s.Write(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if st.PostsInserted != 1 || st.PostsUpdated != 3 {
		t.Errorf("stats %+v, want 1 inserted and 3 updated", st)
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'common'`:  0,
		`SELECT count(*) FROM posts_fts WHERE posts_fts MATCH 'changed'`: 2,
		`SELECT count(*) FROM post_mentions WHERE name = 'bob'`:          0,
		`SELECT count(*) FROM post_mentions WHERE name = 'carol'`:        2,
		`SELECT count(*) FROM post_tags`:                                 0,
	} {
		if n := countRows(t, s, q); n != want {
			t.Errorf("%s = %d, want %d", q, n, want)
		}
	}
}

// TestWriteFewFullTextSegments guards the cost of full-text writes: one
// Write of many posts makes one new segment, not one per post.
func TestWriteFewFullTextSegments(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.Write(ctx, postsBatch(1, 500)); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(DISTINCT segid) FROM posts_fts_idx`); n > 2 {
		t.Errorf("one write of 500 posts left %d full-text segments", n)
	}
	// Newest first, as a Latest page or an archive comes: still one
	// segment (FTS5 cuts one at every falling rowid).
	b := postsBatch(1000, 500)
	slices.Reverse(b.Posts)
	before := countRows(t, s, `SELECT count(DISTINCT segid) FROM posts_fts_idx`)
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(DISTINCT segid) FROM posts_fts_idx`); n > before+1 {
		t.Errorf("one write of 500 posts, newest first, left %d full-text segments more", n-before)
	}
}

// TestWriteUsersInOneBatch mixes profiles and stubs of the same users in
// one batch: the result is what writing them one by one gives.
func TestWriteUsersInOneBatch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if _, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 8, Stub: true}, {ID: 9, ScreenName: "kept", Name: "Kept"}}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Write(ctx, &social.Batch{Users: []social.User{
		{ID: 5, ScreenName: "five", Name: "Five"}, {ID: 5, Stub: true, ScreenName: "stub5"},
		{ID: 6, Stub: true}, {ID: 6, Stub: true, ScreenName: "six"}, {ID: 6, Stub: true, ScreenName: "later"},
		{ID: 7, ScreenName: "seven1"}, {ID: 7, Stub: true, ScreenName: "stub7"}, {ID: 7, ScreenName: "seven2"},
		{ID: 8, Stub: true, ScreenName: "eight"}, {ID: 9, Stub: true, ScreenName: "nine"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if st.UsersInserted != 3 || st.UsersUpdated != 1 {
		t.Errorf("stats %+v, want 3 inserted (5, 6, 7) and 1 updated (7 again)", st)
	}
	for id, want := range map[int64]string{5: "five", 6: "six", 7: "seven2", 8: "eight", 9: "kept"} {
		u, err := s.User(ctx, id)
		if err != nil || u.ScreenName != want {
			t.Errorf("user %d = %q, %v; want %q", id, u.ScreenName, err, want)
		}
	}
}

// TestWriteRelationRepeats writes a pair twice in one batch: the later
// time wins, as with two writes.
func TestWriteRelationRepeats(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	b := &social.Batch{Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: t0},
		{FollowerID: 1, FolloweeID: 3, CreatedAt: t0}, {FollowerID: 1, FolloweeID: 2, CreatedAt: t0.Add(time.Hour)}}}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, `SELECT count(*) FROM follows`); n != 2 {
		t.Errorf("%d follows, want 2", n)
	}
	if got := countRows(t, s, `SELECT created_at FROM follows WHERE followee_id = 2`); int64(got) != t0.Add(time.Hour).UnixMicro() {
		t.Errorf("created_at = %d, want the later time", got)
	}
}
