package gen

import (
	"context"
	"sync"

	"roost/social"
)

// pipe is a social.Writer that hands batches to one goroutine writing them
// in order, so that generating the next batch overlaps writing this one.
// A batch must not change once handed over (the generator starts a new
// one after every write). Write reports the first failure of an earlier
// batch; close waits for the last one.
type pipe struct {
	w    social.Writer
	ch   chan *social.Batch
	done chan struct{}

	mu  sync.Mutex
	err error
}

func newPipe(ctx context.Context, w social.Writer) *pipe {
	p := &pipe{w: w, ch: make(chan *social.Batch, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for b := range p.ch {
			if p.failed() != nil {
				continue
			}
			if _, err := w.Write(ctx, b); err != nil {
				p.mu.Lock()
				p.err = err
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *pipe) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Write queues b; its stats are not known yet and are reported as zero.
func (p *pipe) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	if err := p.failed(); err != nil {
		return social.WriteStats{}, err
	}
	select {
	case p.ch <- b:
		return social.WriteStats{}, nil
	case <-ctx.Done():
		return social.WriteStats{}, ctx.Err()
	}
}

// close waits for every queued batch and reports the first failure.
func (p *pipe) close() error {
	close(p.ch)
	<-p.done
	return p.failed()
}
