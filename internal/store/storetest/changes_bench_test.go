package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// BenchmarkChangeLog is the cost of the change log on the plain write
// path: batches of 100 new posts, 10 profiles and 50 new follows, with no
// monitor (one probe per write) and with one (every change logged).
func BenchmarkChangeLog(b *testing.B) {
	engines := map[string]func(b *testing.B) Store{
		"sqlite": func(b *testing.B) Store {
			s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
		"postgres": func(b *testing.B) Store {
			s, err := postgres.Open(context.Background(), FreshSchema(b, PostgresURL(b)), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, watched := range []bool{false, true} {
			name := engine + "/no-monitor"
			if watched {
				name = engine + "/monitor"
			}
			b.Run(name, func(b *testing.B) {
				s := engines[engine](b)
				defer s.Close()
				ctx := context.Background()
				t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
				if watched {
					err := s.Monitors().Create(ctx, monitor.Monitor{ID: "01hx1r99s0nsqq1ffdhmyyqbfr", KeyID: 1,
						Kind: "user_tweets", UserID: 1, Params: []byte("{}"), State: monitor.MonitorActive, CreatedAt: t0})
					if err != nil {
						b.Fatal(err)
					}
				}
				next := int64(1)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					batch := &social.Batch{}
					for u := range 10 {
						batch.Users = append(batch.Users, social.User{ID: int64(u + 1), ScreenName: "u", CreatedAt: t0})
					}
					for range 100 {
						batch.Posts = append(batch.Posts, social.Post{ID: next, AuthorID: next%10 + 1, CreatedAt: t0,
							Text: "a post of the benchmark", Lang: "en"})
						next++
					}
					for f := range 50 {
						batch.Follows = append(batch.Follows, social.Follow{FollowerID: int64(i*50 + f + 100), FolloweeID: 1, CreatedAt: t0})
					}
					if _, err := s.Write(ctx, batch); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
