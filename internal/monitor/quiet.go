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
	by  map[string]*quietLine
}

type quietLine struct {
	at   time.Time
	left int
}

func newQuietLog(log *slog.Logger, now func() time.Time) *quietLog {
	return &quietLog{log: log, now: now, by: map[string]*quietLine{}}
}

// warn logs msg with err and args, unless err says the database is
// unavailable and msg was logged so less than quietEvery ago.
func (q *quietLog) warn(msg string, err error, args ...any) {
	if !errors.Is(err, social.ErrUnavailable) {
		q.log.Warn(msg, append(args, "err", err)...)
		return
	}
	q.mu.Lock()
	now := q.now()
	l := q.by[msg]
	if l != nil && now.Sub(l.at) < quietEvery {
		l.left++
		q.mu.Unlock()
		return
	}
	left := 0
	if l != nil {
		left = l.left
	}
	q.by[msg] = &quietLine{at: now}
	q.mu.Unlock()
	if left > 0 {
		args = append(args, "repeats_left_out", left)
	}
	q.log.Warn(msg, append(args, "err", err)...)
}
