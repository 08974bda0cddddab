package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/transfer"
)

// TestAuthorMonthBounds checks that the months post_author_months records
// are the partitions' months: the bounds made in SQL equal month.bounds
// for ids at and around month boundaries, the epoch's month and the last.
func TestAuthorMonthBounds(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshURL(t))
	ids := []int64{-5, 0, 1, 1 << 22, 1<<63 - 1, 1<<63 - 1<<22}
	for y := 2010; y <= 2030; y += 4 {
		for m := time.January; m <= time.December; m += 5 {
			at := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
			for _, d := range []int64{-1, 0, 1, 15 * 86400000} {
				if f := social.SnowflakeFloor(at + d); f > 0 {
					ids = append(ids, f-1, f, f+(1<<22)-1)
				}
			}
		}
	}
	var rows [][2]int64
	for _, id := range ids {
		rows = append(rows, [2]int64{7, id})
	}
	js, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	from := `(SELECT (r->>0)::bigint, (r->>1)::bigint FROM jsonb_array_elements('` + string(js) + `'::jsonb) r) AS p (author_id, id)`
	rs, err := s.pool.Query(ctx, monthRowsSQL(from))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]int64{}
	for rs.Next() {
		var author, lo, hi int64
		if err := rs.Scan(&author, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		got[lo] = hi
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[int64]int64{}
	for _, id := range ids {
		m := monthOf(id)
		lo, hi := int64(-1<<63), int64(1<<63-1)
		if l, h := m.bounds(); l != "MINVALUE" || h != "MAXVALUE" {
			if l != "MINVALUE" {
				fmt.Sscan(l, &lo)
			}
			if h != "MAXVALUE" {
				fmt.Sscan(h, &hi)
			}
		}
		want[lo] = hi
		if id >= 0 && (id < lo || id >= hi && id < 1<<63-1) { // an id of MaxInt64 is past every cursor
			t.Errorf("id %d outside its month [%d, %d)", id, lo, hi)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("months made in SQL %v,\nwant %v", got, want)
	}
}

// TestAuthorMonthsPlan checks the plan of a partitioned timeline page,
// custom and generic: nothing sorts posts (each month's partition is
// walked by its index and stopped at the page's size), so a prolific
// author's page reads the newest month's first posts only.
func TestAuthorMonthsPlan(t *testing.T) {
	ctx := context.Background()
	s, err := OpenOptions(ctx, freshURL(t), Options{Partition: PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	var b social.Batch
	b.Users = []social.User{{ID: 1, ScreenName: "ann"}}
	for m := time.January; m <= time.April; m++ {
		for i := range 300 {
			at := time.Date(2026, m, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			b.Posts = append(b.Posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at, Text: "x"})
		}
	}
	if _, err := s.Write(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if err := s.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `PREPARE tl(bigint, bigint, bigint) AS `+partedUserPostsSQL(true)); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, `DEALLOCATE tl; RESET plan_cache_mode`)
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		if _, err := conn.Exec(ctx, `SET plan_cache_mode = `+mode); err != nil {
			t.Fatal(err)
		}
		var plan []struct{ Plan planNode }
		if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE tl(1, 9223372036854775807, 21)`,
			pgx.QueryExecModeSimpleProtocol).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		var read float64
		var sorts []string
		plan[0].Plan.walk(func(p *planNode) {
			if partitionName.MatchString(p.Relation) {
				read += p.Rows * p.Loops
			}
			if strings.Contains(p.Type, "Sort") && p.reads(func(q *planNode) bool { return partitionName.MatchString(q.Relation) }) {
				sorts = append(sorts, p.Type)
			}
		})
		if len(sorts) > 0 || read > 21 {
			t.Errorf("%s: %v above the posts, %v posts read, want none and at most 21", mode, sorts, read)
		}
	}
}

// reads reports whether f holds for p or a node below it.
func (p *planNode) reads(f func(*planNode) bool) bool {
	found := false
	p.walk(func(q *planNode) { found = found || f(q) })
	return found
}

// TestAuthorMonthsWrites writes a post of its own author and month through
// every way posts reach a partitioned database (Write one by one, a COPY
// of new posts, the staged upsert of a batch with stored posts, a bulk
// load, a copy from another database, plain SQL, a snapshot restore, a
// post given another author) and reads it on its author's timeline, which
// finds posts through post_author_months alone: a way that left the
// table without the month would hide the post.
func TestAuthorMonthsWrites(t *testing.T) {
	ctx := context.Background()
	s, err := OpenOptions(ctx, freshURL(t), Options{Partition: PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	month := time.Date(2025, time.January, 3, 0, 0, 0, 0, time.UTC)
	author := int64(100)
	// next is a post of a new author in a new month.
	next := func() social.Post {
		author++
		month = month.AddDate(0, 1, 0)
		return social.Post{ID: social.SnowflakeFloor(month.UnixMilli()) + author, AuthorID: author, CreatedAt: month, Text: "hello"}
	}
	filler := func(n int, at time.Time) []social.Post { // posts of author 1 beside it, for batches of 64 or more
		var ps []social.Post
		for i := range n {
			ps = append(ps, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()) + 1000 + int64(i), AuthorID: 1, CreatedAt: at, Text: "filler"})
		}
		return ps
	}
	shows := func(how string, p social.Post) {
		t.Helper()
		page, err := s.UserPosts(ctx, p.AuthorID, true, social.PageReq{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 1 || page.Items[0].ID != p.ID {
			t.Errorf("%s: the timeline of %d holds %d posts, want post %d", how, p.AuthorID, len(page.Items), p.ID)
		}
	}
	users := func(ps ...social.Post) []social.User {
		us := []social.User{{ID: 1, ScreenName: "filler"}}
		for _, p := range ps {
			us = append(us, social.User{ID: p.AuthorID, ScreenName: fmt.Sprint("u", p.AuthorID)})
		}
		return us
	}

	one := next()
	if _, err := s.Write(ctx, &social.Batch{Users: users(one), Posts: []social.Post{one}}); err != nil {
		t.Fatal(err)
	}
	shows("Write of one post", one)

	copied := next()
	if _, err := s.Write(ctx, &social.Batch{Users: users(copied), Posts: append(filler(70, month), copied)}); err != nil {
		t.Fatal(err)
	}
	shows("Write copying new posts", copied)

	staged := next()
	if _, err := s.Write(ctx, &social.Batch{Users: users(staged), Posts: append(filler(70, month.AddDate(0, -1, 0)), staged)}); err != nil {
		t.Fatal(err)
	}
	shows("Write upserting stored posts", staged)

	loaded := next()
	if err := s.Bulk(ctx, 1000, func(w social.Writer) error {
		_, err := w.Write(ctx, &social.Batch{Users: users(loaded), Posts: append(filler(100, month), loaded)})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	shows("a bulk load", loaded)

	from := open(t, freshURL(t))
	fromCopy := next()
	if _, err := from.Write(ctx, &social.Batch{Users: users(fromCopy), Posts: []social.Post{fromCopy}}); err != nil {
		t.Fatal(err)
	}
	if _, err := transfer.Copy(ctx, from, s, nil); err != nil {
		t.Fatal(err)
	}
	shows("a copy (roost copy)", fromCopy)

	bySQL := next()
	if err := s.parts.ensureIDs(ctx, []int64{bySQL.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO users (id, screen_name) VALUES ($1, 'sql')`, bySQL.AuthorID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO posts (id, author_id, created_at, text) VALUES ($1, $2, $3, 'by hand')`,
		bySQL.ID, bySQL.AuthorID, bySQL.CreatedAt.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	shows("plain SQL", bySQL)

	// A restore puts back a post deleted since the snapshot; the months
	// table is emptied first, so that only the restore can fill it.
	restored := next()
	if _, err := s.Write(ctx, &social.Batch{Users: users(restored), Posts: []social.Post{restored}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveSnapshot(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.DropSnapshot(context.Background(), "before") })
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{restored.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM post_author_months WHERE author_id = $1`, restored.AuthorID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreSnapshot(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	shows("a snapshot restore", restored)

	moved := next()
	if _, err := s.Write(ctx, &social.Batch{Users: users(moved), Posts: []social.Post{moved}}); err != nil {
		t.Fatal(err)
	}
	moved.AuthorID = 1
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{moved}}); err != nil {
		t.Fatal(err)
	}
	page, err := s.UserPosts(ctx, 1, true, social.PageReq{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !containsPost(page.Items, moved.ID) {
		t.Errorf("a post given another author is not on the new author's timeline")
	}

	// Every stored post has its month, whatever wrote it.
	var missing int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM posts p WHERE NOT EXISTS (SELECT 1 FROM post_author_months m
		WHERE m.author_id = p.author_id AND p.id >= m.lo AND p.id < m.hi)`).Scan(&missing); err != nil {
		t.Fatal(err)
	}
	if missing > 0 {
		t.Errorf("%d posts without their author's month", missing)
	}
}

func containsPost(ps []social.Post, id int64) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// TestAuthorMonthsBackfill opens a database partitioned before
// post_author_months existed: Open makes the table and its triggers and
// fills it from the stored posts.
func TestAuthorMonthsBackfill(t *testing.T) {
	ctx := context.Background()
	u := freshURL(t)
	s, err := OpenOptions(ctx, u, Options{Partition: PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, time.March, 9, 0, 0, 0, 0, time.UTC)
	p := social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 5, CreatedAt: at, Text: "old"}
	if _, err := s.Write(ctx, &social.Batch{Users: []social.User{{ID: 5, ScreenName: "e"}}, Posts: []social.Post{p}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `DROP TABLE post_author_months; DROP TRIGGER post_author_months_insert ON posts;
		DROP TRIGGER post_author_months_update ON posts;
		DROP FUNCTION post_author_months_add()`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, u)
	page, err := s.UserPosts(ctx, 5, true, social.PageReq{Limit: 5})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != p.ID {
		t.Fatalf("timeline after the backfill: %v, %v", page.Items, err)
	}
}

// TestAuthorMonthsForeignPartition writes posts, one and many, into a
// month whose posts partition is a foreign table (postgres_fdw, back to
// the same database) and into a local month: the triggers work there too,
// and the posts are on their authors' timelines.
func TestAuthorMonthsForeignPartition(t *testing.T) {
	ctx := context.Background()
	s, err := OpenOptions(ctx, freshURL(t), Options{Partition: PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cold := time.Date(2025, time.February, 10, 0, 0, 0, 0, time.UTC)
	if err := s.parts.ensureIDs(ctx, []int64{social.SnowflakeFloor(cold.UnixMilli())}); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := s.pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	cfg := s.pool.Config().ConnConfig
	part, server := "posts_"+monthAt(cold).suffix(), schema+"_cold"
	t.Cleanup(func() {
		s.pool.Exec(context.Background(), "DROP SERVER IF EXISTS "+server+" CASCADE")
		s.pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+server+" CASCADE")
	})
	var bound string
	if err := s.pool.QueryRow(ctx, `SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE oid = $1::regclass`, part).Scan(&bound); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE SCHEMA " + server,
		"CREATE TABLE " + server + "." + part + " (LIKE " + part + " INCLUDING ALL)",
		"CREATE EXTENSION IF NOT EXISTS postgres_fdw SCHEMA " + schema,
		fmt.Sprintf("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '%s', port '%d', dbname '%s')",
			server, cfg.Host, cfg.Port, cfg.Database),
		"CREATE USER MAPPING FOR CURRENT_USER SERVER " + server + " OPTIONS (user '" + cfg.User + "')",
		"ALTER TABLE posts DETACH PARTITION " + part,
		"DROP TABLE " + part,
		"CREATE FOREIGN TABLE " + part + " PARTITION OF posts " + bound + " SERVER " + server +
			" OPTIONS (schema_name '" + server + "', table_name '" + part + "')",
	} {
		if _, err := s.pool.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var b social.Batch
	b.Users = []social.User{{ID: 1, ScreenName: "cold"}, {ID: 2, ScreenName: "warm"}}
	for i := range 80 {
		at := cold.Add(time.Duration(i) * time.Minute)
		b.Posts = append(b.Posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 1, CreatedAt: at, Text: "c"})
	}
	at := time.Date(2025, time.May, 1, 0, 0, 0, 0, time.UTC)
	b.Posts = append(b.Posts, social.Post{ID: social.SnowflakeFloor(at.UnixMilli()), AuthorID: 2, CreatedAt: at, Text: "w"})
	one := social.Batch{Posts: []social.Post{b.Posts[len(b.Posts)-1], b.Posts[0]}}
	one.Posts[0].ID++
	one.Posts[1].ID--
	for _, batch := range []*social.Batch{&b, &one, &one} {
		if _, err := s.Write(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	for author, want := range map[int64]int{1: 81, 2: 2} {
		page, err := s.UserPosts(ctx, author, true, social.PageReq{Limit: 100})
		if err != nil || len(page.Items) != want {
			t.Errorf("the timeline of %d: %d posts, want %d (%v)", author, len(page.Items), want, err)
		}
	}
}
