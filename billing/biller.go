package billing

import (
	"context"
	"fmt"

	"roost/social"
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

// Charge debits the cost of items from the key, atomically and only if the
// balance covers it, with one ledger row naming the request and endpoint.
// It returns the amount taken and the balance after. Zero items cost
// nothing and touch nothing (balance after is then -1: not read). A
// balance that does not cover the cost is social.ErrInsufficientBalance.
func (b *Biller) Charge(ctx context.Context, keyID int64, requestID, endpoint string, items int) (amount, balance int64, err error) {
	if items <= 0 {
		return 0, -1, nil
	}
	amount = b.Cost(items)
	balance, err = b.Accounts.Debit(ctx, social.Debit{
		KeyID: keyID, RequestID: requestID, Endpoint: endpoint, Items: items, Amount: amount,
	})
	if err != nil {
		return 0, 0, fmt.Errorf("charge %d items to key %d: %w", items, keyID, err)
	}
	return amount, balance, nil
}
