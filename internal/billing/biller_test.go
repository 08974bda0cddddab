package billing

import (
	"context"
	"errors"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

func TestBillerCharge(t *testing.T) {
	ctx := context.Background()
	acc := newFakeAccounts()
	k, _ := acc.CreateKey(ctx, social.APIKey{}, 5000)
	b := &Biller{Accounts: acc}
	if b.PerItem() != DefaultPrice || b.Cost(20) != 4000 {
		t.Fatalf("default price: PerItem %d, Cost(20) %d", b.PerItem(), b.Cost(20))
	}
	amount, bal, err := b.Charge(ctx, social.Debit{KeyID: k.ID, RequestID: "req-1", Endpoint: "user_tweets", Items: 20})
	if err != nil || amount != 4000 || bal != 1000 {
		t.Fatalf("Charge 20: %d, %d, %v; want 4000, 1000", amount, bal, err)
	}
	if _, _, err := b.Charge(ctx, social.Debit{KeyID: k.ID, RequestID: "req-2", Endpoint: "user_tweets", Items: 6}); !errors.Is(err, social.ErrInsufficientBalance) {
		t.Fatalf("Charge beyond balance: err %v, want ErrInsufficientBalance", err)
	}
	if amount, _, err := b.Charge(ctx, social.Debit{KeyID: k.ID, RequestID: "req-3", Endpoint: "user_tweets"}); err != nil || amount != 0 {
		t.Fatalf("Charge 0 items: %d, %v", amount, err)
	}
	if len(acc.ledger) != 1 {
		t.Fatalf("ledger has %d rows, want 1 (only the paid page)", len(acc.ledger))
	}
	e := acc.ledger[0]
	if e.RequestID != "req-1" || e.Endpoint != "user_tweets" || e.Items != 20 || e.Amount != 4000 {
		t.Errorf("ledger row %+v", e)
	}
	b.Price = 7
	if b.Cost(3) != 21 {
		t.Errorf("Cost(3) at price 7 = %d", b.Cost(3))
	}
}
