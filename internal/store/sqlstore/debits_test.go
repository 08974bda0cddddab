package sqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// TestBatcherSkipsGoneCallers: a debit whose caller's context ended before
// its batch was handed to apply (its client went away while it waited) is
// never applied and fails with the context's error; one whose context
// ended before Submit is not even queued.
func TestBatcherSkipsGoneCallers(t *testing.T) {
	var applied []string
	b := NewDebitBatcher(func(ds []social.Debit, out []DebitResult) {
		for _, d := range ds {
			applied = append(applied, d.RequestID)
		}
	})
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Taken by the batcher after its caller left (as a Submit waiting
	// in its select may be).
	taken := &debitCall{ctx: ctx, d: social.Debit{RequestID: "gone"}, reply: make(chan DebitResult, 1)}
	b.reqs <- taken
	if r := <-taken.reply; !errors.Is(r.Err, context.Canceled) {
		t.Errorf("a debit taken after its caller went away: %v, want context.Canceled", r.Err)
	}
	if _, err := b.Submit(ctx, social.Debit{RequestID: "late"}); !errors.Is(err, context.Canceled) {
		t.Errorf("a debit submitted after its caller went away: %v, want context.Canceled", err)
	}
	if _, err := b.Submit(context.Background(), social.Debit{RequestID: "next"}); err != nil {
		t.Fatal(err)
	}
	if len(applied) != 1 || applied[0] != "next" {
		t.Errorf("applied %v; want [next]", applied)
	}
}
