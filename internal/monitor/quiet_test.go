package monitor

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// TestQuietLog: while the database is unavailable the loop's warning is
// written once in quietEvery, the next one saying how many were left out;
// any other error is written every time.
func TestQuietLog(t *testing.T) {
	var out bytes.Buffer
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	q := newQuietLog(slog.New(slog.NewTextHandler(&out, nil)), func() time.Time { return clock })
	down := fmt.Errorf("dial: %w", social.ErrUnavailable)
	for range 100 { // ten seconds of wakes every 100 ms
		q.warn("monitors: dispatch", down)
		q.warn("monitors: lease", down)
		clock = clock.Add(100 * time.Millisecond)
	}
	q.warn("monitors: dispatch", down)
	q.warn("monitors: dispatch", errors.New("disk full"))
	q.warn("monitors: dispatch", errors.New("disk full"))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 2 + 1 + 2:\n%s", len(lines), out.String())
	}
	if !strings.Contains(lines[2], "msg=\"monitors: dispatch\"") || !strings.Contains(lines[2], "repeats_left_out=99") {
		t.Errorf("the repeat after quietEvery: %s", lines[2])
	}
	if !strings.Contains(lines[4], "disk full") {
		t.Errorf("other errors: %s", lines[4])
	}
}
