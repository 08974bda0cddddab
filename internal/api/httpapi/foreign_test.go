package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world/gen"
)

// foreignCfg is the network of TestForeignPartition: a year of posts, a
// month a partition.
var foreignCfg = gen.Config{Seed: 7, Users: 200, Posts: 8000}

// partTables are the post tables partitioned by month, moved together.
var partTables = []string{"posts", "post_mentions", "post_tags", "likes", "reposts"}

// TestForeignPartition moves one month of a partitioned database (the
// month of the generated network's popular post) to a second PostgreSQL
// cluster, attached back as postgres_fdw foreign partitions by the
// procedure of docs/postgres.md, and walks every endpoint page by page
// against the same network in an unpartitioned database: every page is
// the same, byte for byte. The keys, the ledger and the rate buckets stay
// on the primary.
func TestForeignPartition(t *testing.T) {
	if raceEnabled {
		t.Skip("the generated networks take minutes to build under -race")
	}
	ctx := context.Background()
	base := storetest.PostgresURL(t)
	cold := storetest.StartCluster(t)

	plainURL := withoutPartition(t, storetest.FreshSchema(t, base))
	partURL := storetest.FreshSchema(t, base)
	plain, err := postgres.Open(ctx, plainURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	parted, err := postgres.OpenOptions(ctx, partURL, postgres.Options{Partition: postgres.PartitionMonth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { parted.Close() })
	sum, err := gen.Generate(ctx, plain, foreignCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(ctx, parted, foreignCfg, nil); err != nil {
		t.Fatal(err)
	}
	x := sum.Examples

	var month string
	err = parted.Pool().QueryRow(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'posts'::regclass AND EXISTS (SELECT 1 FROM posts p WHERE p.tableoid = c.oid AND p.id = $1)`,
		x.PostID).Scan(&month)
	if err != nil {
		t.Fatal(err)
	}
	month = strings.TrimPrefix(month, "posts_")
	moved := moveToForeign(t, parted, partURL, cold, month)
	if moved == 0 {
		t.Fatalf("month %s held no posts", month)
	}
	t.Logf("moved %s (%d posts) to the cold cluster", month, moved)
	if err := parted.Maintain(ctx); err != nil {
		t.Fatalf("maintain with a foreign partition: %v", err)
	}
	var foreign int
	if err := parted.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE c.relkind = 'f' AND i.inhparent::regclass::text = ANY($1)`, partTables).Scan(&foreign); err != nil || foreign != len(partTables) {
		t.Fatalf("foreign partitions: %d, %v", foreign, err)
	}

	now := func() time.Time { return testNow }
	envOf := func(st social.Store) *env {
		return &env{store: st, h: New(Config{Now: now, RateLimit: -1}, st, nil, nil), reg: prometheus.NewRegistry()}
	}
	a, b := envOf(plain), envOf(parted)
	keyA, _ := a.key(t, plenty, 0)
	keyB, idB := b.key(t, plenty, 0)
	before := b.balance(t, idB)

	day := func(id int64) string {
		return time.UnixMilli((id >> 22) + 1288834974657).UTC().Format("2006-01-02")
	}
	monthStart, _ := time.Parse("y2006m01", month)
	since, until := monthStart.Format("2006-01-02"), monthStart.AddDate(0, 1, 0).Format("2006-01-02")
	paged := []string{
		fmt.Sprintf("/social/user/%d/tweets", x.UserID),
		fmt.Sprintf("/social/user/%d/tweets-and-replies", x.UserID),
		fmt.Sprintf("/social/user/%d/highlights", x.UserID),
		fmt.Sprintf("/social/user/%d/likes", x.UserID),
		fmt.Sprintf("/social/user/%s/mentions", x.Username),
		fmt.Sprintf("/social/user/%d/following", x.UserID),
		fmt.Sprintf("/social/user/%d/followers", x.UserID),
		fmt.Sprintf("/social/user/%d/verified-followers", x.UserID),
		fmt.Sprintf("/social/user/%d/lists", x.ListsUserID),
		fmt.Sprintf("/social/user/%d/affiliates", x.OrganizationUserID),
		fmt.Sprintf("/social/thread/%d", x.ThreadID),
		fmt.Sprintf("/social/tweets/%d/retweeted_by", x.PostID),
		fmt.Sprintf("/social/tweets/%d/liking_users", x.PostID),
		fmt.Sprintf("/social/tweets/%d/comments", x.PostID),
		fmt.Sprintf("/social/tweets/%d/quotes", x.PostID),
		fmt.Sprintf("/social/list/%d/tweets", x.ListID),
		fmt.Sprintf("/social/list/%d/members", x.ListID),
		fmt.Sprintf("/social/community/%d/tweets", x.CommunityID),
		fmt.Sprintf("/social/community/%d/members", x.CommunityID),
		"/social/search?query=" + url.QueryEscape(x.Username),
		"/social/search?query=" + url.QueryEscape("from:"+x.Username) + "&type=Top",
		"/social/search?query=the",
		"/social/search?query=the&type=Top",
		"/social/search?query=" + url.QueryEscape("the since:"+since+" until:"+until),
		"/social/search?query=" + url.QueryEscape(fmt.Sprintf("the max_id:%d", x.PostID)),
		"/social/search?query=" + url.QueryEscape("#"+firstTag(t, b, x.PostID)),
		"/social/search?query=" + url.QueryEscape("filter:links since:"+day(x.PostID)),
		"/social/search-users?query=" + url.QueryEscape(x.Username),
	}
	pages := 0
	for _, p := range paged {
		pa, pb := walkBodies(t, a, keyA, p), walkBodies(t, b, keyB, p)
		pages += len(pb)
		if len(pa) != len(pb) {
			t.Errorf("%s: %d pages unpartitioned, %d with the foreign month", p, len(pa), len(pb))
			continue
		}
		for i := range pa {
			if pa[i] != pb[i] {
				t.Errorf("%s: page %d differs:\n%.300s\n%.300s", p, i+1, pa[i], pb[i])
				break
			}
		}
	}
	single := []call{
		{path: fmt.Sprintf("/social/tweets/%d", x.PostID)},
		{path: fmt.Sprintf("/social/statuses/show?id=%d", x.PostID)},
		{path: fmt.Sprintf("/social/user/%d", x.UserID)},
		{path: fmt.Sprintf("/social/list/%d", x.ListID)},
		{method: "POST", path: "/social/tweets-by-ids", body: fmt.Sprintf(`{"ids":["%d","%d"]}`, x.PostID, x.ThreadID)},
		{method: "POST", path: "/social/users-by-ids", body: fmt.Sprintf(`{"ids":["%d"]}`, x.UserID)},
		{path: "/social/search/counts?query=the&granularity=day"},
		{path: "/social/search/top?query=the&field=hashtags"},
		{path: "/social/search/export?query=" + url.QueryEscape("the since:"+since+" until:"+until) + "&format=ids"},
	}
	for _, c := range single {
		ca, cb := c, c
		ca.key, cb.key = keyA, keyB
		wa, wb := a.do(ca), b.do(cb)
		if wa.Code != wb.Code || wa.Body.String() != wb.Body.String() {
			t.Errorf("%s: %d %.300s unpartitioned, %d %.300s with the foreign month", c.path, wa.Code, wa.Body, wb.Code, wb.Body)
		}
		if wb.Code != 200 {
			t.Errorf("%s: %d %.300s", c.path, wb.Code, wb.Body)
		}
	}
	if pages < 2*len(paged) {
		t.Errorf("only %d pages walked", pages)
	}
	if after := b.balance(t, idB); after >= before {
		t.Errorf("the walk charged nothing on the primary: %d → %d", before, after)
	}
}

// withoutPartition is a test URL that never asks for partitions, whatever
// ROOST_TEST_PG_PARTITION says.
func withoutPartition(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Del("partition")
	p.RawQuery = q.Encode()
	return p.String()
}

// firstTag is a hashtag of post id (without its #).
func firstTag(t *testing.T, e *env, id int64) string {
	t.Helper()
	posts, err := e.store.Posts(context.Background(), []int64{id})
	if err != nil || len(posts) != 1 {
		t.Fatalf("post %d: %v", id, err)
	}
	for _, h := range posts[0].Entities.Hashtags {
		return h.Text
	}
	return "news"
}

// walkBodies reads every page of path and returns their bodies.
func walkBodies(t *testing.T, e *env, key, path string) []string {
	t.Helper()
	var out []string
	cursor := ""
	for len(out) < 1000 {
		p := withCursor(path, cursor)
		w := e.do(call{path: p, key: key})
		if w.Code != 200 {
			t.Fatalf("%s: %d %s", p, w.Code, w.Body)
		}
		body := w.Body.String()
		out = append(out, body)
		var pg page
		if err := json.Unmarshal([]byte(body), &pg); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if pg.NextCursor == nil {
			return out
		}
		cursor = *pg.NextCursor
	}
	t.Fatalf("%s: more than 1000 pages", path)
	return nil
}

// moveToForeign moves a month's partitions of the post tables (suffix
// month, e.g. y2025m09) of the partitioned database at dbURL to the cold
// cluster, as docs/postgres.md tells an operator to: a table of the
// same columns on the cold server for each, its rows copied there, then
// in one transaction on the primary each local partition detached and
// dropped and a foreign table of the cold one attached with the same
// bounds. It returns how many posts moved.
func moveToForeign(t *testing.T, st *postgres.Store, dbURL string, cold *storetest.Standby, month string) int64 {
	t.Helper()
	ctx := context.Background()
	coldURL := cold.URL(withoutPartition(t, dbURL))
	cu, _ := url.Parse(coldURL)
	q := cu.Query()
	q.Del("search_path")
	cu.RawQuery = q.Encode()
	cu.Path = "/postgres"
	admin, err := pgx.Connect(ctx, cu.String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE SCHEMA roost_cold"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	q.Set("search_path", "roost_cold")
	cu.RawQuery = q.Encode()
	// The cold schema is a roost schema (its migrations make the tables,
	// as roost copy or roost gen would), so each month's table is made
	// LIKE its table there.
	coldStore, err := postgres.Open(ctx, cu.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	coldStore.Close()
	cc, err := pgx.Connect(ctx, cu.String())
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close(ctx)
	pc, err := st.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Release()
	var schema string
	if err := pc.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	var posts int64
	for _, tb := range partTables {
		part := tb + "_" + month
		if _, err := cc.Exec(ctx, "CREATE TABLE "+part+" (LIKE "+tb+" INCLUDING ALL)"); err != nil {
			t.Fatal(err)
		}
		r, w := io.Pipe()
		go func() {
			_, err := pc.Conn().PgConn().CopyTo(ctx, w, "COPY "+part+" TO STDOUT (FORMAT binary)")
			w.CloseWithError(err)
		}()
		tag, err := cc.PgConn().CopyFrom(ctx, r, "COPY "+part+" FROM STDIN (FORMAT binary)")
		if err != nil {
			t.Fatalf("copy %s: %v", part, err)
		}
		if tb == "posts" {
			posts = tag.RowsAffected()
		}
		if _, err := cc.Exec(ctx, "ANALYZE "+part); err != nil {
			t.Fatal(err)
		}
	}
	server := "roost_cold_" + schema
	steps := []string{
		"CREATE EXTENSION IF NOT EXISTS postgres_fdw SCHEMA " + schema,
		fmt.Sprintf("CREATE SERVER %s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '%d', dbname 'postgres')",
			server, cold.Port),
		"CREATE USER MAPPING FOR CURRENT_USER SERVER " + server + " OPTIONS (user 'postgres')",
	}
	t.Cleanup(func() { st.Pool().Exec(context.Background(), "DROP SERVER IF EXISTS "+server+" CASCADE") })
	for _, s := range steps {
		if _, err := pc.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	err = pgx.BeginFunc(ctx, pc, func(tx pgx.Tx) error {
		for _, tb := range partTables {
			part := tb + "_" + month
			var bound string
			if err := tx.QueryRow(ctx, `SELECT pg_get_expr(relpartbound, oid) FROM pg_class WHERE oid = $1::regclass`, part).Scan(&bound); err != nil {
				return fmt.Errorf("bound of %s: %w", part, err)
			}
			for _, s := range []string{
				"ALTER TABLE " + tb + " DETACH PARTITION " + part,
				"DROP TABLE " + part,
				"CREATE FOREIGN TABLE " + part + " PARTITION OF " + tb + " " + bound + " SERVER " + server +
					" OPTIONS (schema_name 'roost_cold', table_name '" + part + "')",
			} {
				if _, err := tx.Exec(ctx, s); err != nil {
					return fmt.Errorf("%s: %w", s, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return posts
}
