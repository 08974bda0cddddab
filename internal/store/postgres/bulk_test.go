package postgres

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/gen"
)

// writeOnly hides Store.Bulk from gen.Generate.
type writeOnly struct{ s *Store }

func (w writeOnly) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return w.s.Write(ctx, b)
}

// indexesOf lists name and definition of every index of the bulk tables,
// without the schema name.
func indexesOf(t *testing.T, s *Store) []string {
	t.Helper()
	// An index of a partitioned table built ON ONLY it is invalid until
	// every partition has its own: INVALID says so.
	rows, err := s.pool.Query(context.Background(), `SELECT x.indexname || ': ' ||
			replace(x.indexdef, x.schemaname || '.', '') || CASE WHEN i.indisvalid THEN '' ELSE ' INVALID' END
		FROM pg_indexes x JOIN pg_index i ON i.indexrelid = (quote_ident(x.schemaname) || '.' || quote_ident(x.indexname))::regclass
		WHERE x.schemaname = current_schema() AND x.tablename = ANY($1) ORDER BY x.indexname`, bulkTables)
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

func pending(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM bulk_restore`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// digest is an md5 of every row of table, in key order.
func digest(t *testing.T, s *Store, table, order string) string {
	t.Helper()
	var d string
	if err := s.pool.QueryRow(context.Background(), fmt.Sprintf(
		`SELECT coalesce(md5(string_agg(r::text, E'\n' ORDER BY %s)), '') FROM %s r`, order, table)).Scan(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

func searchIDs(t *testing.T, s *Store, query string) []int64 {
	t.Helper()
	q, err := search.Parse(query, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	page, err := s.Search(context.Background(), q, social.Latest, social.PageReq{Limit: 50})
	if err != nil {
		t.Fatalf("search %q: %v", query, err)
	}
	var ids []int64
	for _, p := range page.Items {
		ids = append(ids, p.ID)
	}
	return ids
}

// TestBulkSameAsWrite fills one store through Bulk (what gen does) and one
// through plain writes: every table holds the same rows, the indexes are
// the same, and searches and timelines answer alike.
func TestBulkSameAsWrite(t *testing.T) {
	ctx := context.Background()
	cfg := gen.Config{Seed: 7, Users: 120, Posts: 2500, BatchSize: 700}
	plain, bulk := open(t, freshURL(t)), open(t, freshURL(t))
	want := indexesOf(t, plain)
	sumPlain, err := gen.Generate(ctx, writeOnly{plain}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	sumBulk, err := gen.Generate(ctx, bulk, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sumPlain) != fmt.Sprint(sumBulk) {
		t.Errorf("summaries differ:\n%+v\n%+v", sumPlain, sumBulk)
	}
	if got := indexesOf(t, bulk); !slices.Equal(got, want) {
		t.Errorf("indexes after Bulk:\n%v\nwant\n%v", got, want)
	}
	if n := pending(t, bulk); n != 0 {
		t.Errorf("bulk_restore holds %d rows after the load", n)
	}
	cp, _ := plain.Counts(ctx)
	cb, _ := bulk.Counts(ctx)
	if !maps.Equal(cp, cb) {
		t.Errorf("counts differ: write %v, bulk %v", cp, cb)
	}
	for table, order := range map[string]string{"posts": "id", "users": "id", "post_mentions": "name, post_id",
		"post_tags": "tag, post_id", "follows": "follower_id, followee_id", "reposts": "post_id, user_id",
		"list_members": "list_id, user_id", "community_members": "community_id, user_id",
		"likes": "post_id, user_id", "spaces": "id", "space_participants": "space_id, role, position"} {
		if a, b := digest(t, plain, table, order), digest(t, bulk, table, order); a != b {
			t.Errorf("%s differs between Write and Bulk", table)
		}
	}
	var author int64
	if err := bulk.pool.QueryRow(ctx, `SELECT author_id FROM posts ORDER BY id LIMIT 1`).Scan(&author); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"the", "from:" + fmt.Sprint(author), "#golang OR #rust", "filter:links", "min_faves:5"} {
		if a, b := searchIDs(t, plain, q), searchIDs(t, bulk, q); !slices.Equal(a, b) {
			t.Errorf("search %q: write %v, bulk %v", q, a, b)
		}
	}
	pa, err := plain.UserPosts(ctx, author, true, social.PageReq{Limit: 30})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := bulk.UserPosts(ctx, author, true, social.PageReq{Limit: 30})
	if err != nil || len(pa.Items) != len(pb.Items) {
		t.Fatalf("user posts: %v, %d and %d posts", err, len(pa.Items), len(pb.Items))
	}
}

// postsBatch makes n posts with ids from first, each mentioning @bob and
// tagged #go, with the word "common" and a word of its own.
func postsBatch(first int64, n int) *social.Batch {
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice"}, {ID: 2, ScreenName: "bob"}}}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		id := first + int64(i)
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1, CreatedAt: t0.Add(time.Duration(id) * time.Second),
			Text: fmt.Sprintf("common w%d @bob #go", id), Entities: social.Entities{
				Mentions: []social.Mention{{UserID: 2, ScreenName: "bob", Start: 13, End: 17}},
				Hashtags: []social.Tag{{Text: "go", Start: 18, End: 21}}}})
	}
	return b
}

func TestBulkDuringLoad(t *testing.T) {
	ctx := context.Background()
	u := freshURL(t)
	s := open(t, u)
	want := indexesOf(t, s)
	if _, err := s.Write(ctx, postsBatch(100, 10)); err != nil {
		t.Fatal(err)
	}
	var total social.WriteStats
	err := s.Bulk(ctx, 1000, func(w social.Writer) error {
		during := indexesOf(t, s)
		if len(during) >= len(want) {
			t.Errorf("no index dropped during a large load: %v", during)
		}
		// The indexes a load fills row by row are there, and the primary
		// keys; the others not.
		for _, def := range want {
			name, _, _ := strings.Cut(def, ":")
			keep := bulkKeep[name] || strings.HasSuffix(name, "_pkey")
			if kept := slices.Contains(during, def); kept != keep {
				t.Errorf("index %s kept during the load: %v, want %v", name, kept, keep)
			}
		}
		for name := range bulkKeep {
			if !slices.ContainsFunc(want, func(def string) bool { return strings.HasPrefix(def, name+":") }) {
				t.Errorf("bulkKeep names %s, which is not an index of the bulk tables", name)
			}
		}
		if n := pending(t, s); n < len(want)-len(indexesOf(t, s))+1 {
			t.Errorf("bulk_restore holds %d rows", n)
		}
		for i := range 5 {
			st, err := w.Write(ctx, postsBatch(int64(105+100*i), 100))
			if err != nil {
				return err
			}
			total.Add(st)
		}
		// Readers keep working without the indexes, and so does Open in
		// another process: it leaves a load in progress alone.
		page, err := s.UserPosts(ctx, 1, false, social.PageReq{Limit: 3})
		if err != nil || len(page.Items) != 3 || page.Items[0].ID != 604 {
			t.Errorf("UserPosts during the load: %v, %+v", err, page.Items)
		}
		if got := searchIDs(t, s, "w107"); !slices.Equal(got, []int64{107}) {
			t.Errorf("search during the load: %v", got)
		}
		other := open(t, u)
		if n := pending(t, other); n == 0 {
			t.Errorf("Open restored the indexes of a load in progress")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := indexesOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after the load:\n%v\nwant\n%v", got, want)
	}
	if n := pending(t, s); n != 0 {
		t.Errorf("bulk_restore holds %d rows after the load", n)
	}
	// Exact stats: 5 posts (105..109) existed, 495 are new.
	if total.PostsInserted != 495 || total.PostsUpdated != 5 || total.UsersUpdated != 10 {
		t.Errorf("stats %+v", total)
	}
	if got := searchIDs(t, s, "w107"); !slices.Equal(got, []int64{107}) {
		t.Errorf("search for an updated post: %v", got)
	}
	page, err := s.Mentions(ctx, "BOB", social.PageReq{Limit: 600})
	if err != nil || len(page.Items) != 505 {
		t.Errorf("mentions: %v, %d posts", err, len(page.Items))
	}
}

func TestBulkSmallLoadKeepsIndexes(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	want := indexesOf(t, s)
	if _, err := s.Write(ctx, postsBatch(1, 100)); err != nil {
		t.Fatal(err)
	}
	err := s.Bulk(ctx, 10, func(w social.Writer) error {
		if got := indexesOf(t, s); !slices.Equal(got, want) {
			t.Errorf("a small load dropped indexes: %v", got)
		}
		_, err := w.Write(ctx, postsBatch(1000, 10))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := pending(t, s); n != 0 {
		t.Errorf("bulk_restore holds %d rows after the load", n)
	}
}

func TestBulkFailedLoadRestores(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	want := indexesOf(t, s)
	boom := errors.New("boom")
	err := s.Bulk(ctx, 1000, func(w social.Writer) error {
		if _, err := w.Write(ctx, postsBatch(1, 50)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Bulk: %v, want the load's error", err)
	}
	if got := indexesOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after a failed load:\n%v\nwant\n%v", got, want)
	}
	if n := pending(t, s); n != 0 {
		t.Errorf("bulk_restore holds %d rows", n)
	}
	if c, _ := s.Counts(ctx); c["posts"] != 50 {
		t.Errorf("%d posts after a failed load, want the 50 written", c["posts"])
	}
	// A cancelled load restores too.
	cctx, cancel := context.WithCancel(ctx)
	err = s.Bulk(cctx, 1000, func(w social.Writer) error {
		cancel()
		_, err := w.Write(cctx, postsBatch(100, 50))
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Bulk: %v", err)
	}
	if got := indexesOf(t, s); !slices.Equal(got, want) {
		t.Errorf("indexes after a cancelled load:\n%v", got)
	}
}

// TestOpenRestoresAfterCrash drops the indexes as a load does, then lets
// the process "die" (the session holding the lock ends without restoring):
// the next Open builds them again.
func TestOpenRestoresAfterCrash(t *testing.T) {
	ctx := context.Background()
	u := freshURL(t)
	s := open(t, u)
	want := indexesOf(t, s)
	if _, err := s.Write(ctx, postsBatch(1, 100)); err != nil {
		t.Fatal(err)
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn := pc.Hijack()
	if _, err := conn.Exec(ctx, bulkLockSQL); err != nil {
		t.Fatal(err)
	}
	dropped, err := s.bulkBegin(ctx, conn, 1000)
	if err != nil || dropped == 0 {
		t.Fatalf("bulkBegin: %d dropped, %v", dropped, err)
	}
	if _, err := (&bulkWriter{s: s}).Write(ctx, postsBatch(1000, 100)); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx) // the process died: no restore
	if got := indexesOf(t, s); len(got) != len(want)-dropped {
		t.Fatalf("%d indexes after the crash, want %d", len(got), len(want)-dropped)
	}
	s2 := open(t, u)
	if got := indexesOf(t, s2); !slices.Equal(got, want) {
		t.Errorf("indexes after Open:\n%v\nwant\n%v", got, want)
	}
	if n := pending(t, s2); n != 0 {
		t.Errorf("bulk_restore holds %d rows after Open", n)
	}
	if got := searchIDs(t, s2, "w1050"); !slices.Equal(got, []int64{1050}) {
		t.Errorf("search after the restore: %v", got)
	}
}

// TestBulkBlindCopy follows a load's posts from blind copies (no look-up
// of stored posts) to looked-up ones: a batch of new posts with repeats is
// copied blind with exact stats and the last copy kept; the first batch
// that meets stored posts is written again as upserts with exact stats;
// and so is every later batch that meets one.
func TestBulkBlindCopy(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	w := &bulkWriter{s: s}
	if !w.first.try(postsTable) {
		t.Fatal("a new load does not copy posts blind")
	}
	write := func(b *social.Batch) social.WriteStats {
		t.Helper()
		st, err := w.Write(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a := postsBatch(1000, 100)
	for _, i := range []int{3, 50, 99} {
		p := a.Posts[i]
		p.Text = fmt.Sprintf("later copy of %d", p.ID)
		a.Posts = append(a.Posts, p)
	}
	if st := write(a); st.PostsInserted != 100 || st.PostsUpdated != 3 {
		t.Errorf("blind batch: stats %+v", st)
	}
	if !w.first.try(postsTable) {
		t.Errorf("a batch of new posts ended the blind copies")
	}
	if got := searchIDs(t, s, "later"); !slices.Equal(got, []int64{1099, 1050, 1003}) {
		t.Errorf("later copies stored: %v", got)
	}
	if st := write(postsBatch(1050, 100)); st.PostsInserted != 50 || st.PostsUpdated != 50 {
		t.Errorf("batch meeting stored posts: stats %+v", st)
	}
	if w.first.try(postsTable) {
		t.Errorf("stored posts did not end the blind copies")
	}
	if st := write(postsBatch(1120, 100)); st.PostsInserted != 70 || st.PostsUpdated != 30 {
		t.Errorf("looked-up batch: stats %+v", st)
	}
	var posts, mentions, tags int
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM posts), (SELECT count(*) FROM post_mentions),
		(SELECT count(*) FROM post_tags)`).Scan(&posts, &mentions, &tags)
	if err != nil || posts != 220 || mentions != 220 || tags != 220 {
		t.Errorf("%d posts, %d mention rows, %d tag rows stored (%v); want 220 each", posts, mentions, tags, err)
	}
}

