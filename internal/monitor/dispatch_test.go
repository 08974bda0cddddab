package monitor_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// lagging renders nothing until ready: a read replica behind the primary.
type lagging struct{ ready bool }

func (l *lagging) Posts(_ context.Context, ids []int64) (map[int64][]byte, error) {
	out := map[int64][]byte{}
	if l.ready {
		for _, id := range ids {
			out[id] = []byte(`{}`)
		}
	}
	return out, nil
}

func (l *lagging) User(*social.User) []byte { return []byte(`{}`) }

// TestDispatchWaitsForReadable: a change whose post cannot be read yet
// stops the dispatch (the position stays) until it can; nothing is lost.
func TestDispatchWaitsForReadable(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "d.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := st.Write(ctx, &social.Batch{Users: []social.User{{ID: 1, ScreenName: "a", CreatedAt: t0}}}); err != nil {
		t.Fatal(err)
	}
	r := &lagging{}
	svc := monitor.New(st.Monitors(), st, st, r, monitor.Options{AllowPrivate: true}, nil)
	if _, err := svc.CreateUser(ctx, 1, monitor.UserTweets, monitor.Target{UserID: 1}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 5, AuthorID: 1, CreatedAt: t0, Text: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if n, err := svc.DispatchOnce(ctx); n != 0 || err == nil {
		t.Fatalf("dispatched %d changes (%v) of a post not readable yet", n, err)
	}
	if seq, _ := st.Monitors().Cursor(ctx); seq != 0 {
		t.Fatalf("position moved to %d", seq)
	}
	r.ready = true
	if n, err := svc.DispatchOnce(ctx); n != 1 || err != nil {
		t.Fatalf("dispatched %d (%v)", n, err)
	}
	due, err := st.Monitors().Due(ctx, time.Now(), 10)
	if err != nil || len(due) != 1 || due[0].Event != monitor.EventNewTweet {
		t.Fatalf("outbox %+v %v", due, err)
	}
}
