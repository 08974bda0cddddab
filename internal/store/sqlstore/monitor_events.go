package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/monitor"
)

// errStale ends a dispatch whose position another dispatcher moved.
var errStale = errors.New("dispatch position moved")

// Cursor is the last change turned into events.
func (s Monitors) Cursor(ctx context.Context) (int64, error) {
	var seq int64
	err := s.reader().Query(ctx, `SELECT seq FROM change_cursor WHERE id = 1`, nil, func(r Rows) error { return r.Scan(&seq) })
	if err != nil {
		return 0, fmt.Errorf("change cursor: %w", err)
	}
	return seq, nil
}

// Changes returns at most limit changes after seq, in order.
func (s Monitors) Changes(ctx context.Context, after int64, limit int) ([]monitor.Change, error) {
	cs, err := all(ctx, s.reader(), `SELECT seq, kind, subject, object, at FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`,
		[]any{after, int64(limit)}, func(r Rows) (monitor.Change, error) {
			var c monitor.Change
			var kind, at int64
			err := r.Scan(&c.Seq, &kind, &c.Subject, &c.Object, &at)
			c.Kind, c.At = monitor.ChangeKind(kind), time.UnixMicro(at)
			return c, err
		})
	if err != nil {
		return nil, fmt.Errorf("changes: %w", err)
	}
	return cs, nil
}

// Watching returns the user monitors of kinds that watch any of users.
func (s Monitors) Watching(ctx context.Context, users []int64, kinds ...string) ([]monitor.Monitor, error) {
	if len(users) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(users)+len(kinds))
	for _, k := range kinds {
		args = append(args, k)
	}
	var out []monitor.Monitor
	for lo := 0; lo < len(users); lo += inChunk {
		part := users[lo:min(lo+inChunk, len(users))]
		a := args[:len(kinds):len(kinds)]
		for _, u := range part {
			a = append(a, u)
		}
		ms, err := all(ctx, s.reader(), `SELECT `+monitorCols+` FROM monitors WHERE kind IN (`+Placeholders(len(kinds))+
			`) AND user_id IN (`+Placeholders(len(part))+`) ORDER BY id`, a, scanMonitor)
		if err != nil {
			return nil, fmt.Errorf("monitors watching: %w", err)
		}
		out = append(out, ms...)
	}
	return out, nil
}

// SearchesDue returns the search monitors whose next run is due at now.
func (s Monitors) SearchesDue(ctx context.Context, now time.Time, kinds ...string) ([]monitor.Monitor, error) {
	args := []any{now.UnixMicro()}
	for _, k := range kinds {
		args = append(args, k)
	}
	ms, err := all(ctx, s.reader(), `SELECT `+monitorCols+` FROM monitors WHERE next_run_at <= ? AND kind IN (`+
		Placeholders(len(kinds))+`) ORDER BY next_run_at`, args, scanMonitor)
	if err != nil {
		return nil, fmt.Errorf("search monitors due: %w", err)
	}
	return ms, nil
}

// NextSearch returns when the next search monitor of kinds is due; false
// when there is none. Each kind's earliest is read off the index on
// (kind, next_run_at).
func (s Monitors) NextSearch(ctx context.Context, kinds ...string) (time.Time, bool, error) {
	if len(kinds) == 0 {
		return time.Time{}, false, nil
	}
	parts := make([]string, len(kinds))
	args := make([]any, len(kinds))
	for i, k := range kinds {
		parts[i], args[i] = `SELECT min(next_run_at) AS n FROM monitors WHERE kind = ?`, k
	}
	next := int64(-1) // none
	err := s.reader().Query(ctx, `SELECT coalesce(min(n), -1) FROM (`+strings.Join(parts, ` UNION ALL `)+`) AS due`, args,
		func(r Rows) error { return r.Scan(&next) })
	if err != nil {
		return time.Time{}, false, fmt.Errorf("next search monitor: %w", err)
	}
	if next < 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMicro(next), true, nil
}

