package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/billing"
)

// Limiter is a rate limiter whose state is in the database, so that every
// replica sharing it enforces one limit per key: a token bucket row per
// key (billing.Bucket's arithmetic, in SQL), refilled and taken from by one
// atomic upsert per request. The row lock orders concurrent requests of a
// key across replicas. It satisfies billing.Limiter.
type Limiter struct {
	s   *Store
	now func() time.Time
}

// Limiter returns the store's shared rate limiter.
func (s *Store) Limiter() *Limiter { return &Limiter{s: s, now: time.Now} }

// bucketSQL refills the key's bucket for the time since its last request
// (at $4 tokens per µs, up to the capacity $2) and takes one token when at
// least one is there; a new key starts full. In the update, excluded holds
// the inserted values: tokens + 1 is the capacity, updated_at is now. A
// replica whose clock is behind never refills backwards.
const bucketSQL = `INSERT INTO rate_buckets AS b (key_id, tokens, updated_at, allowed)
	VALUES ($1, $2::float8 - 1, $3::bigint, true)
	ON CONFLICT (key_id) DO UPDATE SET
		tokens = ` + refilled + ` - CASE WHEN ` + refilled + ` >= 1 THEN 1 ELSE 0 END,
		allowed = ` + refilled + ` >= 1,
		updated_at = greatest(b.updated_at, excluded.updated_at)
	RETURNING tokens, allowed`

// refilled is the bucket's tokens before the request (in bucketSQL).
const refilled = `least(excluded.tokens + 1, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * $4::float8)`

// Allow takes one token from the key's bucket (<= 0: no limit).
func (l *Limiter) Allow(ctx context.Context, keyID int64, perMinute int) (billing.Decision, error) {
	if perMinute <= 0 {
		return billing.Decision{Allowed: true}, nil
	}
	capacity := float64(perMinute)
	var tokens float64
	var allowed bool
	err := l.s.pool.QueryRow(ctx, bucketSQL, keyID, capacity, l.now().UnixMicro(),
		capacity/float64(time.Minute.Microseconds())).Scan(&tokens, &allowed)
	if err != nil {
		return billing.Decision{}, fmt.Errorf("postgres: rate limit of key %d: %w", keyID, unavailable(err))
	}
	return billing.State(perMinute, tokens, allowed), nil
}