// TestBulkNameTaken checks which errors nameTaken retries, then loads
// posts of twelve months into a partitioned database, whose two restore
// connections may build posts_author and posts_author_roots (the same
// columns) at once: every load ends well with every index back. The race
// itself is not forced (seen once, in a load of five months beside other
// writes; these loads passed nine times without the retry).
func TestBulkNameTaken(t *testing.T) {
	if !nameTaken(fmt.Errorf("index x: %w", &pgconn.PgError{Code: "23505", ConstraintName: "pg_class_relname_nsp_index"})) ||
		nameTaken(&pgconn.PgError{Code: "23505", ConstraintName: "posts_pkey"}) || nameTaken(nil) {
		t.Fatal("nameTaken tells the wrong errors")
	}
	ctx := context.Background()
	s, err := OpenOptions(ctx, freshURL(t), Options{Partition: PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	want := indexesOf(t, s)
	for round := range 3 {
		err := s.Bulk(ctx, 1000, func(w social.Writer) error {
			var b social.Batch
			b.Users = []social.User{{ID: 1, ScreenName: "ann"}}
			for m := range 12 {
				at := time.Date(2025, time.Month(1+m), 2+round, 0, 0, 0, 0, time.UTC)
				for i := range 30 {
					b.Posts = append(b.Posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()) + int64(i), AuthorID: 1, CreatedAt: at, Text: "x"})
				}
			}
			_, err := w.Write(ctx, &b)
			return err
		})
		if err != nil {
			t.Fatalf("load %d: %v", round, err)
		}
		if got := indexesOf(t, s); len(got) != len(want) {
			t.Fatalf("load %d: %d indexes after, want %d", round, len(got), len(want))
		}
	}
}
