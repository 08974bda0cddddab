package sqlite

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// BenchmarkSearchMix runs a mix of 50 realistic queries, in both orders, on
// the generated database named by ROOST_BENCH_DB, and reports latency
// percentiles of first pages, later pages and max_id: walks:
//
//	roost gen --db /tmp/search10m.db --users 100000 --posts 10000000
//	ROOST_BENCH_DB=/tmp/search10m.db go test ./internal/store/sqlite -run '^$' -bench SearchMix -benchtime 3x
//
// The mix takes its user names and rare words from the database, so it
// works on any generated network. ROOST_BENCH_QUERY, when set, replaces the
// mix with that one query.
func BenchmarkSearchMix(b *testing.B) {
	path := os.Getenv("ROOST_BENCH_DB")
	if path == "" {
		b.Skip("set ROOST_BENCH_DB to a generated database")
	}
	ctx := context.Background()
	s, err := Open(ctx, path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	mix, err := benchMix(ctx, s)
	if err != nil {
		b.Fatal(err)
	}
	if q := os.Getenv("ROOST_BENCH_QUERY"); q != "" {
		mix = []string{q}
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	type timing struct {
		query string
		order social.Order
		page  string
		d     time.Duration
	}
	var latest, top []timing
	b.ResetTimer()
	for range b.N {
		// Each round plans as if the queries were new: only a query's
		// next pages may reuse its first page's counts.
		s.counts.reset()
		for _, text := range mix {
			q, err := search.Parse(text, now)
			if err != nil {
				b.Fatalf("%q: %v", text, err)
			}
			for _, order := range []social.Order{social.Latest, social.Top} {
				req := social.PageReq{Limit: 20}
				for page := range 3 { // the first page, then two more by cursor
					start := time.Now()
					pg, err := s.Search(ctx, q, order, req)
					if err != nil {
						b.Fatalf("%q: %v", text, err)
					}
					t := timing{text, order, fmt.Sprintf("page %d", page+1), time.Since(start)}
					if order == social.Top {
						top = append(top, t)
					} else {
						latest = append(latest, t)
					}
					if pg.Next == nil {
						break
					}
					req.After = pg.Next
					if order == social.Latest && page == 0 && len(pg.Items) > 0 {
						// A researcher's next request: the query with max_id:.
						low := pg.Items[len(pg.Items)-1].ID
						mq, err := search.Parse(fmt.Sprintf("%s max_id:%d", text, low), now)
						if err == nil {
							start := time.Now()
							if _, err := s.Search(ctx, mq, order, social.PageReq{Limit: 20}); err != nil {
								b.Fatalf("%q max_id: %v", text, err)
							}
							latest = append(latest, timing{text, order, "max_id: page", time.Since(start)})
						}
					}
				}
			}
		}
	}
	b.StopTimer()
	report := func(name string, ts []timing) {
		sort.Slice(ts, func(i, j int) bool { return ts[i].d < ts[j].d })
		pct := func(p float64) float64 {
			return float64(ts[min(len(ts)-1, int(p*float64(len(ts))))].d.Microseconds()) / 1000
		}
		b.ReportMetric(pct(0.50), name+"-p50-ms")
		b.ReportMetric(pct(0.99), name+"-p99-ms")
		b.ReportMetric(float64(ts[len(ts)-1].d.Microseconds())/1000, name+"-max-ms")
		for _, t := range ts[max(0, len(ts)-5):] {
			b.Logf("%s slow: %8.2f ms  %s  %q", name, float64(t.d.Microseconds())/1000, t.page, t.query)
		}
	}
	report("latest", latest)
	report("top", top)
}

// benchMix is the 50 queries of BenchmarkSearchMix. Words and hashtags come
// from the generator's fixed vocabulary; users and rare words from the
// database.
func benchMix(ctx context.Context, s *Store) ([]string, error) {
	var users []string
	rows, err := s.read.QueryContext(ctx, `SELECT screen_name FROM users WHERE shadow_banned = 0 AND stub = 0
		AND length(screen_name) >= 2 ORDER BY statuses_count DESC LIMIT 3`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		users = append(users, n)
	}
	rows.Close()
	var quiet string
	if err := s.read.QueryRowContext(ctx, `SELECT screen_name FROM users WHERE shadow_banned = 0 AND stub = 0
		AND length(screen_name) >= 2 AND statuses_count BETWEEN 1 AND 20 ORDER BY id LIMIT 1`).Scan(&quiet); err != nil {
		return nil, fmt.Errorf("a quiet user: %w", err)
	}
	var maxID, minID int64
	if err := s.read.QueryRowContext(ctx, `SELECT max(id), min(id) FROM posts`).Scan(&maxID, &minID); err != nil {
		return nil, err
	}
	// Rare words: the longest tokens of a few posts spread over the ids.
	var rare []string
	for _, frac := range []float64{0.1, 0.5, 0.9} {
		var text string
		at := minID + int64(frac*float64(maxID-minID))
		if err := s.read.QueryRowContext(ctx, `SELECT text FROM posts WHERE id >= ? AND repost_of_id = 0 ORDER BY id LIMIT 1`, at).Scan(&text); err != nil {
			return nil, err
		}
		toks := strings.Fields(search.IndexText(text))
		slices.SortStableFunc(toks, func(a, b string) int { return len(b) - len(a) })
		if len(toks) > 0 {
			rare = append(rare, toks[0])
		}
	}
	for len(rare) < 3 {
		rare = append(rare, "zzqx")
	}
	for len(users) < 3 {
		users = append(users, quiet)
	}
	deep := minID + (maxID-minID)/10
	mid := minID + (maxID-minID)/2
	mix := []string{
		// common and rare words, phrases
		"the", "que", "golang", "the to", "the -to", rare[0], rare[1], rare[2] + " the",
		`"the to"`, `"to the"`, `"a * the"`, `"que * que"`, "北京", "の", "это", "في",
		// from: with words, mentions, hashtags, cashtags
		"from:" + users[0], "from:" + users[0] + " the", "from:" + users[1] + " -filter:replies",
		"from:" + quiet, "from:" + quiet + " golang", "@" + users[2], "#golang", "#golang lang:en",
		"$BTC", "$NVDA OR $TSLA",
		// time ranges and id walks
		"the since:2026-01-01", "the since:2025-09-01 until:2025-09-08", "golang until:2025-08-01",
		"since:2025-10-01 until:2025-10-02", fmt.Sprintf("the max_id:%d", deep), fmt.Sprintf("golang max_id:%d", mid),
		fmt.Sprintf("max_id:%d", deep), fmt.Sprintf("since_id:%d max_id:%d", deep, mid),
		// counts, filters, negations
		"min_faves:100", "min_faves:1000", "the min_faves:50", "golang min_retweets:5", "filter:media",
		"filter:videos lang:ja", "the -filter:replies -filter:links", "lang:ko", "-lang:en -the filter:images",
		"url:github.com", "que -filter:retweets -min_faves:2",
		// OR groups
		"(golang OR rust)", "(golang OR rust) -filter:replies min_faves:1", "(#golang OR #rust) lang:en",
		`"the to" OR "to the"`, "(" + rare[0] + " OR " + rare[1] + ")",
	}
	if len(mix) != 50 {
		return nil, fmt.Errorf("the mix has %d queries, want 50", len(mix))
	}
	return mix, nil
}

// TestSearchExplain prints the driver and the SQLite query plan of every
// query of the benchmark mix, first pages in both orders, with the time of
// each page; it runs only with ROOST_BENCH_DB set. ROOST_BENCH_QUERY, when
// set, replaces the mix with that one query.
func TestSearchExplain(t *testing.T) {
	path := os.Getenv("ROOST_BENCH_DB")
	if path == "" {
		t.Skip("set ROOST_BENCH_DB to a generated database")
	}
	ctx := context.Background()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mix, err := benchMix(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if q := os.Getenv("ROOST_BENCH_QUERY"); q != "" {
		mix = []string{q}
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, text := range mix {
		q, err := search.Parse(text, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range []social.Order{social.Latest, social.Top} {
			start := time.Now()
			st, err := s.searchStatement(ctx, q, order, social.PageReq{Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			planned := time.Since(start)
			if st.empty {
				t.Logf("%-7s %-50q empty", order, text)
				continue
			}
			if st.buckets != nil {
				page, err := s.topBuckets(ctx, st.buckets, st.bucketDriver, social.PageReq{Limit: 20})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%-7s %-50q %-14s %3d items  %7.2f ms (plan %.2f ms)", order, text, st.driver, len(page.Items),
					float64(time.Since(start).Microseconds())/1000, float64(planned.Microseconds())/1000)
				continue
			}
			page, err := s.searchPage(ctx, 20, st.sql, st.args...)
			if err != nil {
				t.Fatal(err)
			}
			plan := queryPlan(t, s, st.sql, st.args...)
			t.Logf("%-7s %-50q %-14s %3d items  %7.2f ms (plan %.2f ms)  %s", order, text, st.driver, len(page.Items),
				float64(time.Since(start).Microseconds())/1000, float64(planned.Microseconds())/1000, strings.Join(plan, " | "))
		}
	}
}
