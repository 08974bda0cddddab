// Package world is what a database keeps of its world beside the network:
// the seed roost gen recorded, and the living world's last tick and clock
// (package live), with the storage the living world reads its ticks from.
// The engines implement Store and TickWriter; package live uses them.
package world

import (
	"context"

	"github.com/roostapi/roost/internal/social"
)

// State is the world row.
type State struct {
	Seed   int64 // the seed roost gen recorded
	Seeded bool  // whether roost gen recorded one
	Tick   int64 // the last live tick written, 0 before the first
	BaseMS int64 // the live clock's start (Unix ms), 0 before it started
}

// PostRef is what the living world keeps of a recent post.
type PostRef struct {
	ID, AuthorID, RepostOfID int64
}

// Store is what the living world reads a tick from. It reads what is
// current (a PostgreSQL store's primary, never a standby): the same
// database must give the same ticks.
type Store interface {
	// State reads the world row.
	State(ctx context.Context) (State, error)
	// StartClock sets the live clock's start to baseMS unless it is set,
	// and returns the start stored.
	StartClock(ctx context.Context, baseMS int64) (int64, error)
	// UserIDs are the ids of every full profile (stubs left out),
	// ascending.
	UserIDs(ctx context.Context) ([]int64, error)
	// RecentPosts are the n posts of the highest ids, ascending.
	RecentPosts(ctx context.Context, n int) ([]PostRef, error)
	// Liked reports whether userID likes postID.
	Liked(ctx context.Context, postID, userID int64) (bool, error)

	// The reads of social.Reader a tick makes.
	User(ctx context.Context, id int64) (social.User, error)
	Post(ctx context.Context, id int64) (social.Post, error)
	Reposted(ctx context.Context, postID, userID int64) (bool, error)
	Follows(ctx context.Context, followerID, followeeID int64) (bool, error)
	Following(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error)
}

// TickWriter is a store that writes several ticks of the living world in
// one transaction (SQLite: each commit starts every reader's page cache
// over, and writes again the pages every tick writes). WriteTicks runs fn
// in one write transaction, committed when fn returns nil: fn reads the
// world through s, which sees what the transaction wrote before, and
// writes each tick's batch through write, in order.
type TickWriter interface {
	WriteTicks(ctx context.Context, fn func(s Store, write func(*social.Batch) error) error) error
}

// Relation is a kind of relation between two ids, as a world change
// checks it (Relations.Related).
type Relation int

// Relations, each named by its pair in order.
const (
	Follow          Relation = iota // follower, followee
	Like                            // post, user
	Repost                          // post (the original), user
	ListMember                      // list, user
	ListSubscriber                  // list, user
	CommunityMember                 // community, user
)

// Relations is what a change of the world made by hand (package fixture,
// the admin world API) reads besides the network, from what is current.
type Relations interface {
	// Related reports whether the pair (a, b) of relation r is stored.
	Related(ctx context.Context, r Relation, a, b int64) (bool, error)
	// MaxUserID is the highest id of a stored user, stubs included; 0
	// when there is none.
	MaxUserID(ctx context.Context) (int64, error)
}
