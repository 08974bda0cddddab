package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
)

func openSQLite(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSQLiteEndToEnd imports every shared file (and the fixtures) into a
// SQLite store twice and checks what the store serves.
func TestSQLiteEndToEnd(t *testing.T) {
	var files []string
	for _, f := range sharedFiles {
		files = append(files, shared(t, f.rel))
	}
	files = append(files, fixture("v1_array.json"), fixture("export.zip"), fixture("api_page.json"))
	ctx := context.Background()
	st := openSQLite(t)
	// The followers capture does not name its subject; the test names
	// an imported user so that the edges can be read back.
	opt := Options{FollowersOf: 69133574}
	first, err := Import(ctx, st, files, opt)
	if err != nil {
		t.Fatalf("first import: %v\n%s", err, first)
	}
	check(t, "skipped", first.Skipped, 0)
	before, err := st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Import(ctx, st, files, opt)
	if err != nil {
		t.Fatalf("second import: %v\n%s", err, second)
	}
	after, err := st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first: %+v\nsecond: %+v\ncounts: %v", first, second, after)
	check(t, "posts inserted again", second.PostsInserted, 0)
	check(t, "users inserted again", second.UsersInserted, 0)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("count %s: %d after re-import, %d before", k, after[k], v)
		}
	}
	if before["posts"] != int64(first.PostsInserted) {
		t.Errorf("posts stored %d, inserted %d", before["posts"], first.PostsInserted)
	}

	// A v1.1 post, served.
	posts, err := st.Posts(ctx, []int64{1589632502309990401, 1589728186556121088})
	if err != nil || len(posts) != 2 {
		t.Fatalf("Posts: %v, %d found", err, len(posts))
	}
	byID := map[int64]social.Post{}
	for _, p := range posts {
		byID[p.ID] = p
	}
	p := byID[1589632502309990401]
	if !strings.HasPrefix(p.Text, "New chapter on regular expressions in R4DS") || p.AuthorID != 69133574 || p.FavoriteCount != 408 {
		t.Errorf("served post = %+v", p)
	}
	if len(p.Entities.Hashtags) != 1 || p.Entities.Hashtags[0] != (social.Tag{Text: "rstats", Start: 186, End: 193}) {
		t.Errorf("served hashtags = %+v", p.Entities.Hashtags)
	}
	check(t, "served reply link", byID[1589728186556121088].InReplyToID, 1589632502309990401)
	u, err := st.User(ctx, 69133574)
	if err != nil || u.ScreenName != "hadleywickham" || u.Stub {
		t.Errorf("served user = %+v, %v", u, err)
	}

	// The TweetDetail thread, in conversation order.
	th, err := st.Thread(ctx, 1649191520250245121, social.PageReq{Limit: 100})
	if err != nil {
		t.Fatalf("Thread: %v", err)
	}
	if len(th.Items) != 37 || th.Items[0].ID != 1649191520250245121 || th.Items[1].ID != 1649191521323995138 {
		ids := make([]int64, 0, len(th.Items))
		for _, p := range th.Items {
			ids = append(ids, p.ID)
		}
		t.Errorf("thread = %d posts %v", len(th.Items), ids)
	}

	// Followers capture: each listed user follows the named subject.
	fw, err := st.Following(ctx, 236209129, social.PageReq{Limit: 20})
	if err != nil {
		t.Fatalf("Following: %v", err)
	}
	if len(fw.Items) != 1 || fw.Items[0].ID != 69133574 {
		t.Errorf("leslieberland follows %+v, want [69133574]", fw.Items)
	}

	// The export's owner from account.js, with the note's full text.
	owner, err := st.UserByScreenName(ctx, "OWNER_X")
	if err != nil || owner.ID != 9100000000000000060 || owner.Description != "I post things" {
		t.Errorf("export owner = %+v, %v", owner, err)
	}
}

// synthV1 writes a JSONL file of n posts derived from the shared v1.1 file
// by rewriting ids (so every line is a new post) and returns its path.
func synthV1(tb testing.TB, n int) string {
	tb.Helper()
	src := shared(tb, "v1/rtweet-statuses.jsonl")
	raw, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			tb.Fatal(err)
		}
		// Keep top-level statuses only: nested ones would repeat.
		delete(m, "retweeted_status")
		delete(m, "quoted_status")
		lines = append(lines, m)
	}
	p := filepath.Join(tb.TempDir(), "synth.jsonl")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for i := range n {
		m := lines[i%len(lines)]
		id := strconv.FormatInt(1_000_000_000_000_000_000+int64(i), 10)
		m["id"], m["id_str"] = json.Number(id), id
		if err := enc.Encode(m); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return p
}

// BenchmarkImportV1 imports synthetic v1.1 JSONL into SQLite and reports
// posts per second. ROOST_BENCH_POSTS sets the size (default 100,000).
func BenchmarkImportV1(b *testing.B) {
	n := 100_000
	if s := os.Getenv("ROOST_BENCH_POSTS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	p := synthV1(b, n)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		st := openSQLite(b)
		b.StartTimer()
		start := time.Now()
		sum, err := Import(context.Background(), st, []string{p}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		el := time.Since(start)
		b.ReportMetric(float64(sum.PostsInserted)/el.Seconds(), "posts/s")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
	}
}

// BenchmarkDecodeV1 measures decoding alone (a discarding writer).
func BenchmarkDecodeV1(b *testing.B) {
	p := synthV1(b, 50_000)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		sum, err := Import(context.Background(), discard{}, []string{p}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Read)/time.Since(start).Seconds(), "posts/s")
	}
}

type discard struct{}

func (discard) Write(_ context.Context, b *social.Batch) (social.WriteStats, error) {
	return social.WriteStats{PostsInserted: len(b.Posts), UsersInserted: len(b.Users)}, nil
}
