package billing

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limiter decides whether a key may make one more request now, given its
// limit in requests per minute. When it may not, retryAfter says how long
// until it may. An implementation shared by several replicas keeps its
// state in a shared database.
type Limiter interface {
	Allow(ctx context.Context, keyID int64, perMinute int) (ok bool, retryAfter time.Duration, err error)
}

// MemoryLimiter is a token bucket per key held in memory, for a single
// replica: each key holds up to perMinute tokens, refilled continuously at
// perMinute per minute, and a request takes one. It is safe for concurrent
// use and holds at most MaxKeys buckets: when full, buckets that have
// refilled completely (which are equivalent to no bucket) are dropped
// first, then arbitrary ones (which can only grant, never refuse, extra
// requests).
type MemoryLimiter struct {
	now     func() time.Time
	maxKeys int

	mu      sync.Mutex
	buckets map[int64]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// DefaultMaxKeys bounds the buckets a MemoryLimiter keeps.
const DefaultMaxKeys = 100_000

// NewMemoryLimiter makes a limiter keeping at most maxKeys buckets
// (DefaultMaxKeys when maxKeys <= 0), reading time from now (time.Now when
// nil).
func NewMemoryLimiter(maxKeys int, now func() time.Time) *MemoryLimiter {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryLimiter{now: now, maxKeys: maxKeys, buckets: make(map[int64]*bucket)}
}

// Allow takes one token from the key's bucket. A perMinute <= 0 means no
// limit.
func (l *MemoryLimiter) Allow(_ context.Context, keyID int64, perMinute int) (bool, time.Duration, error) {
	if perMinute <= 0 {
		return true, 0, nil
	}
	now := l.now()
	capacity := float64(perMinute)
	rate := capacity / float64(time.Minute) // tokens per nanosecond

	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[keyID]
	if b == nil {
		if len(l.buckets) >= l.maxKeys {
			l.evict(now)
		}
		b = &bucket{tokens: capacity, last: now}
		l.buckets[keyID] = b
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = math.Min(capacity, b.tokens+float64(elapsed)*rate)
		b.last = now
	}
	if b.tokens > capacity { // the key's limit was lowered
		b.tokens = capacity
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	wait := time.Duration(math.Ceil((1 - b.tokens) / rate))
	return false, wait, nil
}

// evict makes room for one bucket; l.mu is held.
func (l *MemoryLimiter) evict(now time.Time) {
	for id, b := range l.buckets {
		// A bucket idle for a minute has refilled whatever its limit.
		if now.Sub(b.last) >= time.Minute {
			delete(l.buckets, id)
		}
	}
	for id := range l.buckets {
		if len(l.buckets) < l.maxKeys {
			break
		}
		delete(l.buckets, id)
	}
}

// Len is the number of buckets held.
func (l *MemoryLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
