package social

import (
	"context"
	"sync"
)

// Pipe is a Writer that hands batches to a goroutine writing them, so that
// making the next batch (generating it, reading it from a source) overlaps
// writing this one. A batch must not change once handed over. Write
// reports the first failure of an earlier batch, and zero stats: those of
// a batch are not known when it is handed over. Close waits for the last.
//
// Batches handed over through Write are written in order, each alone: every
// batch before has been written and none after has started. Batches handed
// over through the writer that Unordered returns (batches that share no
// key with each other) are written up to workers at once.
type Pipe struct {
	w    Writer
	ch   chan piped
	done chan struct{}

	mu  sync.Mutex
	err error
}

// piped is a batch in the pipe, and whether it may be written beside
// other unordered ones.
type piped struct {
	b         *Batch
	unordered bool
}

// NewPipe starts a pipe into w writing up to workers unordered batches at
// once (at least one). Close must be called.
func NewPipe(ctx context.Context, w Writer, workers int) *Pipe {
	p := &Pipe{w: w, ch: make(chan piped, 1), done: make(chan struct{})}
	go p.run(ctx, max(workers, 1))
	return p
}

// run writes what comes through the pipe until close.
func (p *Pipe) run(ctx context.Context, workers int) {
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
func (p *Pipe) write(ctx context.Context, b *Batch) {
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

func (p *Pipe) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write queues b, to be written alone and in order; its stats are not
// known yet and are reported as zero.
func (p *Pipe) Write(ctx context.Context, b *Batch) (WriteStats, error) {
	return p.put(ctx, piped{b: b})
}

func (p *Pipe) put(ctx context.Context, it piped) (WriteStats, error) {
	if err := p.failed(); err != nil {
		return WriteStats{}, err
	}
	select {
	case p.ch <- it:
		return WriteStats{}, nil
	case <-ctx.Done():
		return WriteStats{}, ctx.Err()
	}
}

// Unordered is the writer of batches that share no key with each other:
// they may be written at once (see Pipe).
func (p *Pipe) Unordered() Writer { return unorderedPipe{p} }

type unorderedPipe struct{ p *Pipe }

func (u unorderedPipe) Write(ctx context.Context, b *Batch) (WriteStats, error) {
	return u.p.put(ctx, piped{b: b, unordered: true})
}

// Close waits for every queued batch and reports the first failure.
func (p *Pipe) Close() error {
	close(p.ch)
	<-p.done
	return p.failed()
}
