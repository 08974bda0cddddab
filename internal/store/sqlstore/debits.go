package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/roostapi/roost/internal/social"
)

// DebitResult is the outcome of one debit of a batch: the balance after
// it, or why it was refused or failed.
type DebitResult struct {
	Balance int64
	Err     error
}

// MaxDebitBatch bounds how many debits share one transaction.
const MaxDebitBatch = 256

// ErrClosed is a debit submitted to a batcher that has stopped.
var ErrClosed = errors.New("store is closed")

// DebitBatcher commits concurrent debits together: one goroutine takes
// every debit waiting (up to MaxDebitBatch), hands them to the engine's
// apply, which decides them in order in one transaction and fills one
// result each, and only then answers each caller. One commit serves many
// requests; no debit is answered before apply returns.
type DebitBatcher struct {
	apply   func(ds []social.Debit, out []DebitResult)
	reqs    chan *debitCall
	done    chan struct{}
	stopped chan struct{}
}

type debitCall struct {
	ctx   context.Context
	d     social.Debit
	reply chan DebitResult
}

// NewDebitBatcher starts a batcher over apply; Close stops it.
func NewDebitBatcher(apply func(ds []social.Debit, out []DebitResult)) *DebitBatcher {
	b := &DebitBatcher{apply: apply, reqs: make(chan *debitCall), done: make(chan struct{}), stopped: make(chan struct{})}
	go b.run()
	return b
}

// Close stops the batcher once the batch being applied is answered.
func (b *DebitBatcher) Close() {
	close(b.done)
	<-b.stopped
}

// Submit debits d with the next batch and returns its outcome. A debit
// whose ctx ends before its batch is applied (its client went away) is
// not applied: it fails with ctx's error and charges nothing. Once handed
// to apply, the debit is committed or refused whatever happens to ctx:
// the answer must match the ledger.
func (b *DebitBatcher) Submit(ctx context.Context, d social.Debit) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("debit: %w", err)
	}
	c := &debitCall{ctx: ctx, d: d, reply: make(chan DebitResult, 1)}
	select {
	case b.reqs <- c:
	case <-ctx.Done():
		return 0, fmt.Errorf("debit: %w", ctx.Err())
	case <-b.done:
		return 0, fmt.Errorf("debit: %w", ErrClosed)
	}
	r := <-c.reply
	return r.Balance, r.Err
}

func (b *DebitBatcher) run() {
	defer close(b.stopped)
	var (
		calls []*debitCall
		ds    []social.Debit
		out   []DebitResult
	)
	for {
		calls = calls[:0]
		select {
		case c := <-b.reqs:
			calls = append(calls, c)
		case <-b.done:
			return
		}
	more:
		for len(calls) < MaxDebitBatch {
			select {
			case c := <-b.reqs:
				calls = append(calls, c)
			default:
				break more
			}
		}
		calls = slices.DeleteFunc(calls, func(c *debitCall) bool {
			if err := c.ctx.Err(); err != nil {
				c.reply <- DebitResult{Err: fmt.Errorf("debit: %w", err)}
				return true
			}
			return false
		})
		if len(calls) == 0 {
			continue
		}
		ds, out = ds[:0], out[:0]
		for _, c := range calls {
			ds = append(ds, c.d)
			out = append(out, DebitResult{})
		}
		b.apply(ds, out)
		for i, c := range calls {
			c.reply <- out[i]
		}
	}
}

// ChargedRequest is a request id of a key: what a debit of a request id is
// charged at most once by.
type ChargedRequest struct {
	Key int64
	ID  string
}

// RequestOf is d's request.
func RequestOf(d social.Debit) ChargedRequest { return ChargedRequest{d.KeyID, d.RequestID} }

// ChargedAlready is the result of a debit whose request id was charged
// before (or earlier in its batch).
func ChargedAlready(d social.Debit) DebitResult {
	return DebitResult{Err: fmt.Errorf("key %d: request %s was charged already: %w", d.KeyID, d.RequestID, social.ErrConflict)}
}

// FailAll gives every result of out the error err (a batch whose
// transaction failed charged nothing).
func FailAll(out []DebitResult, err error) {
	for i := range out {
		out[i] = DebitResult{Err: err}
	}
}
