package sqlite

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
	"github.com/roostapi/roost/storetest"
)

// TestCheckpointInBackground: commits of the write connection never copy
// the log into the database (it grows past SQLite's default of 1,000
// pages while the checkpointer is paused), and the checkpointer copies it
// once it runs.
func TestCheckpointInBackground(t *testing.T) {
	s := openTest(t)
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
// it passes restartFrames, instead of growing with every write.
func TestCheckpointRestart(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	key := storetest.NewKey(t, s, "k", 1<<60)
	restarts := make(chan bool, 1000)
	s.ckpt.mu.Lock()
	s.ckpt.restartFrames = 256
	s.ckpt.restarted = func(ok bool) { restarts <- ok }
	s.ckpt.mu.Unlock()
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
			if _, err := s.Reader.Versions(ctx); err != nil {
				readers <- err
				return
			}
		}
	}()
	frames := 0
	out := make([]sqlstore.DebitResult, 6)
	for i := 0; frames < 20000; i++ {
		batch := make([]social.Debit, len(out))
		for j := range batch {
			batch[j] = social.Debit{KeyID: key, Amount: 1, RequestID: fmt.Sprintf("%016x", i*len(out)+j), Endpoint: "x", Items: 1}
		}
		if err := s.debits.apply(batch, out); err != nil {
			t.Fatal(err)
		}
		frames += 5 // at least: the key, the ledger and its three indexes
	}
	close(stop)
	if err := <-readers; err != nil {
		t.Fatal(err)
	}
	ok := 0
	t.Logf("restart attempts: %d", len(restarts))
	for len(restarts) > 0 {
		if <-restarts {
			ok++
		}
	}
	if ok == 0 {
		t.Error("no RESTART checkpoint succeeded")
	}
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if pages := fi.Size() / 4096; pages > int64(frames)/2 {
		t.Errorf("the log grew to %d pages for %d or more written; want it started over", pages, frames)
	}
}
