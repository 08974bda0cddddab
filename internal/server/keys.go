package server

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/api/admin"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
)

// DemoCredit is the opening credit of a server's first key, the demo
// key: 100 USD.
const DemoCredit = 100 * billing.MicrosPerUSD

// Empty reports whether s holds nothing at all: no users, posts or keys.
func Empty(ctx context.Context, s social.Store) (bool, error) {
	counts, err := s.Counts(ctx)
	if err != nil {
		return false, fmt.Errorf("count the database's rows: %w", err)
	}
	return counts["users"] == 0 && counts["posts"] == 0 && counts["api_keys"] == 0, nil
}

// DemoKey makes the key named "demo" with DemoCredit and the server's
// default rate limit, and returns its secret.
func DemoKey(ctx context.Context, s social.Store) (string, error) {
	key, _, err := (&admin.Service{Store: s}).Create(ctx, "demo", DemoCredit, 0, "")
	return key, err
}
