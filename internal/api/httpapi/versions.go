package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// versionReader shares reads of the store's change counters among the
// requests that want them at once, without giving any request a value
// older than itself: a request waits for a read that began after it
// asked (the one running may have begun before), so the value reflects
// every write that ended before the request began. Reads run back to back
// while requests wait for them, one at a time, however many requests
// arrive meanwhile.
type versionReader struct {
	read func(context.Context) (social.Versions, error)

	mu      sync.Mutex
	running bool
	next    *versionRead // the read that begins when the running one ends
}

// versionRead is one read and the requests waiting for it.
type versionRead struct {
	done chan struct{}
	v    social.Versions
	err  error
}

// get returns the counters as a read begun after the call read them.
func (r *versionReader) get(ctx context.Context) (social.Versions, error) {
	r.mu.Lock()
	if r.next == nil {
		r.next = &versionRead{done: make(chan struct{})}
	}
	mine := r.next
	if !r.running {
		r.running, r.next = true, nil
		r.mu.Unlock()
		// In a goroutine of its own: a read that outlives this caller
		// (it went away, the database hangs) is still one that others
		// may wait for, and the caller is free to leave.
		go r.run(mine)
	} else {
		r.mu.Unlock()
	}
	select {
	case <-mine.done:
		return mine.v, mine.err
	case <-ctx.Done():
		return social.Versions{}, ctx.Err()
	}
}

// versionReadTimeout bounds one read of the counters.
const versionReadTimeout = 10 * time.Second

// run makes read c, then, one after the other, the reads requests asked
// for meanwhile, until none is asked for.
func (r *versionReader) run(c *versionRead) {
	for c != nil {
		ctx, cancel := context.WithTimeout(context.Background(), versionReadTimeout)
		c.v, c.err = r.read(ctx)
		cancel()
		close(c.done)
		r.mu.Lock()
		c, r.next = r.next, nil
		r.running = c != nil
		r.mu.Unlock()
	}
}
