package monitor

import (
	"context"
	"time"
)

// Store keeps the monitors and webhooks of each key, the change log's
// dispatch position, the outbox of events and the log of delivery
// attempts, shared by every process on one database. A key's monitor
// asked for by another key is social.ErrNotFound.
type Store interface {
	// Create stores a new monitor.
	Create(ctx context.Context, m Monitor) error
	// Get returns the key's monitor id.
	Get(ctx context.Context, keyID int64, id string) (Monitor, error)
	// List returns the key's monitors from offset (oldest first), at most
	// limit, and how many the key has.
	List(ctx context.Context, keyID int64, offset, limit int) ([]Monitor, int, error)
	// SetWebhook sets (nil: removes) the monitor's own webhook URL.
	SetWebhook(ctx context.Context, keyID int64, id string, url *string) (Monitor, error)
	// Delete removes the key's monitor with its events and delivery log.
	Delete(ctx context.Context, keyID int64, id string) error
	// SetDefaultWebhook sets the key's default webhook URL (nil: none); a
	// key without a secret gets secret, else keeps its own.
	SetDefaultWebhook(ctx context.Context, keyID int64, url *string, secret string) (Webhook, error)
	// Secret returns the key's webhook row, storing secret first when the
	// key has none.
	Secret(ctx context.Context, keyID int64, secret string) (Webhook, error)

	// MaxPostID is the largest stored post id (0: none).
	MaxPostID(ctx context.Context) (int64, error)
	// Cursor is the last change turned into events.
	Cursor(ctx context.Context) (int64, error)
	// Changes returns at most limit changes after after, in order.
	Changes(ctx context.Context, after int64, limit int) ([]Change, error)
	// Watching returns the user monitors of kinds that watch any of users.
	Watching(ctx context.Context, users []int64, kinds ...string) ([]Monitor, error)
	// Dispatch stores events made from the changes after from up to to,
	// with the profile snapshots they changed (by monitor id), and moves
	// the position to to, in one transaction; false, storing nothing,
	// when the position is no longer from or another dispatcher holds it.
	Dispatch(ctx context.Context, from, to int64, events []NewEvent, snapshots map[string][]byte) (bool, error)
	// SearchesDue returns the search monitors of kinds due at now.
	SearchesDue(ctx context.Context, now time.Time, kinds ...string) ([]Monitor, error)
	// NextSearch returns when the next search monitor of kinds is due;
	// false when there is none.
	NextSearch(ctx context.Context, kinds ...string) (time.Time, bool, error)
	// Searched stores a search monitor's new events and moves its
	// watermark from old to mark and its next run to next, in one
	// transaction; false, storing nothing, when another moved the
	// watermark first.
	Searched(ctx context.Context, id string, old, mark int64, next time.Time, events []NewEvent) (bool, error)

	// Due returns, for at most limit active monitors not leased at now,
	// the oldest pending event when its next attempt is due (delivery is
	// in order per monitor).
	Due(ctx context.Context, now time.Time, limit int) ([]Outgoing, error)
	// Lease gives o's monitor to one deliverer until until; false when
	// another holds it or recorded an attempt since o was read.
	Lease(ctx context.Context, o *Outgoing, now, until time.Time) (bool, error)
	// LeaseAll leases the monitor of each of os as Lease does, in one
	// transaction, and reports which it got.
	LeaseAll(ctx context.Context, os []Outgoing, now, until time.Time) ([]bool, error)
	// RecordNext logs an attempt (the log keeps KeepAttempts a monitor)
	// and moves its event to state (pending: retried at next), in one
	// transaction. When the attempt delivered its event (or dropped it)
	// and until is set,
	// it returns the monitor's next event if due at now, keeping the lease
	// for it until until; else (nil) the lease is released.
	RecordNext(ctx context.Context, a Attempt, state string, next, now, until time.Time) (*Outgoing, error)
	// Release ends a lease without an attempt.
	Release(ctx context.Context, id string) error
	// Attempts returns the monitor's last n attempts, newest first.
	Attempts(ctx context.Context, id string, n int) ([]Attempt, error)
	// EventCounts counts the monitor's events by state.
	EventCounts(ctx context.Context, id string) (map[string]int64, error)
	// Prune removes the delivered and dead events made before before.
	Prune(ctx context.Context, before time.Time) error
	// Pause pauses the key's active monitors; their events wait.
	Pause(ctx context.Context, keyID int64) error
	// ResumeFunded resumes the paused monitors of keys (not revoked) whose
	// balance covers price, and reports how many.
	ResumeFunded(ctx context.Context, price int64) (int, error)
}
