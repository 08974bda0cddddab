package billing

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// DefaultPrice is the price of one returned item: 0.0002 USD.
const DefaultPrice int64 = 200

// Biller charges pages of results to API keys.
type Biller struct {
	Accounts social.Accounts
	// Price is micro-USD per item; 0 means DefaultPrice.
	Price int64
}

// PerItem is the price of one item.
func (b *Biller) PerItem() int64 {
	if b.Price > 0 {
		return b.Price
	}
	return DefaultPrice
}

// Cost is the price of a page of items.
func (b *Biller) Cost(items int) int64 { return int64(items) * b.PerItem() }

// Charge debits the cost of d.Items from the key d.KeyID, atomically and
// only if the balance covers it, with one ledger row naming the request
// and endpoint (and d.Response kept in the same transaction, when set). It
// returns the amount taken and the balance after. Zero items cost nothing
// and touch nothing (balance after is then -1: not read). A balance that
// does not cover the cost is social.ErrInsufficientBalance.
func (b *Biller) Charge(ctx context.Context, d social.Debit) (amount, balance int64, err error) {
	if d.Items <= 0 {
		return 0, -1, nil
	}
	d.Amount = b.Cost(d.Items)
	balance, err = b.Accounts.Debit(ctx, d)
	if err != nil {
		return 0, 0, fmt.Errorf("charge %d items to key %d: %w", d.Items, d.KeyID, err)
	}
	return d.Amount, balance, nil
}
