package storetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// BenchmarkRestoreSnapshot restores a snapshot of the database named by
// ROOST_BENCH_DB (a SQLite file or a postgres:// URL) over and over, and
// reports each restore's time as a share of the one-second ceiling the
// demo world's (100,000 posts) must stay under on SQLite. Before each
// restore, untimed, the world changes as a test changes it: a post made,
// one deleted, a follow and a profile changed. ROOST_BENCH_WIPE=1 deletes
// every post of the first 100 users instead (a restore that rewrites
// much of the world):
//
//	roost gen --db /tmp/demo.db
//	ROOST_BENCH_DB=/tmp/demo.db go test ./internal/store/storetest -run '^$' -bench RestoreSnapshot -benchtime 10x
//
// The snapshot "bench" is saved first when the database has none (the
// time of that save is logged), and dropped at the end.
func BenchmarkRestoreSnapshot(b *testing.B) {
	ctx := context.Background()
	s, ids := benchStore(b)
	if err := s.DropSnapshot(ctx, "bench"); err != nil && !errors.Is(err, social.ErrNotFound) {
		b.Fatal(err)
	}
	start := time.Now()
	snap, err := s.SaveSnapshot(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("saved %d users and %d posts in %v", snap.Users, snap.Posts, time.Since(start).Round(time.Millisecond))
	defer s.DropSnapshot(ctx, "bench")
	// The machine's other work lengthens the wall time: the process's
	// CPU time of the restores is reported too (cpu-s/op).
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		changeWorld(b, s, ids, i, os.Getenv("ROOST_BENCH_WIPE") == "1")
		c0 := cpuTime()
		b.StartTimer()
		if _, err := s.RestoreSnapshot(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	perOp := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(perOp)/float64(time.Second), "ceiling_ratio")
	b.ReportMetric(float64(snap.Posts), "posts")
}

// BenchmarkSnapshotWrites measures the writes of BenchmarkRestoreSnapshot
// (a post made, one deleted, a follow, a profile changed: one batch)
// with no snapshot ("none") and while one exists ("tracked": the
// triggers record each key written), on the database ROOST_BENCH_DB
// names. The tracked writes are undone (the snapshot is restored and
// dropped); the others stay: run it on a copy.
//
//	ROOST_BENCH_DB=/tmp/demo-copy.db go test ./internal/store/storetest -run '^$' -bench SnapshotWrites -benchtime 50x
func BenchmarkSnapshotWrites(b *testing.B) {
	s, ids := benchStore(b)
	ctx := context.Background()
	for _, tracked := range []bool{false, true} {
		name := map[bool]string{false: "none", true: "tracked"}[tracked]
		b.Run(name, func(b *testing.B) {
			if tracked {
				if _, err := s.SaveSnapshot(ctx, "bench-writes"); err != nil {
					b.Fatal(err)
				}
				defer func() {
					if _, err := s.RestoreSnapshot(ctx, "bench-writes"); err != nil {
						b.Error(err)
					}
					if err := s.DropSnapshot(ctx, "bench-writes"); err != nil {
						b.Error(err)
					}
				}()
			}
			c0 := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				changeWorld(b, s, ids, i, false)
			}
			b.StopTimer()
			b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// changeWorld changes the demo world as a test would (see
// BenchmarkRestoreSnapshot), or deletes much of it.
func changeWorld(b *testing.B, s social.Store, ids []int64, i int, wipe bool) {
	b.Helper()
	ctx := context.Background()
	var victims []int64
	users := ids[:1]
	if wipe {
		users = ids
	}
	for _, u := range users {
		pg, err := s.UserPosts(ctx, u, true, social.PageReq{Limit: 1000})
		if err != nil {
			b.Fatal(err)
		}
		for _, p := range pg.Items {
			victims = append(victims, p.ID)
		}
		if !wipe && len(victims) > 0 {
			victims = victims[:1]
		}
	}
	u, err := s.User(ctx, ids[1])
	if err != nil {
		b.Fatal(err)
	}
	u.Name = fmt.Sprintf("changed %d", i)
	batch := &social.Batch{
		Users:       []social.User{u},
		Posts:       []social.Post{{ID: 1<<60 + int64(i), AuthorID: ids[1], CreatedAt: time.Now(), Text: "a post of the test", Lang: "en"}},
		Follows:     []social.Follow{{FollowerID: ids[2], FolloweeID: ids[3], CreatedAt: time.Now()}},
		DeletePosts: victims,
	}
	if _, err := s.Write(ctx, batch); err != nil {
		b.Fatal(err)
	}
}

// benchStore opens the database ROOST_BENCH_DB names (closed when b
// ends), and reads the ids of its first 100 users that are not stubs.
func benchStore(b *testing.B) (interface {
	social.Store
	social.Snapshots
	World() sqlstore.World
}, []int64) {
	b.Helper()
	db := os.Getenv("ROOST_BENCH_DB")
	if db == "" {
		b.Skip("set ROOST_BENCH_DB to a generated database (SQLite file or postgres:// URL)")
	}
	ctx := context.Background()
	var s interface {
		social.Store
		social.Snapshots
		World() sqlstore.World
	}
	var err error
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		s, err = postgres.Open(ctx, db, nil)
	} else {
		s, err = sqlite.Open(ctx, db, nil)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	var ids []int64
	if err := s.World().Reader.DB.Query(ctx, `SELECT id FROM users WHERE NOT stub ORDER BY id LIMIT 100`, nil,
		func(r sqlstore.Rows) error {
			var id int64
			ids = append(ids, id)
			return r.Scan(&ids[len(ids)-1])
		}); err != nil || len(ids) < 100 {
		b.Fatalf("users: %v %v", len(ids), err)
	}
	return s, ids
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