// Dispatch stores events made from the changes after from up to to, with
// the profile snapshots they changed, and moves the position to to: all
// in one transaction, so that a crash loses no change and repeats none.
// It reports false, storing nothing, when the position is no longer from
// (another dispatcher moved it) or another holds it.
func (s Monitors) Dispatch(ctx context.Context, from, to int64, events []monitor.NewEvent, snapshots map[string][]byte) (bool, error) {
	err := s.Tx(ctx, func(tx DB) error {
		var seq int64
		found := false
		err := tx.Query(ctx, `SELECT seq FROM change_cursor WHERE id = 1`+s.ForUpdate, nil, func(r Rows) error {
			found = true
			return r.Scan(&seq)
		})
		if err != nil {
			return fmt.Errorf("change cursor: %w", err)
		}
		if !found || seq != from {
			return errStale
		}
		if err := s.insertEvents(ctx, tx, events); err != nil {
			return err
		}
		for id, snap := range snapshots {
			if err := exec(ctx, tx, `UPDATE monitors SET snapshot = ? WHERE id = ?`, string(snap), id); err != nil {
				return fmt.Errorf("profile snapshot: %w", err)
			}
		}
		if err := exec(ctx, tx, `DELETE FROM changes WHERE seq <= ?`, to); err != nil {
			return fmt.Errorf("consumed changes: %w", err)
		}
		return exec(ctx, tx, `UPDATE change_cursor SET seq = ? WHERE id = 1`, to)
	})
	if errors.Is(err, errStale) {
		return false, nil
	}
	return err == nil, err
}

// Searched stores a search monitor's new events and moves its watermark
// from old to mark and its next run to next, in one transaction; false
// when another dispatcher moved the watermark first (nothing stored).
func (s Monitors) Searched(ctx context.Context, id string, old, mark int64, next time.Time, events []monitor.NewEvent) (bool, error) {
	err := s.Tx(ctx, func(tx DB) error {
		found := false
		err := tx.Query(ctx, `UPDATE monitors SET watermark = ?, next_run_at = ? WHERE id = ? AND watermark = ?
			RETURNING id`, []any{mark, next.UnixMicro(), id, old}, func(Rows) error { found = true; return nil })
		if err != nil {
			return fmt.Errorf("search monitor: %w", err)
		}
		if !found {
			return errStale
		}
		return s.insertEvents(ctx, tx, events)
	})
	if errors.Is(err, errStale) {
		return false, nil
	}
	return err == nil, err
}

func (s Monitors) insertEvents(ctx context.Context, tx DB, events []monitor.NewEvent) error {
	now := time.Now().UnixMicro()
	for _, e := range events {
		var dedup any
		if e.Dedup != "" {
			dedup = e.Dedup
		}
		err := exec(ctx, tx, `INSERT INTO monitor_events (monitor_id, event, dedup, data, extra, state, attempts, next_at,
			created_at) VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT DO NOTHING`,
			e.MonitorID, e.Event, dedup, e.Data, e.Extra, now, now)
		if err != nil {
			return fmt.Errorf("store event: %w", err)
		}
	}
	return nil
}

// Due returns, for at most limit active monitors not leased at now, the
// oldest pending event when its next attempt is due: delivery is in order
// per monitor, so a monitor's later events wait for its first.
func (s Monitors) Due(ctx context.Context, now time.Time, limit int) ([]monitor.Outgoing, error) {
	at := now.UnixMicro()
	// The oldest pending event of each monitor that has one, read from the
	// index of pending events: the work follows the events waiting, not
	// the monitors registered.
	out, err := all(ctx, s.reader(), `SELECT `+outgoingCols+`
		FROM (SELECT monitor_id, min(id) AS first FROM monitor_events WHERE state = 'pending' GROUP BY monitor_id) f
		JOIN monitor_events e ON e.id = f.first
		JOIN monitors m ON m.id = f.monitor_id
		LEFT JOIN webhooks w ON w.key_id = m.key_id
		WHERE m.state = 'active' AND m.lease_until < ? AND e.next_at <= ?
		ORDER BY e.next_at, e.id LIMIT ?`, []any{at, at, int64(limit)}, scanOutgoing)
	if err != nil {
		return nil, fmt.Errorf("events due: %w", err)
	}
	return out, nil
}

// outgoingCols are the columns scanOutgoing reads, of an event e, its
// monitor m and the key's webhook w.
const outgoingCols = `e.id, e.event, e.data, e.extra, e.attempts, e.created_at, w.url, coalesce(w.secret, ''),
		m.attempts, m.` + monitorColsM

