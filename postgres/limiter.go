package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// Limiter is a rate limiter whose state is in the database, so that every
// replica sharing it enforces one limit per key: a fixed-window counter row
// per key and minute, bumped by one atomic upsert per request. It satisfies
// billing.Limiter.
type Limiter struct {
	s     *Store
	now   func() time.Time
	calls atomic.Uint64
}

// Limiter returns the store's shared rate limiter.
func (s *Store) Limiter() *Limiter { return &Limiter{s: s, now: time.Now} }

// pruneEvery is how many calls pass between removals of old windows.
const pruneEvery = 1024

// Allow counts one request of the key in the current minute and allows it
// while the minute's count is within perMinute (<= 0: no limit). When it
// refuses, retryAfter is the time to the next minute.
func (l *Limiter) Allow(ctx context.Context, keyID int64, perMinute int) (bool, time.Duration, error) {
	if perMinute <= 0 {
		return true, 0, nil
	}
	now := l.now()
	minute := now.Unix() / 60
	if l.calls.Add(1)%pruneEvery == 0 {
		if _, err := l.s.pool.Exec(ctx, `DELETE FROM rate_windows WHERE minute < $1`, minute-1); err != nil {
			l.s.log.Warn("prune rate windows", "err", err)
		}
	}
	var n int64
	err := l.s.pool.QueryRow(ctx, `INSERT INTO rate_windows (key_id, minute, requests) VALUES ($1, $2, 1)
		ON CONFLICT (key_id, minute) DO UPDATE SET requests = rate_windows.requests + 1
		RETURNING requests`, keyID, minute).Scan(&n)
	if err != nil {
		return false, 0, fmt.Errorf("postgres: rate limit of key %d: %w", keyID, err)
	}
	if n <= int64(perMinute) {
		return true, 0, nil
	}
	next := time.Unix((minute+1)*60, 0)
	return false, next.Sub(now), nil
}
