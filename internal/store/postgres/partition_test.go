package postgres

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// queryLog is a pgx.QueryTracer keeping every query a store runs.
type queryLog struct {
	mu sync.Mutex
	qs []traced
}

type traced struct {
	sql  string
	args []any
}

func (r *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	var args []any
	for _, a := range d.Args {
		if _, mode := a.(pgx.QueryExecMode); !mode {
			args = append(args, a)
		}
	}
	r.mu.Lock()
	r.qs = append(r.qs, traced{d.SQL, args})
	r.mu.Unlock()
	return ctx
}

func (r *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// take returns the queries recorded since the last take.
func (r *queryLog) take() []traced {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.qs
	r.qs = nil
	return out
}

// partitionName is a partition of a post table, its month in the suffix.
var partitionName = regexp.MustCompile(`^(posts|post_mentions|post_tags|likes|reposts)_(y\d{4}m\d{2})$`)

// scanned runs each recorded read of the post tables again under EXPLAIN
// ANALYZE and returns the months whose partitions it read: plan nodes on a
// partition that ran at least once. A partition pruned when planning is
// not in the plan; one pruned when executing, or that a LIMIT never
// reached, shows no loops ("never executed").
func scanned(t *testing.T, s *Store, qs []traced) map[string]bool {
	t.Helper()
	months := map[string]bool{}
	n := 0
	for _, q := range qs {
		sql := strings.TrimSpace(q.sql)
		if strings.HasPrefix(sql, "EXPLAIN") || !partitioned(sql) ||
			!(strings.HasPrefix(sql, "SELECT") || strings.HasPrefix(sql, "WITH")) {
			continue
		}
		n++
		var plan []struct{ Plan planNode }
		if err := s.pool.QueryRow(context.Background(), "EXPLAIN (ANALYZE, FORMAT JSON) "+sql, q.args...).Scan(&plan); err != nil {
			t.Fatalf("explain %s: %v", sql, err)
		}
		if testing.Verbose() {
			var text []string
			rows, _ := s.pool.Query(context.Background(), "EXPLAIN (ANALYZE, COSTS OFF) "+sql, q.args...)
			for rows.Next() {
				var l string
				rows.Scan(&l)
				text = append(text, l)
			}
			t.Logf("%s\n%s", sql, strings.Join(text, "\n"))
		}
		plan[0].Plan.walk(func(p *planNode) {
			if m := partitionName.FindStringSubmatch(p.Relation); m != nil && p.Loops > 0 {
				months[m[2]] = true
			}
		})
	}
	if n == 0 {
		t.Fatalf("no read of the post tables among %d queries", len(qs))
	}
	return months
}

// partitioned reports whether a statement reads one of the post tables.
func partitioned(sql string) bool {
	for _, t := range partTables {
		if regexp.MustCompile(`\b` + t.name + `\b`).MatchString(sql) {
			return true
		}
	}
	return false
}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	Relation string     `json:"Relation Name"`
	Loops    float64    `json:"Actual Loops"`
	Plans    []planNode `json:"Plans"`
}

func (p *planNode) walk(f func(*planNode)) {
	f(p)
	for i := range p.Plans {
		p.Plans[i].walk(f)
	}
}

