package storetest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func newKey(name string) social.APIKey {
	return social.APIKey{Name: name, Prefix: "roost_" + name[:min(4, len(name))], Digest: sha256.Sum256([]byte(name)), RateLimit: 60}
}

func testAccounts(t *testing.T, open Opener) {
	t.Run("Keys", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		k, err := s.CreateKey(ctx, newKey("first"), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if k.ID == 0 || k.Balance != 1000 || k.CreatedAt.IsZero() || k.RevokedAt != nil {
			t.Errorf("CreateKey = %+v", k)
		}
		_, err = s.CreateKey(ctx, newKey("first"), 5)
		wantErr(t, "CreateKey(same digest)", err, social.ErrConflict)
		_, err = s.CreateKey(ctx, newKey("neg"), -1)
		wantErr(t, "CreateKey(negative credit)", err, social.ErrInvalid)
		k2, err := s.CreateKey(ctx, newKey("second"), 0)
		if err != nil || k2.ID <= k.ID {
			t.Fatalf("CreateKey(second) = %+v, %v", k2, err)
		}
		got, err := s.KeyByDigest(ctx, newKey("first").Digest)
		if err != nil || got.ID != k.ID || got.Name != "first" || got.Prefix != "roost_firs" || got.RateLimit != 60 ||
			got.Balance != 1000 || !got.CreatedAt.Equal(k.CreatedAt) {
			t.Errorf("KeyByDigest = %+v, %v; created %+v", got, err, k)
		}
		_, err = s.KeyByDigest(ctx, sha256.Sum256([]byte("nobody")))
		wantErr(t, "KeyByDigest(unknown)", err, social.ErrNotFound)
		_, err = s.Key(ctx, 9999)
		wantErr(t, "Key(9999)", err, social.ErrNotFound)
		keys, err := s.Keys(ctx)
		if err != nil || len(keys) != 2 || keys[0].ID != k.ID || keys[1].ID != k2.ID {
			t.Errorf("Keys = %+v, %v", keys, err)
		}
		up, err := s.TopUp(ctx, k2.ID, 250)
		if err != nil || up.Balance != 250 {
			t.Errorf("TopUp = %+v, %v", up, err)
		}
		_, err = s.TopUp(ctx, 9999, 5)
		wantErr(t, "TopUp(9999)", err, social.ErrNotFound)
		_, err = s.TopUp(ctx, k2.ID, 0)
		wantErr(t, "TopUp(0)", err, social.ErrInvalid)
		if err := s.Revoke(ctx, k2.ID); err != nil {
			t.Fatal(err)
		}
		r, _ := s.Key(ctx, k2.ID)
		if r.RevokedAt == nil {
			t.Fatalf("revoked key has no RevokedAt")
		}
		first := *r.RevokedAt
		if err := s.Revoke(ctx, k2.ID); err != nil {
			t.Fatal(err)
		}
		r, _ = s.Key(ctx, k2.ID)
		if r.RevokedAt == nil || !r.RevokedAt.Equal(first) {
			t.Errorf("a second Revoke moved the time: %v, was %v", r.RevokedAt, first)
		}
		wantErr(t, "Revoke(9999)", s.Revoke(ctx, 9999), social.ErrNotFound)
		_, err = s.Debit(ctx, social.Debit{KeyID: k2.ID, Amount: 1})
		wantErr(t, "Debit(revoked)", err, social.ErrInsufficientBalance)
	})

	t.Run("Debit", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		k, err := s.CreateKey(ctx, newKey("payer"), 100)
		if err != nil {
			t.Fatal(err)
		}
		bal, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r1", Endpoint: "/social/search", Items: 20, Amount: 60})
		if err != nil || bal != 40 {
			t.Errorf("Debit(60) = %d, %v", bal, err)
		}
		_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 41})
		wantErr(t, "Debit(over the balance)", err, social.ErrInsufficientBalance)
		_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 0})
		wantErr(t, "Debit(0)", err, social.ErrInvalid)
		_, err = s.Debit(ctx, social.Debit{KeyID: 9999, Amount: 1})
		if err == nil {
			t.Errorf("Debit(unknown key) succeeded")
		}
		bal, err = s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r2", Amount: 40})
		if err != nil || bal != 0 {
			t.Errorf("Debit(exact balance) = %d, %v", bal, err)
		}
		if _, err := s.TopUp(ctx, k.ID, 5); err != nil {
			t.Fatal(err)
		}
		// A request is charged once per key; without an id, any number.
		_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r1", Amount: 1})
		wantErr(t, "Debit(request charged already)", err, social.ErrConflict)
		k2, err := s.CreateKey(ctx, newKey("other payer"), 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Debit(ctx, social.Debit{KeyID: k2.ID, RequestID: "r1", Amount: 1}); err != nil {
			t.Errorf("Debit(the same request id, another key) = %v", err)
		}
		led, err := s.Ledger(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		kinds := ""
		for _, e := range led {
			kinds += e.Kind[:1]
		}
		if kinds != "cddc" {
			t.Fatalf("ledger kinds %q, want cddc: %+v", kinds, led)
		}
		d := led[1]
		if d.RequestID != "r1" || d.Endpoint != "/social/search" || d.Items != 20 || d.Amount != 60 || d.BalanceAfter != 40 || d.KeyID != k.ID || d.CreatedAt.IsZero() {
			t.Errorf("debit row %+v", d)
		}
		checkLedger(t, s, k.ID)
	})

	t.Run("ConcurrentDebits", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		k, err := s.CreateKey(ctx, newKey("crowd"), 100)
		if err != nil {
			t.Fatal(err)
		}
		const workers, amount = 32, 7
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: fmt.Sprint("c", i), Amount: amount})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case errors.Is(err, social.ErrInsufficientBalance):
					refused++
				default:
					t.Errorf("debit: %v", err)
				}
			}()
		}
		wg.Wait()
		if ok != 100/amount || refused != workers-ok {
			t.Errorf("%d debits taken and %d refused, want %d and %d", ok, refused, 100/amount, workers-100/amount)
		}
		got, _ := s.Key(ctx, k.ID)
		if got.Balance != 100-int64(ok)*amount {
			t.Errorf("balance %d after %d debits of %d from 100", got.Balance, ok, amount)
		}
		checkLedger(t, s, k.ID)
	})
}

// checkLedger asserts balance = credits − debits and that each row's
// balance_after follows from the one before.
func checkLedger(t *testing.T, s social.Store, keyID int64) {
	t.Helper()
	ctx := ctxFor(t)
	led, err := s.Ledger(ctx, keyID)
	if err != nil {
		t.Fatal(err)
	}
	var bal int64
	for _, e := range led {
		switch e.Kind {
		case social.LedgerCredit:
			bal += e.Amount
		case social.LedgerDebit:
			bal -= e.Amount
		default:
			t.Errorf("ledger row of kind %q", e.Kind)
		}
		if e.BalanceAfter != bal {
			t.Errorf("ledger row %d: balance_after %d, running balance %d", e.ID, e.BalanceAfter, bal)
		}
	}
	k, err := s.Key(ctx, keyID)
	if err != nil {
		t.Fatal(err)
	}
	if k.Balance != bal {
		t.Errorf("key balance %d, ledger says %d", k.Balance, bal)
	}
}