func scanOutgoing(r Rows) (monitor.Outgoing, error) {
	var o monitor.Outgoing
	var m monitor.Monitor
	var params, snap string
	var refresh, next, created, evAt, attempts int64
	err := r.Scan(&o.ID, &o.Event, &o.Data, &o.Extra, &attempts, &evAt, &o.DefaultURL, &o.Secret, &o.Recorded,
		&m.ID, &m.KeyID, &m.Kind, &m.UserID, &params, &m.Query, &refresh, &m.WebhookURL, &m.State, &snap,
		&m.Watermark, &next, &created)
	m.Params, m.Snapshot, m.Refresh = []byte(params), []byte(snap), int(refresh)
	m.NextRunAt, m.CreatedAt = time.UnixMicro(next), time.UnixMicro(created)
	o.Monitor, o.Attempts, o.CreatedAt = m, int(attempts), time.UnixMicro(evAt)
	return o, err
}

// monitorColsM is monitorCols of the alias m, after its leading "m.".
const monitorColsM = `id, m.key_id, m.kind, m.user_id, m.params, m.query, m.refresh_seconds, m.webhook_url, m.state,
	m.snapshot, m.watermark, m.next_run_at, m.created_at`

// Lease gives the monitor to one deliverer until until, for the attempt
// o stands for; false when another holds it or recorded an attempt since o
// was read. Several processes on one database deliver each monitor's
// events one at a time, in order, each attempt once. Both conditions are
// on the monitor's row, which a concurrent update rechecks (PostgreSQL's
// read committed re-reads the row it waited for, not a subquery).
func (s Monitors) Lease(ctx context.Context, o *monitor.Outgoing, now, until time.Time) (bool, error) {
	got, err := s.LeaseAll(ctx, []monitor.Outgoing{*o}, now, until)
	if err != nil {
		return false, err
	}
	return got[0], nil
}

