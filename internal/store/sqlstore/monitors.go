package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// Monitors is the storage of monitors and webhooks, a monitor.Store
// (tables of migration 0031): the monitors of each key, each key's default webhook and signing
// secret, the change log's dispatch position, the outbox of events and
// the log of delivery attempts. DB runs statements on the primary; Read
// runs the queries that only read (nil: DB); Tx runs fn in one
// transaction of the primary; Relaxed (nil: Tx) runs fn in one whose
// commit need not wait for the disk, for the deliverer's bookkeeping
// (leases, attempts, event states): a crash of the machine may take back
// the last ones, which repeats a delivery (the same event id, not charged
// again) and never loses one, since the events themselves are stored by
// Tx; ForUpdate locks the row a SELECT reads until the transaction ends
// and skips it when another holds it (PostgreSQL: " FOR UPDATE SKIP
// LOCKED"; SQLite, one writer: "").
type Monitors struct {
	DB        DB
	Read      DB
	Tx        func(ctx context.Context, fn func(tx DB) error) error
	Relaxed   func(ctx context.Context, fn func(tx DB) error) error
	ForUpdate string
}

var _ monitor.Store = Monitors{}

const monitorCols = `id, key_id, kind, user_id, params, query, refresh_seconds, webhook_url, state, snapshot,
	watermark, next_run_at, created_at`

func scanMonitor(r Rows) (monitor.Monitor, error) {
	var m monitor.Monitor
	var params, snap string
	var refresh, next, created int64
	err := r.Scan(&m.ID, &m.KeyID, &m.Kind, &m.UserID, &params, &m.Query, &refresh, &m.WebhookURL, &m.State, &snap,
		&m.Watermark, &next, &created)
	m.Params, m.Snapshot, m.Refresh = []byte(params), []byte(snap), int(refresh)
	m.NextRunAt, m.CreatedAt = time.UnixMicro(next), time.UnixMicro(created)
	return m, err
}

// relaxed runs fn in a Relaxed transaction, or a Tx without it.
func (s Monitors) relaxed(ctx context.Context, fn func(tx DB) error) error {
	if s.Relaxed != nil {
		return s.Relaxed(ctx, fn)
	}
	return s.Tx(ctx, fn)
}

// reader is Read, or DB without it.
func (s Monitors) reader() DB {
	if s.Read != nil {
		return s.Read
	}
	return s.DB
}

func exec(ctx context.Context, db DB, q string, args ...any) error {
	return db.Query(ctx, q, args, func(Rows) error { return nil })
}

// Create stores a new monitor.
func (s Monitors) Create(ctx context.Context, m monitor.Monitor) error {
	err := exec(ctx, s.DB, `INSERT INTO monitors (`+monitorCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.ID, m.KeyID, m.Kind, m.UserID, string(m.Params), m.Query, int64(m.Refresh), m.WebhookURL, m.State,
		string(m.Snapshot), m.Watermark, m.NextRunAt.UnixMicro(), m.CreatedAt.UnixMicro())
	if err != nil {
		return fmt.Errorf("create monitor: %w", err)
	}
	return nil
}

// Get returns the key's monitor id; another key's is social.ErrNotFound.
func (s Monitors) Get(ctx context.Context, keyID int64, id string) (monitor.Monitor, error) {
	return one(ctx, s.reader(), "monitor", `SELECT `+monitorCols+` FROM monitors WHERE id = ? AND key_id = ?`,
		[]any{id, keyID}, scanMonitor)
}

// List returns the key's monitors from offset (oldest first), at most
// limit, and how many the key has.
func (s Monitors) List(ctx context.Context, keyID int64, offset, limit int) ([]monitor.Monitor, int, error) {
	var total int64
	if err := s.reader().Query(ctx, `SELECT count(*) FROM monitors WHERE key_id = ?`, []any{keyID},
		func(r Rows) error { return r.Scan(&total) }); err != nil {
		return nil, 0, fmt.Errorf("count monitors: %w", err)
	}
	ms, err := all(ctx, s.reader(), `SELECT `+monitorCols+` FROM monitors WHERE key_id = ? ORDER BY created_at, id
		LIMIT ? OFFSET ?`, []any{keyID, int64(limit), int64(offset)}, scanMonitor)
	if err != nil {
		return nil, 0, fmt.Errorf("list monitors: %w", err)
	}
	return ms, int(total), nil
}

