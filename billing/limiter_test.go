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
		if ok, _, _ := l.Allow(ctx, 1, 60); !ok {
			t.Fatalf("request %d of 60 refused", i+1)
		}
	}
	ok, retry, err := l.Allow(ctx, 1, 60)
	if ok || err != nil || retry != time.Second {
		t.Fatalf("61st request: ok %v retry %v err %v; want refused, retry 1s", ok, retry, err)
	}
	if ok, _, _ := l.Allow(ctx, 2, 60); !ok {
		t.Fatal("another key is limited by key 1")
	}
	clock.Add(500 * time.Millisecond)
	if ok, retry, _ := l.Allow(ctx, 1, 60); ok || retry != 500*time.Millisecond {
		t.Fatalf("after 0.5s: ok %v retry %v; want refused, 0.5s", ok, retry)
	}
	clock.Add(500 * time.Millisecond)
	if ok, _, _ := l.Allow(ctx, 1, 60); !ok {
		t.Fatal("after 1s a token should have refilled")
	}
	if ok, _, _ := l.Allow(ctx, 1, 0); !ok {
		t.Fatal("perMinute 0 means no limit")
	}
	clock.Add(time.Hour)
	for i := range 60 { // refills to capacity, never beyond
		if ok, _, _ := l.Allow(ctx, 1, 60); !ok {
			t.Fatalf("after an hour, request %d refused", i+1)
		}
	}
	if ok, _, _ := l.Allow(ctx, 1, 60); ok {
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
				if ok, _, _ := l.Allow(ctx, 7, 120); ok {
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
