package billing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

func TestNewKey(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		key, digest, prefix := NewKey()
		if !strings.HasPrefix(key, KeyPrefix) || len(key) != len(KeyPrefix)+keyBodyLen {
			t.Fatalf("key %q: want %s + %d base62 digits", key, KeyPrefix, keyBodyLen)
		}
		if !ValidKey(key) {
			t.Fatalf("ValidKey(%q) = false", key)
		}
		if digest != Digest(key) {
			t.Fatalf("digest of %q differs from Digest", key)
		}
		if prefix != key[:DisplayPrefixLen] {
			t.Fatalf("prefix %q, want %q", prefix, key[:DisplayPrefixLen])
		}
		if seen[key] {
			t.Fatalf("key %q repeated", key)
		}
		seen[key] = true
	}
}

func TestBearerKey(t *testing.T) {
	key, _, _ := NewKey()
	tests := []struct {
		header string
		ok     bool
	}{
		{"Bearer " + key, true},
		{"bearer " + key, true},
		{"BEARER   " + key + " ", true},
		{"", false},
		{"Bearer", false},
		{"Bearer ", false},
		{key, false},
		{"Basic " + key, false},
		{"Bearer " + key + "x", false},
		{"Bearer " + key[:len(key)-1] + "!", false},
		{"Bearer roost_", false},
		{"Bearer " + strings.Replace(key, "roost_", "toast_", 1), false},
		{"Bearer " + key + " " + key, false},
	}
	for _, tt := range tests {
		got, err := BearerKey(tt.header)
		if tt.ok && (err != nil || got != key) {
			t.Errorf("BearerKey(%q) = %q, %v; want the key", tt.header, got, err)
		}
		if !tt.ok && !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("BearerKey(%q) = %q, %v; want ErrUnauthenticated", tt.header, got, err)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	acc := newFakeAccounts()
	live, d1, p1 := NewKey()
	revoked, d2, p2 := NewKey()
	unknown, _, _ := NewKey()
	k1, _ := acc.CreateKey(ctx, social.APIKey{Prefix: p1, Digest: d1}, 100)
	k2, _ := acc.CreateKey(ctx, social.APIKey{Prefix: p2, Digest: d2}, 100)
	if err := acc.Revoke(ctx, k2.ID); err != nil {
		t.Fatal(err)
	}
	got, err := Authenticate(ctx, acc, "Bearer "+live)
	if err != nil || got.ID != k1.ID {
		t.Fatalf("live key: got %+v, %v", got, err)
	}
	for _, h := range []string{"Bearer " + revoked, "Bearer " + unknown, "", "Bearer nope"} {
		if _, err := Authenticate(ctx, acc, h); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Authenticate(%q) err = %v, want ErrUnauthenticated", h, err)
		}
	}
	acc.fail = errors.New("disk on fire")
	if _, err := Authenticate(ctx, acc, "Bearer "+live); err == nil || errors.Is(err, ErrUnauthenticated) {
		t.Errorf("store failure: err = %v, want a wrapped store error", err)
	}
}

// fakeAccounts is an in-memory social.Accounts for unit tests.
type fakeAccounts struct {
	keys   []social.APIKey
	ledger []social.LedgerEntry
	fail   error
}

func newFakeAccounts() *fakeAccounts { return &fakeAccounts{} }

func (f *fakeAccounts) CreateKey(_ context.Context, k social.APIKey, credit int64) (social.APIKey, error) {
	k.ID = int64(len(f.keys) + 1)
	k.Balance = credit
	f.keys = append(f.keys, k)
	return k, nil
}

func (f *fakeAccounts) KeyByDigest(_ context.Context, d [32]byte) (social.APIKey, error) {
	if f.fail != nil {
		return social.APIKey{}, f.fail
	}
	for _, k := range f.keys {
		if k.Digest == d {
			return k, nil
		}
	}
	return social.APIKey{}, social.ErrNotFound
}

func (f *fakeAccounts) Key(_ context.Context, id int64) (social.APIKey, error) {
	if id < 1 || int(id) > len(f.keys) {
		return social.APIKey{}, social.ErrNotFound
	}
	return f.keys[id-1], nil
}

func (f *fakeAccounts) Keys(context.Context) ([]social.APIKey, error) { return f.keys, nil }

func (f *fakeAccounts) TopUp(_ context.Context, id, amount int64) (social.APIKey, error) {
	f.keys[id-1].Balance += amount
	return f.keys[id-1], nil
}

func (f *fakeAccounts) Revoke(_ context.Context, id int64) error {
	now := time.Now()
	f.keys[id-1].RevokedAt = &now
	return nil
}

func (f *fakeAccounts) Debit(_ context.Context, d social.Debit) (int64, error) {
	k := &f.keys[d.KeyID-1]
	if k.Balance < d.Amount {
		return 0, social.ErrInsufficientBalance
	}
	k.Balance -= d.Amount
	f.ledger = append(f.ledger, social.LedgerEntry{KeyID: d.KeyID, Kind: social.LedgerDebit, RequestID: d.RequestID,
		Endpoint: d.Endpoint, Items: d.Items, Amount: d.Amount, BalanceAfter: k.Balance})
	return k.Balance, nil
}

func (f *fakeAccounts) Ledger(context.Context, int64) ([]social.LedgerEntry, error) {
	return f.ledger, nil
}
