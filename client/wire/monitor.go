package wire

import "encoding/json"

// Monitor is a monitor. Parameters are what it watches: user_id_str,
// user_screen_name and user_name for a user monitor, query for a search.
// RefreshFrequency is a search monitor's seconds between runs, in decimal
// (absent for the others). Status is "active", or "paused" while the
// key's balance does not cover an event.
type Monitor struct {
	ID          string `json:"id"`
	CreatedAt   Time   `json:"created_at"`
	MonitorType string `json:"monitor_type"`
	// WebhookURL is the monitor's own webhook (nil: the key's default).
	WebhookURL       *string           `json:"webhook_url"`
	Parameters       map[string]string `json:"parameters"`
	RefreshFrequency string            `json:"refresh_frequency,omitempty"`
	Status           string            `json:"status"`
}

// MonitorBody answers a monitor's creation, change or reading.
type MonitorBody struct {
	Status string  `json:"status"`
	Data   Monitor `json:"data"`
}

// MonitorDetails is a monitor with its events by state (pending,
// delivered, dead) and its last delivery attempts, newest first.
type MonitorDetails struct {
	Monitor
	Events     map[string]int64 `json:"events"`
	Deliveries []Delivery       `json:"deliveries"`
}

// MonitorDetailsBody answers GET /monitors/{id}.
type MonitorDetailsBody struct {
	Status string         `json:"status"`
	Data   MonitorDetails `json:"data"`
}

// Delivery is one attempt to deliver an event to a webhook.
type Delivery struct {
	EventID string `json:"event_id"`
	Attempt int    `json:"attempt"`
	// Status is the receiver's HTTP status; 0: no answer.
	Status     int    `json:"status"`
	Error      string `json:"error"`
	DurationMS int64  `json:"duration_ms"`
	At         Time   `json:"at"`
}

// MonitorsPage is one page of a key's monitors (GET /monitors).
type MonitorsPage struct {
	Data []Monitor    `json:"data"`
	Meta MonitorsMeta `json:"meta"`
}

// MonitorsMeta places a page of monitors: the key's monitors in all, the
// number of pages and this page's number (from 1).
type MonitorsMeta struct {
	ItemsCount int `json:"items_count"`
	LastPage   int `json:"last_page"`
	Page       int `json:"page"`
}

// Webhook answers POST /user/webhook: SigningSecret is the key's secret
// for the signature of its webhooks.
type Webhook struct {
	Status        string `json:"status"`
	Message       string `json:"message"`
	SigningSecret string `json:"signing_secret"`
}

// Event is the body of a webhook POST: the event (new_tweet,
// new_following, profile_update), its id (the same on every attempt), its
// data (a FullPost for a new post, a Profile for a user) and the monitor
// it comes from. A profile_update carries Changes, an object of the
// changed fields' names to their Change.
type Event struct {
	Event   string          `json:"event"`
	EventID string          `json:"event_id"`
	Data    json.RawMessage `json:"data"`
	Meta    EventMeta       `json:"meta"`
	Changes json.RawMessage `json:"changes,omitempty"`
}

// EventMeta names an event's monitor: MonitoredIDStr is a user monitor's
// user, Query a search monitor's search.
type EventMeta struct {
	MonitorID      string `json:"monitor_id"`
	MonitorType    string `json:"monitor_type"`
	MonitoredIDStr string `json:"monitored_id_str,omitempty"`
	Query          string `json:"query,omitempty"`
}

// Change is a changed profile field's value before and after.
type Change struct {
	Before string `json:"before"`
	After  string `json:"after"`
}
