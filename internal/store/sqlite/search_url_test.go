package sqlite

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/dev/searchtest"
	"github.com/roostapi/roost/internal/social"
)

// TestSearchURL checks url: through the trigram index: substring and case
// semantics, '_' for '-', the driver chosen, too-short and non-ASCII values
// answered without it, and the index following a post's new URLs.
func TestSearchURL(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	post := func(id int64, urls ...string) social.Post {
		p := social.Post{ID: id, AuthorID: 1, CreatedAt: t0.Add(time.Duration(id) * time.Second), Text: "see link"}
		for _, u := range urls {
			p.Entities.URLs = append(p.Entities.URLs, social.URL{URL: "https://t.co/x", ExpandedURL: u})
		}
		return p
	}
	b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "alice", CreatedAt: t0}}, Posts: []social.Post{
		post(1, "https://github.com/x"),
		post(2, "https://notgithub.com/"),
		post(3, "https://x.com/sofia-dev"),
		post(4, "HTTPS://GitHub.COM/Upper"),
		post(5, "https://example.org/café/ü"),
		post(6, "https://x.com/sofia_dev", "https://golang.org"),
		post(7),
	}}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	check := func(query, driver string, want ...int64) {
		t.Helper()
		q := latestDriven(t, s, query, driver)
		for _, o := range []social.Order{social.Latest, social.Top} {
			if got := searchtest.FirstPageIDs(t, s, q, o); !slices.Equal(got, want) {
				t.Errorf("%q %v: got %v, want %v", query, o, got, want)
			}
		}
	}
	check("url:github.com", "url", 1, 2, 4)
	check("url:GITHUB", "url", 1, 2, 4)
	check("url:sofia_dev", "url", 3, 6)
	check("url:sofia-dev", "url", 3)
	check("url:gi", "scan", 1, 2, 4)
	check("url:café", "scan", 5)
	check("url:golang.org", "url", 6)
	check("url:github.com OR url:golang", "scan", 1, 2, 4, 6)

	// A newer copy with other URLs: the index follows it.
	b = &social.Batch{Posts: []social.Post{post(1, "https://codeberg.org/x")}}
	b.Posts[0].FavoriteCount = 1
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	check("url:github.com", "url", 2, 4)
	check("url:codeberg", "url", 1)

	// The migration's fill of post_urls gives the same answers.
	if _, err := s.write.ExecContext(ctx, `DELETE FROM post_urls`); err != nil {
		t.Fatal(err)
	}
	check("url:codeberg", "url")
	m, err := migrationFiles.ReadFile("migrations/0005_post_urls.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.ExecContext(ctx, `DROP TABLE post_urls; `+string(m)); err != nil {
		t.Fatal(err)
	}
	check("url:github.com", "url", 2, 4)
	check("url:codeberg", "url", 1)
	check("url:sofia_dev", "url", 3, 6)
}
