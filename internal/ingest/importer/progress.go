package importer

import (
	"bufio"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// bufioReader buffers an input generously: detection peeks peekSize bytes
// and JSONL lines are read through it.
func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 1<<20) }

// plainEvery is the interval of plain progress lines.
const plainEvery = 5 * time.Second

// progress reports a pass: a bar on a terminal (bytes of input, with
// posts, users and rate in its description), plain lines otherwise.
type progress struct {
	stopc chan struct{}
	wg    sync.WaitGroup
}

func startProgress(r *run, em *emitter) *progress {
	p := &progress{stopc: make(chan struct{})}
	out := r.opt.Progress
	if out == nil {
		return p
	}
	start := time.Now()
	status := func() string {
		el := time.Since(start).Seconds()
		posts, users := em.nPosts.Load(), em.nUsers.Load()
		rate := 0.0
		if el > 0 {
			rate = float64(posts) / el
		}
		return fmt.Sprintf("%s: %d posts, %d users, %.0f posts/s", r.label, posts, users, rate)
	}
	p.wg.Add(1)
	if r.opt.Terminal {
		bar := progressbar.NewOptions64(r.total,
			progressbar.OptionSetWriter(out),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetDescription(status()),
		)
		go func() {
			defer p.wg.Done()
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					bar.Describe(status())
					_ = bar.Set64(min(r.bytes.Load(), r.total))
				case <-p.stopc:
					bar.Describe(status())
					_ = bar.Set64(min(r.bytes.Load(), r.total))
					_ = bar.Finish()
					fmt.Fprintln(out)
					return
				}
			}
		}()
		return p
	}
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(plainEvery)
		defer t.Stop()
		line := func() {
			done := r.bytes.Load()
			eta := "?"
			if done > 0 && r.total > 0 {
				el := time.Since(start)
				left := time.Duration(float64(el) * float64(r.total-min(done, r.total)) / float64(done))
				eta = left.Round(time.Second).String()
			}
			pct := 0.0
			if r.total > 0 {
				pct = 100 * float64(min(done, r.total)) / float64(r.total)
			}
			fmt.Fprintf(out, "%s (%.1f%% of input, ETA %s)\n", status(), pct, eta)
		}
		for {
			select {
			case <-t.C:
				line()
			case <-p.stopc:
				line()
				return
			}
		}
	}()
	return p
}

func (p *progress) stop() {
	close(p.stopc)
	p.wg.Wait()
}