// LeaseAll leases the monitor of each of os as Lease does, in one
// transaction, and reports which it got. The rows are taken in the order
// of their ids, so that two deliverers never wait for each other in a
// circle.
func (s Monitors) LeaseAll(ctx context.Context, os []monitor.Outgoing, now, until time.Time) ([]bool, error) {
	got := make([]bool, len(os))
	order := make([]int, len(os))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(os[a].Monitor.ID, os[b].Monitor.ID) })
	err := s.relaxed(ctx, func(tx DB) error {
		clear(got)
		for _, i := range order {
			o := &os[i]
			err := tx.Query(ctx, `UPDATE monitors SET lease_until = ? WHERE id = ? AND lease_until < ? AND attempts = ?
				RETURNING id`, []any{until.UnixMicro(), o.Monitor.ID, now.UnixMicro(), o.Recorded},
				func(Rows) error { got[i] = true; return nil })
			if err != nil {
				return fmt.Errorf("lease monitor: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return got, nil
}

// Record logs an attempt and moves its event to state (pending: retried
// at next), releasing the monitor's lease, in one transaction.
func (s Monitors) Record(ctx context.Context, a monitor.Attempt, state string, next time.Time) error {
	_, err := s.RecordNext(ctx, a, state, next, time.Time{}, time.Time{})
	return err
}

// RecordNext records an attempt as Record does and, when the attempt
// delivered its event (or dropped it: monitor.EventDropped) and until is
// set, returns the monitor's next event
// if it is due at now, keeping the lease for it until until: the
// deliverer goes on with the monitor without a lease of its own for each
// event. Without one (nil), the lease is released. All in one transaction.
func (s Monitors) RecordNext(ctx context.Context, a monitor.Attempt, state string, next, now, until time.Time) (*monitor.Outgoing, error) {
	var out *monitor.Outgoing
	err := s.relaxed(ctx, func(tx DB) error {
		out = nil
		if err := exec(ctx, tx, `INSERT INTO monitor_deliveries (monitor_id, event_id, attempt, status, error, duration_us, at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, a.MonitorID, a.EventID, int64(a.Attempt), int64(a.Status), a.Error,
			a.Duration.Microseconds(), a.At.UnixMicro()); err != nil {
			return fmt.Errorf("delivery log: %w", err)
		}
		if err := exec(ctx, tx, `DELETE FROM monitor_deliveries WHERE monitor_id = ? AND id <= (SELECT id FROM
			monitor_deliveries WHERE monitor_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`, a.MonitorID, a.MonitorID,
			int64(monitor.KeepAttempts)); err != nil {
			return fmt.Errorf("delivery log: %w", err)
		}
		if err := exec(ctx, tx, `UPDATE monitor_events SET state = ?, attempts = ?, next_at = ? WHERE id = ?`,
			state, int64(a.Attempt), next.UnixMicro(), a.EventID); err != nil {
			return fmt.Errorf("event state: %w", err)
		}
		lease := int64(0)
		if (state == monitor.EventDelivered || state == monitor.EventDropped) && !until.IsZero() {
			// The monitor's oldest pending event, if due: a later one
			// waits for it, as in Due.
			found, err := all(ctx, tx, `SELECT `+outgoingCols+`
				FROM monitor_events e JOIN monitors m ON m.id = e.monitor_id LEFT JOIN webhooks w ON w.key_id = m.key_id
				WHERE e.id = (SELECT min(id) FROM monitor_events WHERE monitor_id = ? AND state = 'pending')
					AND m.state = 'active' AND e.next_at <= ?`, []any{a.MonitorID, now.UnixMicro()}, scanOutgoing)
			if err != nil {
				return fmt.Errorf("next event: %w", err)
			}
			if len(found) == 1 {
				out, lease = &found[0], until.UnixMicro()
				out.Recorded++ // the attempt recorded here
			}
		}
		return exec(ctx, tx, `UPDATE monitors SET lease_until = ?, attempts = attempts + 1 WHERE id = ?`, lease, a.MonitorID)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Release ends a lease without an attempt (e.g. the key could not pay).
func (s Monitors) Release(ctx context.Context, id string) error {
	return exec(ctx, s.DB, `UPDATE monitors SET lease_until = 0 WHERE id = ?`, id)
}

// Attempts returns the monitor's last n attempts, newest first.
func (s Monitors) Attempts(ctx context.Context, id string, n int) ([]monitor.Attempt, error) {
	return all(ctx, s.reader(), `SELECT monitor_id, event_id, attempt, status, error, duration_us, at FROM monitor_deliveries
		WHERE monitor_id = ? ORDER BY id DESC LIMIT ?`, []any{id, int64(n)}, func(r Rows) (monitor.Attempt, error) {
		var a monitor.Attempt
		var attempt, status, dur, at int64
		err := r.Scan(&a.MonitorID, &a.EventID, &attempt, &status, &a.Error, &dur, &at)
		a.Attempt, a.Status, a.Duration, a.At = int(attempt), int(status), time.Duration(dur)*time.Microsecond, time.UnixMicro(at)
		return a, err
	})
}

// EventCounts counts the monitor's events by state.
func (s Monitors) EventCounts(ctx context.Context, id string) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.reader().Query(ctx, `SELECT state, count(*) FROM monitor_events WHERE monitor_id = ? GROUP BY state`, []any{id},
		func(r Rows) error {
			var st string
			var n int64
			err := r.Scan(&st, &n)
			out[st] = n
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("event counts: %w", err)
	}
	return out, nil
}

// Prune removes the delivered and dead events made before before (their
// attempts stay in the delivery log while it keeps them).
func (s Monitors) Prune(ctx context.Context, before time.Time) error {
	if err := exec(ctx, s.DB, `DELETE FROM monitor_events WHERE state <> 'pending' AND created_at < ?`, before.UnixMicro()); err != nil {
		return fmt.Errorf("prune events: %w", err)
	}
	return nil
}

// Pause pauses the key's active monitors (its balance does not cover an
// event); their events wait.
func (s Monitors) Pause(ctx context.Context, keyID int64) error {
	return exec(ctx, s.DB, `UPDATE monitors SET state = 'paused' WHERE key_id = ? AND state = 'active'`, keyID)
}

// ResumeFunded resumes the paused monitors of keys (not revoked) whose
// balance covers price, and reports how many. The keys are looked up
// through the reader: SQLite keeps them in a file the monitors' writer
// does not attach.
func (s Monitors) ResumeFunded(ctx context.Context, price int64) (int, error) {
	paused, err := all(ctx, s.DB, `SELECT DISTINCT key_id FROM monitors WHERE state = 'paused'`, nil, scanID)
	if err != nil {
		return 0, fmt.Errorf("resume monitors: %w", err)
	}
	funded, err := in(ctx, s.reader(), `SELECT id FROM api_keys WHERE balance >= `+strconv.FormatInt(price, 10)+
		` AND revoked_at IS NULL AND id IN (%s)`, anys(paused), scanID)
	if err != nil {
		return 0, fmt.Errorf("resume monitors: %w", err)
	}
	resumed, err := in(ctx, s.DB, `UPDATE monitors SET state = 'active' WHERE state = 'paused' AND key_id IN (%s)
		RETURNING key_id`, anys(funded), scanID)
	if err != nil {
		return 0, fmt.Errorf("resume monitors: %w", err)
	}
	return len(resumed), nil
}
