package billing

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestMemoryLimiter(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := NewMemoryLimiter(0, clock.Now)
	for i := range 60 {
		d, _ := l.Allow(ctx, 1, 60)
		if !d.Allowed || d.Limit != 60 || d.Remaining != 59-i || d.Reset != time.Duration(i+1)*time.Second {
			t.Fatalf("request %d of 60: %+v", i+1, d)
		}
	}
	d, err := l.Allow(ctx, 1, 60)
	if d.Allowed || err != nil || d.RetryAfter != time.Second || d.Remaining != 0 || d.Reset != time.Minute {
		t.Fatalf("61st request: %+v, %v; want refused, retry 1s, full in 1m", d, err)
	}
	if d, _ := l.Allow(ctx, 2, 60); !d.Allowed {
		t.Fatal("another key is limited by key 1")
	}
	clock.Add(500 * time.Millisecond)
	if d, _ := l.Allow(ctx, 1, 60); d.Allowed || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("after 0.5s: %+v; want refused, 0.5s", d)
	}
	clock.Add(500 * time.Millisecond)
	if d, _ := l.Allow(ctx, 1, 60); !d.Allowed {
		t.Fatal("after 1s a token should have refilled")
	}
	if d, _ := l.Allow(ctx, 1, 0); !d.Allowed || d.Limit != 0 {
		t.Fatal("perMinute 0 means no limit")
	}
	clock.Add(time.Hour)
	for i := range 60 { // refills to capacity, never beyond
		if d, _ := l.Allow(ctx, 1, 60); !d.Allowed {
			t.Fatalf("after an hour, request %d refused", i+1)
		}
	}
	if d, _ := l.Allow(ctx, 1, 60); d.Allowed {
		t.Fatal("bucket refilled beyond its capacity")
	}
}

func TestMemoryLimiterBounded(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := NewMemoryLimiter(100, clock.Now)
	for id := range int64(1000) {
		l.Allow(ctx, id, 10)
		if id%10 == 0 {
			clock.Add(time.Minute)
		}
	}
	if n := l.Len(); n > 100 {
		t.Fatalf("limiter holds %d buckets, bound 100", n)
	}
}

func TestMemoryLimiterConcurrent(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := NewMemoryLimiter(0, clock.Now)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 50 {
				if d, _ := l.Allow(ctx, 7, 120); d.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if allowed.Load() != 120 {
		t.Fatalf("allowed %d of 1600 concurrent requests, want exactly 120", allowed.Load())
	}
}
