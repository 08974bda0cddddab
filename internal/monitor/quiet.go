package monitor

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// quietEvery is how often the loop repeats a warning whose cause is an
// unreachable database (a failover, a restart): once, then at most once
// in this time, with the number left out meanwhile.
const quietEvery = 10 * time.Second

// quietLog is the service loop's warnings. The loop wakes every Poll
// (100 ms by default); while the database cannot be reached every wake
// fails the same way, and one line in quietEvery says as much as ten a
// second. Other errors are logged every time.
type quietLog struct {
	log *slog.Logger
	now func() time.Time
	mu  sync.Mutex
	by  map[string]quietLine
}

// quietLine is when a warning was last written and how many of it were
// left out since.
type quietLine struct {
	at   time.Time
	left int
}

func newQuietLog(log *slog.Logger, now func() time.Time) *quietLog {
	return &quietLog{log: log, now: now, by: map[string]quietLine{}}
}

// warn logs msg with err and args, unless err says the database is
// unavailable and msg was logged so less than quietEvery ago.
func (q *quietLog) warn(msg string, err error, args ...any) {
	if !errors.Is(err, social.ErrUnavailable) {
		q.log.Warn(msg, append(args, "err", err)...)
		return
	}
	q.mu.Lock()
	now, l := q.now(), q.by[msg]
	quiet := !l.at.IsZero() && now.Sub(l.at) < quietEvery
	if quiet {
		q.by[msg] = quietLine{at: l.at, left: l.left + 1}
	} else {
		q.by[msg] = quietLine{at: now}
	}
	q.mu.Unlock()
	if quiet {
		return
	}
	if l.left > 0 {
		args = append(args, "repeats_left_out", l.left)
	}
	q.log.Warn(msg, append(args, "err", err)...)
}
