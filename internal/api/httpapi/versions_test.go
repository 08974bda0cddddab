package httpapi

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// TestVersionReaderFresh: every caller gets the value of a read that
// began after it asked (so no write that ended before a request began is
// missed), and callers at once share reads.
func TestVersionReaderFresh(t *testing.T) {
	var started atomic.Int64
	r := &versionReader{read: func(context.Context) (social.Versions, error) {
		n := started.Add(1)
		time.Sleep(200 * time.Microsecond)
		return social.Versions{Content: n, Keys: n}, nil
	}}
	const callers, rounds = 32, 50
	var wg sync.WaitGroup
	var stale atomic.Int64
	for range callers {
		wg.Go(func() {
			for range rounds {
				before := started.Load()
				v, err := r.get(context.Background())
				if err != nil || v.Content <= before {
					stale.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := stale.Load(); n > 0 {
		t.Errorf("%d of %d calls got a read begun before they asked", n, callers*rounds)
	}
	if n := started.Load(); n >= callers*rounds {
		t.Errorf("%d reads for %d calls: none shared", n, callers*rounds)
	}
	t.Logf("%d reads for %d calls", started.Load(), callers*rounds)
}

// TestVersionReaderLeave: a caller whose read hangs can leave (its
// context's error), and the others are served once the read ends.
func TestVersionReaderLeave(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int64
	r := &versionReader{read: func(context.Context) (social.Versions, error) {
		if n.Add(1) == 1 {
			<-release
		}
		return social.Versions{Content: n.Load()}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.get(ctx); err == nil {
		t.Fatal("a caller of a hung read got an answer")
	}
	got := make(chan social.Versions)
	go func() {
		v, _ := r.get(context.Background())
		got <- v
	}()
	close(release)
	select {
	case v := <-got:
		if v.Content != 2 {
			t.Errorf("the caller after the hung read got read %d, want the next one (2)", v.Content)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer after the hung read ended")
	}
}
