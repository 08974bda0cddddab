package gen

import (
	"context"
	"sync"

	"roost/social"
)

// pipe is a social.Writer that hands batches to a goroutine writing them,
// so that generating the next batch overlaps writing this one. A batch must
// not change once handed over (the generator starts a new one after every
// write). Write reports the first failure of an earlier batch; close waits
// for the last one.
//
// Batches handed over through Write are written in order, each alone: every
// batch before has been written and none after has started. Batches handed
// over through the writer that unordered returns (the stream's posts, which
// share no key with each other) are written up to workers at once.
type pipe struct {
	w    social.Writer
	ch   chan piped
	done chan struct{}

	mu  sync.Mutex
	err error
}

// piped is a batch in the pipe, and whether it may be written beside
// other unordered ones.
type piped struct {
	b         *social.Batch
	unordered bool
}

// newPipe starts a pipe into w writing up to workers unordered batches at
// once (at least one).
func newPipe(ctx context.Context, w social.Writer, workers int) *pipe {
	p := &pipe{w: w, ch: make(chan piped, 1), done: make(chan struct{})}
	go p.run(ctx, max(workers, 1))
	return p
}

// run writes what comes through the pipe until close.
func (p *pipe) run(ctx context.Context, workers int) {
	defer close(p.done)
	slots := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for it := range p.ch {
		if !it.unordered {
			wg.Wait()
			p.write(ctx, it.b)
			continue
		}
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			p.write(ctx, it.b)
		})
	}
	wg.Wait()
}

// write writes b unless an earlier batch failed, and keeps the first
// failure.
func (p *pipe) write(ctx context.Context, b *social.Batch) {
	if p.failed() != nil {
		return
	}
	if _, err := p.w.Write(ctx, b); err != nil {
		p.mu.Lock()
		if p.err == nil {
			p.err = err
		}
		p.mu.Unlock()
	}
}

func (p *pipe) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write queues b, to be written alone and in order; its stats are not
// known yet and are reported as zero.
func (p *pipe) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return p.put(ctx, piped{b: b})
}

func (p *pipe) put(ctx context.Context, it piped) (social.WriteStats, error) {
	if err := p.failed(); err != nil {
		return social.WriteStats{}, err
	}
	select {
	case p.ch <- it:
		return social.WriteStats{}, nil
	case <-ctx.Done():
		return social.WriteStats{}, ctx.Err()
	}
}

// unordered is the writer of batches that share no key with each other:
// they may be written at once (see pipe).
func (p *pipe) unordered() social.Writer { return unorderedPipe{p} }

type unorderedPipe struct{ p *pipe }

func (u unorderedPipe) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return u.p.put(ctx, piped{b: b, unordered: true})
}

// close waits for every queued batch and reports the first failure.
func (p *pipe) close() error {
	close(p.ch)
	<-p.done
	return p.failed()
}