// SetWebhook sets (nil: removes) the monitor's own webhook URL.
func (s Monitors) SetWebhook(ctx context.Context, keyID int64, id string, url *string) (monitor.Monitor, error) {
	return one(ctx, s.DB, "monitor", `UPDATE monitors SET webhook_url = ? WHERE id = ? AND key_id = ?
		RETURNING `+monitorCols, []any{url, id, keyID}, scanMonitor)
}

// Delete removes the key's monitor with its events and delivery log.
func (s Monitors) Delete(ctx context.Context, keyID int64, id string) error {
	return s.Tx(ctx, func(tx DB) error {
		found := false
		err := tx.Query(ctx, `DELETE FROM monitors WHERE id = ? AND key_id = ? RETURNING id`, []any{id, keyID},
			func(Rows) error { found = true; return nil })
		if err != nil {
			return fmt.Errorf("delete monitor: %w", err)
		}
		if !found {
			return fmt.Errorf("monitor: %w", social.ErrNotFound)
		}
		if err := exec(ctx, tx, `DELETE FROM monitor_events WHERE monitor_id = ?`, id); err != nil {
			return fmt.Errorf("delete monitor events: %w", err)
		}
		return exec(ctx, tx, `DELETE FROM monitor_deliveries WHERE monitor_id = ?`, id)
	})
}

// SetDefaultWebhook sets the key's default webhook URL (nil: none); a key
// without a secret gets secret, else keeps its own. It returns the row.
func (s Monitors) SetDefaultWebhook(ctx context.Context, keyID int64, url *string, secret string) (monitor.Webhook, error) {
	w, err := one(ctx, s.DB, "webhook", `INSERT INTO webhooks (key_id, url, secret) VALUES (?, ?, ?)
		ON CONFLICT (key_id) DO UPDATE SET url = excluded.url RETURNING url, secret`, []any{keyID, url, secret}, scanWebhook)
	if err != nil {
		return monitor.Webhook{}, fmt.Errorf("set webhook: %w", err)
	}
	return w, nil
}

// Secret returns the key's signing secret, storing secret first when the
// key has none.
func (s Monitors) Secret(ctx context.Context, keyID int64, secret string) (monitor.Webhook, error) {
	w, err := one(ctx, s.DB, "webhook", `INSERT INTO webhooks (key_id, url, secret) VALUES (?, NULL, ?)
		ON CONFLICT (key_id) DO UPDATE SET secret = webhooks.secret RETURNING url, secret`, []any{keyID, secret}, scanWebhook)
	if err != nil {
		return monitor.Webhook{}, fmt.Errorf("webhook secret: %w", err)
	}
	return w, nil
}

// DefaultWebhook returns the key's webhook row (social.ErrNotFound: none).
func (s Monitors) DefaultWebhook(ctx context.Context, keyID int64) (monitor.Webhook, error) {
	return one(ctx, s.reader(), "webhook", `SELECT url, secret FROM webhooks WHERE key_id = ?`, []any{keyID}, scanWebhook)
}

func scanWebhook(r Rows) (monitor.Webhook, error) {
	var w monitor.Webhook
	err := r.Scan(&w.URL, &w.Secret)
	return w, err
}

// MaxPostID is the largest stored post id (0: none).
func (s Monitors) MaxPostID(ctx context.Context) (int64, error) {
	var id int64
	err := s.reader().Query(ctx, `SELECT coalesce(max(id), 0) FROM posts`, nil, func(r Rows) error { return r.Scan(&id) })
	if err != nil {
		return 0, fmt.Errorf("max post id: %w", err)
	}
	return id, nil
}
