// Package ledger is what the gateway (roost serve --upstream) keeps in the
// database: the pages it fetched upstream (its page cache), the
// append-only ledger of what it asked upstream, the budgets that hold its
// upstream spending, and when it last stored each post and user it
// fetched (so that by-id reads answer from them). The engines store
// them; package gateway uses them. It stands apart from package gateway,
// which imports the API the engines' tests serve.
package ledger

import (
	"errors"
	"time"
)

// Page is a page fetched upstream.
type Page struct {
	Body      []byte
	Items     int
	FetchedAt time.Time
}

// Entry is one row of the append-only upstream ledger.
type Entry struct {
	ID        int64 // set when read back
	RequestID string
	KeyID     int64
	Endpoint  string
	CacheHit  bool
	Status    int
	Micros    int64 // what upstream billed for this request
	At        time.Time
}

// Budget is one limit of upstream spending: Period is "total" or
// "day:YYYY-MM-DD", Limit is in micro-USD.
type Budget struct {
	Period string
	Limit  int64
}

// ErrBudgetSpent is returned by a reservation that a budget does not
// cover.
var ErrBudgetSpent = errors.New("the shared upstream budget is spent")

// Kinds of entities the gateway records as fetched.
const (
	KindPost = "post"
	KindUser = "user"
)

// Shape is how much of a post or a user an upstream page carried, as a
// by-id answer made from the stored copy needs it: a page of another shape
// overwrote the stored copy with less (the fields it lacks stored empty).
type Shape int

const (
	// ShapePart is less than a by-id answer shows: highlights' posts
	// (no counters, entities or quoted post), community members, list
	// owners.
	ShapePart Shape = 0
	// ShapeAllBut is a whole entity but one field: a profile without
	// can_dm (users-by-ids and users-by-usernames answer it null), a post
	// shown only as deep as social.MaxNesting, where a page does not say
	// whether it is a repost.
	ShapeAllBut Shape = 1
	// ShapeWhole is everything a by-id answer shows (a post's is_pinned
	// aside: Pinned).
	ShapeWhole Shape = 2
)

// Pinned is a post's is_pinned as its page said it.
type Pinned int

const (
	// PinnedUnknown: the page did not say (compact posts carry no
	// is_pinned).
	PinnedUnknown Pinned = iota
	// PinnedNo and PinnedYes: a page of the full shape said so.
	PinnedNo
	PinnedYes
)

// Fetched is when the gateway last stored a post or a user from an
// upstream page, and what that page's shape carried of it.
type Fetched struct {
	Kind   string // KindPost or KindUser
	ID     int64
	At     time.Time
	Shape  Shape
	Pinned Pinned // posts only
}
