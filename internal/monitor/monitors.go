package monitor

import "time"

// Monitor states.
const (
	MonitorActive = "active"
	MonitorPaused = "paused" // the key's balance does not cover an event
)

// Event states.
const (
	EventPending   = "pending"
	EventDelivered = "delivered"
	EventDead      = "dead" // every attempt failed
	// EventDropped: never sent, the post or user it is about having been
	// deleted before its delivery.
	EventDropped = "dropped"
)

// KeepAttempts is how many attempts the delivery log keeps per monitor.
const KeepAttempts = 50

// Monitor is one monitor of one key.
type Monitor struct {
	ID         string
	KeyID      int64
	Kind       string
	UserID     int64
	Params     []byte // JSON
	Query      string
	Refresh    int // seconds
	WebhookURL *string
	State      string
	Snapshot   []byte // JSON; user_profile monitors
	Watermark  int64
	NextRunAt  time.Time
	CreatedAt  time.Time
}

// Webhook is a key's default webhook (nil URL: none) and signing secret.
type Webhook struct {
	URL    *string
	Secret string
}

// NewEvent is an event for the outbox.
type NewEvent struct {
	MonitorID string
	Event     string // new_tweet, new_following, profile_update
	Dedup     string // once per monitor; "" for none
	Data      []byte // JSON
	Extra     []byte // JSON or nil
}

// Outgoing is the next event of one monitor to deliver.
type Outgoing struct {
	ID         int64
	Event      string
	Data       []byte
	Extra      []byte
	Attempts   int
	CreatedAt  time.Time
	Monitor    Monitor
	DefaultURL *string // the key's default webhook
	Secret     string  // the key's signing secret ("" when it has none yet)
	// Recorded is the monitor's count of recorded attempts when read: the
	// store leases the monitor for o only while it is unchanged.
	Recorded int64
}

// Attempt is one delivery attempt of an event.
type Attempt struct {
	MonitorID string
	EventID   int64
	Attempt   int
	Status    int // the receiver's HTTP status; 0: no answer
	Error     string
	Duration  time.Duration
	At        time.Time
}

// ChangeKind is what a change-log row records.
type ChangeKind int

// Change kinds. Numbers are stored: never renumber.
const (
	ChangePost     ChangeKind = 1 // a post inserted: Subject its author, Object the post
	ChangeProfile  ChangeKind = 2 // a full profile written (inserted or updated): Subject the user
	ChangeFollow   ChangeKind = 3 // a follow inserted: Subject the follower, Object the followee
	ChangeUnfollow ChangeKind = 4 // a follow deleted: Subject the follower, Object the followee
	// ChangePostDeleted: a post deleted (social.Batch.DeletePosts, or a
	// native repost of one): Subject its author, Object the post.
	ChangePostDeleted ChangeKind = 5
	// ChangeUserDeleted: a user deleted (social.Batch.DeleteUsers), its
	// posts with it: Subject the user.
	ChangeUserDeleted ChangeKind = 6
)

// Change is one row of the change log that data writes append to, in
// their own transaction, while any monitor exists.
type Change struct {
	Seq     int64
	Kind    ChangeKind
	Subject int64
	Object  int64
	At      time.Time
}
