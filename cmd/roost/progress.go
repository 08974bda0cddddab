package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress is a progress display for a known total.
type progress interface {
	Set(n int64)
	Finish()
}

// newBar shows a progress bar on e's standard error where it is a terminal,
// and a plain line every e.progressEvery anywhere else (logs, CI).
func newBar(e *env, what string, total int64, unit string) progress {
	w := e.stderr
	if isTerminal(w) {
		return &termBar{bar: progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)}
	}
	return &lineBar{w: w, what: what, total: total, unit: unit, every: e.progressEvery, start: time.Now(), last: time.Now()}
}

type termBar struct{ bar *progressbar.ProgressBar }

func (b *termBar) Set(n int64) { b.bar.Set64(n) }
func (b *termBar) Finish()     { b.bar.Finish() }

// lineBar writes "what: n/total unit (rate/s)" at most once every
// interval ("what: n unit (rate/s)" when the total is not known: 0).
type lineBar struct {
	mu          sync.Mutex
	w           io.Writer
	what, unit  string
	total       int64
	every       time.Duration
	start, last time.Time
}

func (b *lineBar) Set(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if time.Since(b.last) < b.every {
		return
	}
	b.last = time.Now()
	el := time.Since(b.start).Seconds()
	if b.total <= 0 {
		fmt.Fprintf(b.w, "%s: %d %s (%.0f/s)\n", b.what, n, b.unit, float64(n)/el)
		return
	}
	fmt.Fprintf(b.w, "%s: %d/%d %s (%.0f/s)\n", b.what, n, b.total, b.unit, float64(n)/el)
}

func (b *lineBar) Finish() {}
