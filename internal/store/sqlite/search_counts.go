package sqlite

import (
	"context"
	"fmt"
	"sync"
)

// countCache keeps the counts that choose a Top page's plan (the
// candidate drivers' rows in range, and the driver's rows in the best
// bucket) under the content version they were read at: the next pages of
// a query, whose counts are the same, plan without counting again while
// nothing is written (on 10M posts the counts were a quarter of a Top
// page's time). A count only chooses a plan, never a result.
type countCache struct {
	mu           sync.Mutex
	version      int64
	n            map[string]int64
	hits, misses int // for tests
}

// countCacheSize bounds the counts kept; the cache starts over when full.
const countCacheSize = 4096

func (c *countCache) get(version int64, key string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.n[key]
	ok = ok && c.version == version
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	return n, ok
}

// put keeps a count read at version; one read before a write that the
// cache has already seen is dropped.
func (c *countCache) put(version int64, key string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if version < c.version {
		return
	}
	if c.n == nil || version > c.version || len(c.n) >= countCacheSize {
		c.n, c.version = map[string]int64{}, version
	}
	c.n[key] = n
}

// reset forgets every count.
func (c *countCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.hits, c.misses = nil, 0, 0
}

// count is countIn, through the count cache when pl's counts may be kept
// (plan.counted).
func (s *Store) count(ctx context.Context, q rowQuerier, pl *plan, d access, lo, hi int64, limit int) (int64, error) {
	if !pl.counted {
		return countIn(ctx, q, d, lo, hi, limit)
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%#v\x00%d\x00%d\x00%d", d.cnt, d.est, d.cond.SQL, d.cond.Args, lo, hi, limit)
	if n, ok := s.counts.get(pl.version, key); ok {
		return n, nil
	}
	n, err := countIn(ctx, q, d, lo, hi, limit)
	if err == nil {
		s.counts.put(pl.version, key, n)
	}
	return n, err
}
