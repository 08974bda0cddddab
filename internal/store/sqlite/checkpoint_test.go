package sqlite

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
)

// TestCheckpointInBackground: commits of the write connection never copy
// the log into the database (it grows past SQLite's default of 1,000
// pages while the checkpointer is paused), and the checkpointer copies it
// once it runs.
func TestCheckpointInBackground(t *testing.T) {
	s := openTuned(t)
	ctx := context.Background()
	s.ckpt.pause()
	copied := make(chan int, 100)
	s.ckpt.mu.Lock()
	s.ckpt.ran = func(_, n int) {
		select {
		case copied <- n:
		default:
		}
	}
	s.ckpt.mu.Unlock()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	text := fmt.Sprintf("%0400d", 0) // a few posts a page
	for i := range 400 {
		b := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "w", CreatedAt: at}}}
		for j := range 20 {
			id := int64(1 + i*20 + j)
			b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1, CreatedAt: at.Add(time.Duration(id) * time.Second),
				Text: text + fmt.Sprint(id)})
		}
		if _, err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if pages := fi.Size() / 4096; pages < 1500 {
		t.Fatalf("the log holds %d pages after the writes; want more than 1,500 (a commit checkpointed it)", pages)
	}
	if len(copied) > 0 {
		t.Fatal("the checkpointer ran while paused")
	}
	s.ckpt.resume()
	select {
	case n := <-copied:
		if n < 1500 {
			t.Errorf("the checkpointer copied %d frames; want the whole log", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no checkpoint within 10 s of resuming")
	}
}

// TestCheckpointRestart: under writes that never pause (debit batches back
// to back, a reader always somewhere in the log), the log starts over once
// it passes restartFrames, instead of growing with every write: a
// checkpoint after a restart finds fewer frames in the log than one
// before it. Debits write the billing file: its checkpointer is watched.
func TestCheckpointRestart(t *testing.T) {
	s := openTuned(t)
	ctx := context.Background()
	key := storetest.NewKey(t, s, "k", 1<<60)
	var (
		mu                 sync.Mutex
		restarts, most     int
		startedOver        bool
		afterRestart, seen bool
	)
	s.bckpt.mu.Lock()
	s.bckpt.restartFrames = 256
	s.bckpt.ran = func(logFrames, _ int) {
		mu.Lock()
		defer mu.Unlock()
		if afterRestart && seen && logFrames < most {
			startedOver = true
		}
		most, seen = max(most, logFrames), true
	}
	s.bckpt.restarted = func(ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if ok {
			restarts++
			afterRestart = true
		}
	}
	s.bckpt.mu.Unlock()
	stop := make(chan struct{})
	readers := make(chan error, 1)
	go func() { // reads back to back, as paid requests read the counters
		for {
			select {
			case <-stop:
				readers <- nil
				return
			default:
			}
			if _, err := s.Versions(ctx); err != nil {
				readers <- err
				return
			}
		}
	}()
	out := make([]sqlstore.DebitResult, 6)
	deadline := time.Now().Add(20 * time.Second)
	for i := 0; ; i++ {
		mu.Lock()
		done := startedOver
		mu.Unlock()
		if done || time.Now().After(deadline) {
			break
		}
		batch := make([]social.Debit, len(out))
		for j := range batch {
			batch[j] = social.Debit{KeyID: key, Amount: 1, RequestID: fmt.Sprintf("%016x", i*len(out)+j), Endpoint: "x", Items: 1}
		}
		if err := s.debits.apply(batch, out); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if err := <-readers; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if restarts == 0 {
		t.Fatal("no RESTART checkpoint succeeded in 20 s of writes")
	}
	if !startedOver {
		t.Errorf("after %d restarts the log never held fewer frames than its most, %d", restarts, most)
	}
}
