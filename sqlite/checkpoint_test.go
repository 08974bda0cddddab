package sqlite

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/roostapi/roost/social"
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
