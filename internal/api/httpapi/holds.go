package httpapi

import "sync"

// keyHolds counts the requests each key has under way, so that one key
// cannot hold more than its share of the server (Config.MaxPerKey): its
// slots, the goroutines and buffers of bodies still arriving, its
// database connections.
type keyHolds struct {
	max int // < 0: no cap
	mu  sync.Mutex
	n   map[int64]int
}

func newKeyHolds(max int) *keyHolds { return &keyHolds{max: max, n: map[int64]int{}} }

// take counts one more request of key id, unless it has max under way.
func (h *keyHolds) take(id int64) bool {
	if h.max < 0 {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[id] >= h.max {
		return false
	}
	h.n[id]++
	return true
}

// put ends a request take counted.
func (h *keyHolds) put(id int64) {
	if h.max < 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n[id]--; h.n[id] <= 0 {
		delete(h.n, id)
	}
}
