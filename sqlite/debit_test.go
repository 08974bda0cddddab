package sqlite

import (
	"context"
	"crypto/sha256"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/social"
)

// TestDebitBatch: one batch of debits of several keys is decided in order
// as the debits one at a time would be: a balance read once and moved by
// each, a debit the balance no longer covers refused, a revoked key
// refused, a request id charged before (or earlier in the batch)
// refused, and the ledger's balance_after following each key.
func TestDebitBatch(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	newKey := func(name string, credit int64) int64 {
		k, err := s.CreateKey(ctx, social.APIKey{Name: name, Prefix: "roost_" + name, Digest: sha256.Sum256([]byte(name))}, credit)
		if err != nil {
			t.Fatal(err)
		}
		return k.ID
	}
	a, b, gone := newKey("a", 100), newKey("b", 50), newKey("gone", 100)
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
	reqs := make([]*debitReq, len(batch))
	for i, d := range batch {
		d.Endpoint, d.Items = "user_tweets", 1
		reqs[i] = &debitReq{d: d, ctx: ctx, reply: make(chan debitResult, 1)}
	}
	results := make([]debitResult, len(reqs))
	if err := s.debits.apply(reqs, results); err != nil {
		t.Fatal(err)
	}
	want := []string{"balance 40", "conflict", "insufficient", "conflict", "insufficient", "balance 0", "balance 0", "insufficient"}
	for i, r := range results {
		got := ""
		switch {
		case errors.Is(r.err, social.ErrConflict):
			got = "conflict"
		case errors.Is(r.err, social.ErrInsufficientBalance):
			got = "insufficient"
		case r.err != nil:
			got = r.err.Error()
		default:
			got = "balance " + strconv.FormatInt(r.balance, 10)
		}
		if got != want[i] {
			t.Errorf("debit %d (%+v): %s, want %s", i, batch[i], got, want[i])
		}
	}
	for id, wantBal := range map[int64]int64{a: 0, b: 0, gone: 100} {
		k, err := s.Key(ctx, id)
		if err != nil || k.Balance != wantBal {
			t.Errorf("key %d: balance %d, %v; want %d", id, k.Balance, err, wantBal)
		}
	}
	ledger, err := s.Ledger(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	var after []int64
	for _, l := range ledger {
		if l.Kind == social.LedgerDebit {
			after = append(after, l.BalanceAfter)
		}
	}
	if len(after) != 2 || after[0] != 40 || after[1] != 0 {
		t.Errorf("key a's debits leave balances %v, want [40 0]", after)
	}
}

// TestDebitSeenUsesIndex: the batch's look-up of charged request ids
// uses the partial index ledger_request (a scan of a key's whole ledger
// made every debit slower as the ledger grew).
func TestDebitSeenUsesIndex(t *testing.T) {
	s := openTest(t)
	for _, n := range []int{1, 4, maxDebitBatch} {
		args := []any{int64(1)}
		for i := range n {
			args = append(args, "r"+strconv.Itoa(i))
		}
		rows, err := s.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+seenText(n), args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if p := strings.Join(plan, "; "); !strings.Contains(p, "INDEX ledger_request (key_id=? AND request_id=?)") {
			t.Errorf("%d ids: plan %q does not use ledger_request", n, p)
		}
	}
}
