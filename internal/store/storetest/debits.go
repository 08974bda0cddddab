package storetest

import (
	"context"
	"crypto/sha256"
	"errors"
	"strconv"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// DebitBatch checks an engine's batch of debits (apply: the function its
// sqlstore.DebitBatcher runs) on s: one batch of debits of several keys is
// decided in order as the debits one at a time would be: a debit the
// balance no longer covers refused, a revoked key refused, a request id
// charged before (or earlier in the batch) refused, and the ledger's
// balance_after following each key.
func DebitBatch(t *testing.T, s social.Store, apply func([]social.Debit, []sqlstore.DebitResult)) {
	t.Helper()
	ctx := context.Background()
	// b is made first, so that its id sorts before a's.
	b, a, gone := NewKey(t, s, "b", 50), NewKey(t, s, "a", 100), NewKey(t, s, "gone", 100)
	if err := s.Revoke(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: b, Amount: 10, RequestID: "old", Endpoint: "x", Items: 1}); err != nil {
		t.Fatal(err)
	}
	batch := []social.Debit{
		{KeyID: a, Amount: 60, RequestID: "r1"},
		{KeyID: b, Amount: 10, RequestID: "old"}, // charged before
		{KeyID: a, Amount: 60, RequestID: "r2"},  // 40 left: refused
		{KeyID: a, Amount: 5, RequestID: "r1"},   // r1 earlier in the batch
		{KeyID: gone, Amount: 1, RequestID: "r3"},
		{KeyID: b, Amount: 40, RequestID: "r4"},
		{KeyID: a, Amount: 40, RequestID: "r5"},
		{KeyID: b, Amount: 1},
	}
	for i := range batch {
		batch[i].Endpoint, batch[i].Items = "user_tweets", 1
	}
	results := make([]sqlstore.DebitResult, len(batch))
	apply(batch, results)
	want := []string{"balance 40", "conflict", "insufficient", "conflict", "insufficient", "balance 0", "balance 0", "insufficient"}
	for i, r := range results {
		if got := DebitOutcome(r); got != want[i] {
			t.Errorf("debit %d (%+v): %s, want %s", i, batch[i], got, want[i])
		}
	}
	for id, wantBal := range map[int64]int64{a: 0, b: 0, gone: 100} {
		k, err := s.Key(ctx, id)
		if err != nil || k.Balance != wantBal {
			t.Errorf("key %d: balance %d, %v; want %d", id, k.Balance, err, wantBal)
		}
	}
	after := DebitBalances(t, s, a)
	if len(after) != 2 || after[0] != 40 || after[1] != 0 {
		t.Errorf("key a's debits leave balances %v, want [40 0]", after)
	}
}

// DebitBalances is the balance after each debit in key's ledger, in order.
func DebitBalances(t testing.TB, s social.Accounts, key int64) []int64 {
	t.Helper()
	ledger, err := s.Ledger(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	var after []int64
	for _, l := range ledger {
		if l.Kind == social.LedgerDebit {
			after = append(after, l.BalanceAfter)
		}
	}
	return after
}

// NewKey creates a key named name with credit and returns its id.
func NewKey(t testing.TB, s social.Accounts, name string, credit int64) int64 {
	t.Helper()
	k, err := s.CreateKey(context.Background(), social.APIKey{Name: name, Prefix: "roost_" + name, Digest: sha256.Sum256([]byte(name))}, credit)
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// DebitOutcome names a debit's result: "balance N", "conflict",
// "insufficient" or the error's text.
func DebitOutcome(r sqlstore.DebitResult) string {
	switch {
	case errors.Is(r.Err, social.ErrConflict):
		return "conflict"
	case errors.Is(r.Err, social.ErrInsufficientBalance):
		return "insufficient"
	case r.Err != nil:
		return r.Err.Error()
	}
	return "balance " + strconv.FormatInt(r.Balance, 10)
}
