// Package admin is the one implementation of key administration: the
// `roost keys` commands and the admin HTTP API (served on its own
// listener) both call Service, so that both validate, create, top up,
// limit, revoke and rotate keys and read ledgers and usage alike.
package admin

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/social"
)

// Store is what administration needs of a database.
type Store interface {
	social.Accounts
	social.AccountAdmin
}

// Service administers the keys of one store and, with World and Data,
// its world: World creates and changes users, posts and relations (nil:
// those routes answer 404), Data deletes posts and users (nil: the
// delete routes answer 500), and with Snapshots saves and restores it
// (nil: those routes answer 404).
type Service struct {
	Store     Store
	World     *World
	Data      WorldData
	Snapshots social.Snapshots
}

// Bounds of what an operator may ask for.
const (
	// MaxLedgerPage is the most ledger rows one page holds.
	MaxLedgerPage = 1000
	// DefaultLedgerPage is the rows of a page when no limit is given.
	DefaultLedgerPage = 100
)

// Create makes a key with an opening credit (micro-USD, >= 0), a rate
// limit (requests per minute, 0: the server's default), a fault plan
// (package fault's text; "": none) and a name that any store can hold
// (social.CheckText). It returns the secret, shown once and
// never stored, with the account.
func (s *Service) Create(ctx context.Context, name string, credit int64, rateLimit int, faultPlan string) (string, social.APIKey, error) {
	if credit < 0 {
		return "", social.APIKey{}, fmt.Errorf("credits must not be negative: %w", social.ErrInvalid)
	}
	if rateLimit < 0 {
		return "", social.APIKey{}, fmt.Errorf("rate limit must not be negative: %w", social.ErrInvalid)
	}
	if err := social.CheckText(name); err != nil {
		return "", social.APIKey{}, fmt.Errorf("name %w", err)
	}
	plan, err := checkFault(faultPlan)
	if err != nil {
		return "", social.APIKey{}, err
	}
	secret, digest, prefix := billing.NewKey()
	k, err := s.Store.CreateKey(ctx, social.APIKey{Name: name, Prefix: prefix, Digest: digest, RateLimit: rateLimit,
		Fault: plan}, credit)
	if err != nil {
		return "", k, fmt.Errorf("create key: %w", err)
	}
	return secret, k, nil
}

// List is every key, oldest first.
func (s *Service) List(ctx context.Context) ([]social.APIKey, error) {
	return s.Store.Keys(ctx)
}

// Get is one key.
func (s *Service) Get(ctx context.Context, id int64) (social.APIKey, error) {
	return s.Store.Key(ctx, id)
}

// TopUp adds credit (micro-USD, > 0) to a key.
func (s *Service) TopUp(ctx context.Context, id, credit int64) (social.APIKey, error) {
	if credit <= 0 {
		return social.APIKey{}, fmt.Errorf("credits must be more than 0: %w", social.ErrInvalid)
	}
	return s.Store.TopUp(ctx, id, credit)
}

// SetRateLimit sets a key's requests per minute (0: the server default).
func (s *Service) SetRateLimit(ctx context.Context, id int64, perMinute int) (social.APIKey, error) {
	if perMinute < 0 {
		return social.APIKey{}, fmt.Errorf("rate limit must not be negative: %w", social.ErrInvalid)
	}
	return s.Store.SetRateLimit(ctx, id, perMinute)
}

// SetFault sets a key's fault plan (package fault's text, stored in its
// canonical form; "" or "none": no faults).
func (s *Service) SetFault(ctx context.Context, id int64, faultPlan string) (social.APIKey, error) {
	plan, err := checkFault(faultPlan)
	if err != nil {
		return social.APIKey{}, err
	}
	return s.Store.SetFault(ctx, id, plan)
}

// checkFault reads a fault plan and returns its canonical text; one that
// cannot be read is social.ErrInvalid naming the item at fault.
func checkFault(text string) (string, error) {
	p, err := fault.Parse(text)
	if err != nil {
		return "", fmt.Errorf("fault %w: %w", err, social.ErrInvalid)
	}
	return p.String(), nil
}

// Revoke revokes a key (its ledger stays) and returns it.
func (s *Service) Revoke(ctx context.Context, id int64) (social.APIKey, error) {
	if err := s.Store.Revoke(ctx, id); err != nil {
		return social.APIKey{}, err
	}
	return s.Store.Key(ctx, id)
}

// Rotate gives a live key a new secret, returned once; the old secret
// stops working at once, and the balance, limit and ledger stay.
func (s *Service) Rotate(ctx context.Context, id int64) (string, social.APIKey, error) {
	k, err := s.Store.Key(ctx, id)
	if err != nil {
		return "", k, err
	}
	if k.RevokedAt != nil {
		return "", k, fmt.Errorf("key %d is revoked: %w", id, social.ErrInvalid)
	}
	secret, digest, prefix := billing.NewKey()
	k, err = s.Store.RotateKey(ctx, id, digest, prefix)
	if err != nil {
		return "", k, fmt.Errorf("rotate key %d: %w", id, err)
	}
	return secret, k, nil
}

// Ledger is one page of a key's ledger (f.Limit 0: DefaultLedgerPage, at
// most MaxLedgerPage).
func (s *Service) Ledger(ctx context.Context, f social.LedgerFilter) (social.Page[social.LedgerEntry], error) {
	if _, err := s.Store.Key(ctx, f.KeyID); err != nil {
		return social.Page[social.LedgerEntry]{}, err
	}
	switch {
	case f.Limit == 0:
		f.Limit = DefaultLedgerPage
	case f.Limit < 0 || f.Limit > MaxLedgerPage:
		return social.Page[social.LedgerEntry]{}, fmt.Errorf("limit must be 1 to %d: %w", MaxLedgerPage, social.ErrInvalid)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return social.Page[social.LedgerEntry]{}, fmt.Errorf("since must be before until: %w", social.ErrInvalid)
	}
	if err := social.CheckText(f.Endpoint); err != nil {
		return social.Page[social.LedgerEntry]{}, fmt.Errorf("endpoint %w", err)
	}
	return s.Store.LedgerPage(ctx, f)
}

// Usage is what keys spent by key, endpoint and UTC day.
func (s *Service) Usage(ctx context.Context, f social.UsageFilter) ([]social.Usage, error) {
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return nil, fmt.Errorf("since must be before until: %w", social.ErrInvalid)
	}
	if err := social.CheckText(f.Endpoint); err != nil {
		return nil, fmt.Errorf("endpoint %w", err)
	}
	return s.Store.Usage(ctx, f)
}
