package main

import (
	"context"
	"log/slog"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
)

func openPostgres(ctx context.Context, url string, log *slog.Logger) (store, error) {
	return postgres.Open(ctx, url, log)
}

// newLimiter picks the rate limiter for a store: PostgreSQL keeps the
// counters in the database so that every replica sees the same limits; a
// SQLite file is served by one process, which keeps them in memory.
func newLimiter(s social.Store) (billing.Limiter, error) {
	if pg, ok := s.(*postgres.Store); ok {
		return pg.Limiter(), nil
	}
	return billing.NewMemoryLimiter(0, nil), nil
}
