package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"roost/search"
	"roost/social"
)

func TestTmpTemplates(t *testing.T) {
	path := os.Getenv("ROOST_BENCH_DB")
	if path == "" {
		t.Skip()
	}
	ctx := context.Background()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var words []string
	var users []string
	rows, _ := s.read.QueryContext(ctx, `SELECT p.text, u.screen_name FROM posts p JOIN users u ON u.id = p.author_id WHERE p.id % 997 = 3 AND u.protected = 0 AND p.lang IN ('en','es','fr','pt','it','de') LIMIT 400`)
	for rows.Next() {
		var text, name string
		rows.Scan(&text, &name)
		users = append(users, name)
		for _, w := range strings.Fields(text) {
			w = strings.Trim(w, ".,!?;:\"'()")
			if len([]rune(w)) >= 3 && !strings.ContainsAny(w, "@#$/:&") {
				words = append(words, w)
			}
		}
	}
	rows.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string { return words[rng.IntN(len(words))] }
	user := func() string { return users[rng.IntN(len(users))] }
	tmpl := []func() string{
		func() string { return word() },
		func() string { return word() + " " + word() },
		func() string { return `"` + word() + " " + word() + `"` },
		func() string { return "from:" + user() },
		func() string { return "from:" + user() + " " + word() },
		func() string { return word() + " OR " + word() },
		func() string { return word() + " -" + word() },
		func() string { return word() + " since:2026-01-01 until:2026-03-01" },
		func() string { return "min_faves:100 " + word() },
		func() string { return "from:" + user() + " -filter:replies" },
	}
	order := social.Top
	if os.Getenv("TMP_LATEST") != "" {
		order = social.Latest
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for ti, f := range tmpl {
		type r struct {
			q   string
			d   time.Duration
			drv string
		}
		var rs []r
		for range 60 {
			q := f()
			pq, err := search.Parse(q, now)
			if err != nil {
				continue
			}
			st, _ := s.searchStatement(ctx, pq, order, social.PageReq{Limit: 20})
			start := time.Now()
			if _, err := s.Search(ctx, pq, order, social.PageReq{Limit: 20}); err != nil {
				t.Fatal(err)
			}
			rs = append(rs, r{q, time.Since(start), st.driver})
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].d < rs[j].d })
		fmt.Printf("tmpl %d p50 %v p90 %v max %v\n", ti, rs[len(rs)/2].d, rs[len(rs)*9/10].d, rs[len(rs)-1].d)
		for _, x := range rs[len(rs)-3:] {
			fmt.Printf("    %v %s %q\n", x.d, x.drv, x.q)
		}
	}
}
