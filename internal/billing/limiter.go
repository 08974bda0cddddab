package billing

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limiter decides whether a key may make one more request now, given its
// limit in requests per minute (<= 0: no limit). An implementation shared
// by several replicas keeps its state in a shared database.
type Limiter interface {
	Allow(ctx context.Context, keyID int64, perMinute int) (Decision, error)
}

// Decision is a limiter's answer and the state of the key's bucket after
// it, for the X-RateLimit-* headers.
type Decision struct {
	Allowed bool
	// Limit is the requests per minute applied; 0 when there is no limit
	// (and the other fields say nothing).
	Limit int
	// Remaining is how many requests the key could make at once now.
	Remaining int
	// Reset is how long until the bucket is full again.
	Reset time.Duration
	// RetryAfter is, for a refused request, how long until one is allowed.
	RetryAfter time.Duration
}

// Bucket is the arithmetic of a token bucket that holds up to perMinute
// tokens, refilled continuously at perMinute per minute: a request takes
// one token when at least one is there. Given the tokens left after the
// key's last request and the time since, Bucket returns the tokens left
// now and the decision.
func Bucket(perMinute int, tokens float64, elapsed time.Duration) (float64, Decision) {
	capacity := float64(perMinute)
	if elapsed > 0 {
		tokens += float64(elapsed) * capacity / float64(time.Minute)
	}
	tokens = math.Min(tokens, capacity)
	allowed := tokens >= 1
	if allowed {
		tokens--
	}
	return tokens, State(perMinute, tokens, allowed)
}

// State is the decision of a bucket of perMinute (> 0) left with tokens
// after a request that was allowed or not (see Bucket).
func State(perMinute int, tokens float64, allowed bool) Decision {
	rate := float64(perMinute) / float64(time.Minute) // tokens per nanosecond
	d := Decision{Allowed: allowed, Limit: perMinute, Remaining: max(int(math.Floor(tokens)), 0),
		Reset: time.Duration(math.Ceil((float64(perMinute) - tokens) / rate))}
	if !allowed {
		d.RetryAfter = time.Duration(math.Ceil((1 - tokens) / rate))
	}
	return d
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

// Allow takes one token from the key's bucket (see Bucket).
func (l *MemoryLimiter) Allow(_ context.Context, keyID int64, perMinute int) (Decision, error) {
	if perMinute <= 0 {
		return Decision{Allowed: true}, nil
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[keyID]
	if b == nil {
		if len(l.buckets) >= l.maxKeys {
			l.evict(now)
		}
		b = &bucket{tokens: float64(perMinute), last: now}
		l.buckets[keyID] = b
	}
	tokens, d := Bucket(perMinute, b.tokens, now.Sub(b.last))
	b.tokens = tokens
	if now.After(b.last) {
		b.last = now
	}
	return d, nil
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
