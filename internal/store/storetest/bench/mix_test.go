package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/gen"
)

// The query-mix benchmark runs the same reads on both engines over a
// generated network of ROOST_BENCH_POSTS posts (default 1,000,000), kept
// between runs in ROOST_BENCH_DIR (SQLite file; default the temp dir) and
// in the schema roost_bench_<posts> of ROOST_TEST_POSTGRES. It reports the
// p50 and p99 latency of each query and, when it loads, the import rate:
//
//	go test ./internal/store/storetest/bench -run '^$' -bench Mix -benchtime 200x -timeout 2h

func benchPosts() int {
	if n, err := strconv.Atoi(os.Getenv("ROOST_BENCH_POSTS")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// loadBench fills s with the generated network unless it holds it already.
func loadBench(b *testing.B, name string, s social.Store, posts int) {
	ctx := context.Background()
	c, err := s.Counts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if c["posts"] >= int64(posts) {
		return
	}
	start := time.Now()
	sum, err := gen.Generate(ctx, s, gen.Config{Seed: 1, Users: posts / 50, Posts: posts}, nil)
	if err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	if m, ok := s.(interface{ Maintain(context.Context) error }); ok {
		if err := m.Maintain(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: imported %d posts in %v: %.0f posts/s", name, sum.Posts, d.Round(time.Second), float64(sum.Posts)/d.Seconds())
}

type benchQuery struct {
	name string
	run  func(ctx context.Context, s social.Store) error
}

// mix is the query mix; words are picked from the data by frequency.
func mix(rare, common, tag, user string, userID, convID int64) []benchQuery {
	page := social.PageReq{Limit: 20}
	srch := func(root search.Node, o social.Order) func(context.Context, social.Store) error {
		return func(ctx context.Context, s social.Store) error {
			_, err := s.Search(ctx, &search.Query{Root: root}, o, page)
			return err
		}
	}
	return []benchQuery{
		{"search rare Latest", srch(search.Word{Text: rare}, social.Latest)},
		{"search common Latest", srch(search.Word{Text: common}, social.Latest)},
		{"search rare Top", srch(search.Word{Text: rare}, social.Top)},
		{"search common Top", srch(search.Word{Text: common}, social.Top)},
		{"search rare AND common", srch(search.And{Children: []search.Node{search.Word{Text: rare}, search.Word{Text: common}}}, social.Latest)},
		{"search hashtag", srch(search.Hashtag{Tag: tag}, social.Latest)},
		{"search from", srch(search.From{User: user}, social.Latest)},
		{"search from -replies", srch(search.And{Children: []search.Node{search.From{User: user},
			search.Not{Child: search.Filter{Kind: search.FilterReplies}}}}, social.Latest)},
		{"search filter:images", srch(search.Filter{Kind: search.FilterImages}, social.Latest)},
		{"user timeline", func(ctx context.Context, s social.Store) error {
			_, err := s.UserPosts(ctx, userID, false, page)
			return err
		}},
		{"thread", func(ctx context.Context, s social.Store) error {
			_, err := s.Thread(ctx, convID, social.PageReq{Limit: 30})
			return err
		}},
		{"following", func(ctx context.Context, s social.Store) error {
			_, err := s.Following(ctx, userID, page)
			return err
		}},
	}
}

func BenchmarkMix(b *testing.B) {
	posts := benchPosts()
	dir := os.Getenv("ROOST_BENCH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	ctx := context.Background()
	lite, err := sqlite.Open(ctx, filepath.Join(dir, fmt.Sprintf("roost-bench-%d.db", posts)), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer lite.Close()
	loadBench(b, "sqlite", lite, posts)
	engines := []struct {
		name string
		s    social.Store
	}{{"sqlite", lite}}
	var pg *postgres.Store
	if u := os.Getenv("ROOST_TEST_POSTGRES"); u != "" {
		pg = benchSchema(b, u, posts)
		defer pg.Close()
		loadBench(b, "postgres", pg, posts)
		engines = append(engines, struct {
			name string
			s    social.Store
		}{"postgres", pg})
	}
	rare, common, tag, user, userID, convID := pickTerms(b, lite)
	b.Logf("terms: rare %q, common %q, #%s, from:%s", rare, common, tag, user)
	for _, q := range mix(rare, common, tag, user, userID, convID) {
		for _, e := range engines {
			b.Run(q.name+"/"+e.name, func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				for b.Loop() {
					t0 := time.Now()
					if err := q.run(ctx, e.s); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99_ms")
			})
		}
	}
}

// benchSchema opens the kept benchmark schema of the PostgreSQL database.
func benchSchema(b *testing.B, base string, posts int) *postgres.Store {
	ctx := context.Background()
	schema := fmt.Sprintf("roost_bench_%d", posts)
	admin, err := postgres.Open(ctx, base, nil)
	if err != nil {
		b.Fatal(err)
	}
	_, err = admin.Pool().Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+schema)
	admin.Close()
	if err != nil {
		b.Fatal(err)
	}
	u := base + "&search_path=" + schema
	s, err := postgres.Open(ctx, u, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// pickTerms finds a rare and a common word, a hashtag, an author and a
// thread in the generated data through the store interface.
func pickTerms(b *testing.B, s social.Store) (rare, common, tag, user string, userID, convID int64) {
	ctx := context.Background()
	page, err := s.Search(ctx, &search.Query{}, social.Latest, social.PageReq{Limit: 500})
	if err != nil || len(page.Items) == 0 {
		b.Fatalf("sample posts: %v", err)
	}
	freq := map[string]int{}
	for _, p := range page.Items {
		for _, t := range search.QueryTokens(p.Text) {
			freq[t]++
		}
		if tag == "" && len(p.Entities.Hashtags) > 0 {
			tag = p.Entities.Hashtags[0].Text
		}
		if convID == 0 && p.InReplyToID != 0 {
			convID = p.ConversationID
		}
	}
	for t, n := range freq {
		if len(t) > 3 && (common == "" || n > freq[common]) {
			common = t
		}
	}
	// A rare word: seen once in the sample, with few matches overall.
	for t, n := range freq {
		if n != 1 || len(t) < 5 {
			continue
		}
		all, err := s.Search(ctx, &search.Query{Root: search.Word{Text: t}}, social.Latest, social.PageReq{Limit: 200})
		if err == nil && len(all.Items) < 60 && len(all.Items) > 2 {
			rare = t
			break
		}
	}
	u, err := s.User(ctx, page.Items[0].AuthorID)
	if err != nil {
		b.Fatal(err)
	}
	return rare, common, tag, u.ScreenName, u.ID, convID
}