// TestPartitionPruning proves on a database partitioned by month, with
// posts in six months, that each kind of read touches only the partitions
// of its range: by-id lookups those of their ids, a since:/until: search
// those of its id range, a max_id: walk and a search's next page none
// newer than their bound, and a user's timeline, a tag's Latest page and a
// common word's only the newest partitions that fill the page (the older
// ones never run).
func TestPartitionPruning(t *testing.T) {
	ctx := context.Background()
	rec := &queryLog{}
	s, err := OpenOptions(ctx, freshURL(t), Options{Partition: PartitionMonth, Tracer: rec}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })

	const perMonth = 60
	var b social.Batch
	b.Users = []social.User{{ID: 1, ScreenName: "ann"}, {ID: 2, ScreenName: "bob"}}
	ids := map[string][]int64{} // by month
	for m := time.January; m <= time.June; m++ {
		for i := range perMonth {
			at := time.Date(2026, m, 2, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 10 * time.Hour)
			id := social.SnowflakeFloor(at.UnixMilli()) + int64(i)
			b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1, CreatedAt: at,
				Text: "alpha news #gold " + fmt.Sprint(i), Entities: social.Entities{Hashtags: []social.Tag{{Text: "gold"}}}})
			b.Likes = append(b.Likes, social.Like{PostID: id, UserID: 2, CreatedAt: at})
			ids[monthOf(id).suffix()] = append(ids[monthOf(id).suffix()], id)
		}
	}
	if _, err := s.Write(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if err := s.Maintain(ctx); err != nil {
		t.Fatal(err)
	}
	var parts int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'posts'::regclass`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts < 6 {
		t.Fatalf("posts has %d partitions, want at least the six months'", parts)
	}
	rec.take()

	want := func(name string, got map[string]bool, months ...string) {
		t.Helper()
		// The partitions made ahead (this month and the next ones, empty)
		// are the newest: a newest-first walk without an upper bound
		// reads them first, one index probe each.
		for m := range got {
			if m > "y2026m06" {
				delete(got, m)
			}
		}
		if !maps.Equal(got, setOf(months...)) {
			t.Errorf("%s scanned %v, want %v", name, slices.Sorted(maps.Keys(got)), months)
		}
	}
	within := func(name string, got map[string]bool, newest string) {
		t.Helper()
		if len(got) == 0 {
			t.Errorf("%s scanned nothing", name)
		}
		for m := range got {
			if m > newest {
				t.Errorf("%s scanned %s, newer than its bound %s", name, m, newest)
			}
		}
	}
	search := func(q string, p social.PageReq) social.Page[social.Post] {
		t.Helper()
		pq, err := search.Parse(q, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		page, err := s.Search(ctx, pq, social.Latest, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) == 0 {
			t.Fatalf("%q: no posts", q)
		}
		return page
	}

	feb, may := ids["y2026m02"][7], ids["y2026m05"][3]
	if got, err := s.Posts(ctx, []int64{feb, may}); err != nil || len(got) != 2 {
		t.Fatalf("posts by id: %v, %d", err, len(got))
	}
	want("by-id lookup", scanned(t, s, rec.take()), "y2026m02", "y2026m05")

	if _, err := s.Post(ctx, may); err != nil {
		t.Fatal(err)
	}
	want("one post by id", scanned(t, s, rec.take()), "y2026m05")

	search("alpha since:2026-03-10 until:2026-03-20", social.PageReq{Limit: 20})
	want("since:/until: search", scanned(t, s, rec.take()), "y2026m03")

	search(fmt.Sprintf("alpha max_id:%d", ids["y2026m04"][30]), social.PageReq{Limit: 20})
	within("max_id: walk", scanned(t, s, rec.take()), "y2026m04")

	first := search("alpha", social.PageReq{Limit: 20})
	rec.take()
	next := search("alpha", social.PageReq{Limit: 20, After: first.Next})
	within("a word's next Latest page", scanned(t, s, rec.take()), monthOf(first.Next.ID).suffix())
	if next.Items[0].ID >= first.Items[len(first.Items)-1].ID {
		t.Errorf("next page starts at %d, after %d", next.Items[0].ID, first.Items[len(first.Items)-1].ID)
	}

	search("#gold", social.PageReq{Limit: 20})
	want("a tag's Latest page", scanned(t, s, rec.take()), "y2026m06")

	if _, err := s.UserPosts(ctx, 1, true, social.PageReq{Limit: 20}); err != nil {
		t.Fatal(err)
	}
	want("a user's timeline", scanned(t, s, rec.take()), "y2026m06")

	page, err := s.UserPosts(ctx, 1, true, social.PageReq{Limit: perMonth + 10})
	if err != nil {
		t.Fatal(err)
	}
	want("a user's timeline page reaching into May", scanned(t, s, rec.take()), "y2026m06", "y2026m05")
	if len(page.Items) != perMonth+10 {
		t.Errorf("timeline page of %d posts", len(page.Items))
	}
}

func setOf(xs ...string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		out[x] = true
	}
	return out
}

// TestMonthBounds checks the partition bounds: consecutive months meet,
// every id falls within its month's bounds, and the first and last months
// are open-ended.
func TestMonthBounds(t *testing.T) {
	if lo, _ := epochMonth.bounds(); lo != "MINVALUE" {
		t.Errorf("epoch month starts at %s", lo)
	}
	if _, hi := monthOf(1<<63 - 1).bounds(); hi != "MAXVALUE" {
		t.Errorf("last month ends at %s", hi)
	}
	for _, at := range []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2010, 12, 1, 0, 0, 0, 0, time.UTC),
	} {
		id := social.SnowflakeFloor(at.UnixMilli())
		m := monthOf(id)
		if m != monthAt(at) {
			t.Errorf("id of %v in month %s", at, m.suffix())
		}
		lo, hi := m.bounds()
		if least, err := strconv.ParseInt(lo, 10, 64); err != nil || id < least || id >= m.end() || hi != fmt.Sprint(m.end()) {
			t.Errorf("id %d of %v outside [%s, %s)", id, at, lo, hi)
		}
		if monthOf(id-1) == m {
			t.Errorf("id %d, the first of %v, is not the first of its month", id, at)
		}
		if nlo, _ := m.next().bounds(); nlo != hi {
			t.Errorf("%s ends at %s, the next month starts at %s", m.suffix(), hi, nlo)
		}
	}
}
