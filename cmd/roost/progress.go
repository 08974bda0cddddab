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
	// Detail sets figures shown beside the count from the next Set on
	// (e.g. "12 pages, 0.0048 USD").
	Detail(s string)
	Finish()
}

// newBar shows a progress bar on e's standard error where it is a terminal,
// and a plain line every e.progressEvery anywhere else (logs, CI).
func newBar(e *env, what string, total int64, unit string) progress {
	w := e.stderr
	if isTerminal(w) {
		return newTermBar(w, what, total, unit)
	}
	return newLineBar(w, what, total, unit, e.progressEvery, time.Now)
}

// newTermBar is a bar with the count, its rate and the time left, the
// detail in its description.
func newTermBar(w io.Writer, what string, total int64, unit string) *termBar {
	return &termBar{what: what, bar: progressbar.NewOptions64(total,
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

// termBar is a bar whose description carries the detail.
type termBar struct {
	what   string
	bar    *progressbar.ProgressBar
	mu     sync.Mutex
	detail string // shown in the description
}

func (b *termBar) Set(n int64) { b.bar.Set64(n) }
func (b *termBar) Finish()     { b.bar.Finish() }

func (b *termBar) Detail(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s == b.detail {
		return
	}
	b.detail = s
	b.bar.Describe(b.what + " (" + s + ")")
}

// lineBar writes "what: n/total unit, detail (rate unit/s)" at most once
// every interval ("what: n unit, …" when the total is not known: 0 or
// less; no ", detail" without one).
type lineBar struct {
	mu          sync.Mutex
	w           io.Writer
	what, unit  string
	detail      string
	total       int64
	now         func() time.Time
	every       time.Duration
	start, last time.Time
}

func newLineBar(w io.Writer, what string, total int64, unit string, every time.Duration, now func() time.Time) *lineBar {
	t := now()
	return &lineBar{w: w, what: what, total: total, unit: unit, every: every, now: now, start: t, last: t}
}

func (b *lineBar) Set(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.now()
	if t.Sub(b.last) < b.every {
		return
	}
	b.last = t
	count := fmt.Sprint(n)
	if b.total > 0 {
		count += fmt.Sprintf("/%d", b.total)
	}
	detail := ""
	if b.detail != "" {
		detail = ", " + b.detail
	}
	fmt.Fprintf(b.w, "%s: %s %s%s (%.0f %s/s)\n", b.what, count, b.unit, detail, float64(n)/t.Sub(b.start).Seconds(), b.unit)
}

func (b *lineBar) Detail(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.detail = s
}

func (b *lineBar) Finish() {}
