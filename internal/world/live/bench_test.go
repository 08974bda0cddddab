package live

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world/gen"
)

// BenchmarkLive measures the events a second the living world sustains on
// each engine ("tick": make one event, reads included, and write it), beside
// its peer in the same run ("write": a batch of one new post and its
// author, written without the reads that choose them, the floor of a
// one-event transaction).
func BenchmarkLive(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) store
	}{
		{"sqlite", func(b *testing.B) store {
			s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "roost.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"postgres", func(b *testing.B) store {
			s, err := postgres.Open(context.Background(), storetest.FreshSchema(b, storetest.PostgresURL(b)), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, e := range engines {
		for _, mode := range []string{"tick", "write"} {
			b.Run(e.name+"/"+mode, func(b *testing.B) {
				ctx := context.Background()
				s := e.open(b)
				defer s.Close()
				cfg := gen.Config{Seed: 1, Users: 1000, Posts: 20000}
				if _, err := gen.Generate(ctx, s, cfg, nil); err != nil {
					b.Fatal(err)
				}
				lw, err := Open(ctx, s.World(), s, nil)
				if err != nil {
					b.Fatal(err)
				}
				u, err := s.User(ctx, lw.users[0])
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					if mode == "tick" {
						if _, err := lw.Step(ctx); err != nil {
							b.Fatal(err)
						}
						continue
					}
					ms := lw.baseMS + int64(i)*TickMS
					p := social.Post{ID: snowflake(ms, 1, 0), AuthorID: u.ID, CreatedAt: time.UnixMilli(ms).UTC(), Text: "a plain new post", Lang: "en"}
					p.ConversationID = p.ID
					u.StatusesCount++
					if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{p}, Users: []social.User{u}}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
