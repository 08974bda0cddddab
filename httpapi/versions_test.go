package httpapi

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/social"
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
	// A caller that leaves while it waits gets its context's error; the
	// reader goes on serving others.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.get(ctx); err == nil {
		// It ran the read itself (no read was running): that is an answer too.
		t.Log("a cancelled caller ran its own read")
	}
	if _, err := r.get(context.Background()); err != nil {
		t.Fatal(err)
	}
}
