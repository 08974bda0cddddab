package social

import (
	"context"

	"github.com/roostapi/roost/internal/search"
)

// Reader answers the read side of the API. Every method takes a context.
// The single-entity lookups (User, UserByScreenName, Community, List)
// return ErrNotFound (wrapped) when the entity does not exist; paged
// methods do not check their parent and return an empty page for one that
// does not exist, so callers that must tell the two apart look it up.
// Paged methods return at most p.Limit items and Page.Next when more follow.
// Posts come back bare (AuthorID, QuotedID, RepostOfID); Hydrate fills in
// authors and nested posts.
type Reader interface {
	// User returns the user with this id.
	User(ctx context.Context, id int64) (User, error)
	// UserByScreenName finds a user by screen name, case-insensitively.
	UserByScreenName(ctx context.Context, screenName string) (User, error)
	// UsersByIDs returns the users found among ids, in any order.
	UsersByIDs(ctx context.Context, ids []int64) ([]User, error)
	// UsersByScreenNames returns the users found among names
	// (case-insensitive), in any order.
	UsersByScreenNames(ctx context.Context, names []string) ([]User, error)
	// Posts returns the posts found among ids, in any order.
	Posts(ctx context.Context, ids []int64) ([]Post, error)
	// Post returns the post with this id.
	Post(ctx context.Context, id int64) (Post, error)
	// SearchUsers lists users whose screen name or name contains text
	// (lower case), best match first: the screen name itself, then names
	// that start with it, then the rest, each by followers.
	SearchUsers(ctx context.Context, text string, p PageReq) (Page[User], error)
	// Space returns the audio space with this id.
	Space(ctx context.Context, id string) (Space, error)

	// UserPosts is a user's timeline, newest first: without replies
	// (4.1) or with them (4.2). Native reposts are included.
	UserPosts(ctx context.Context, userID int64, withReplies bool, p PageReq) (Page[Post], error)
	// Highlights is the user's highlights tab, most recently highlighted first.
	Highlights(ctx context.Context, userID int64, p PageReq) (Page[Post], error)
	// Mentions lists posts that mention the screen name (any case), newest
	// first.
	Mentions(ctx context.Context, screenName string, p PageReq) (Page[Post], error)
	// Replies lists the direct replies to a post, oldest first.
	Replies(ctx context.Context, postID int64, p PageReq) (Page[Post], error)
	// Quotes lists the posts quoting a post, newest first.
	Quotes(ctx context.Context, postID int64, p PageReq) (Page[Post], error)
	// Likes lists the posts a user liked, most recently liked first.
	Likes(ctx context.Context, userID int64, p PageReq) (Page[Post], error)
	// Thread lists the conversation rooted at rootID in conversation order
	// (id ascending), the root first.
	Thread(ctx context.Context, rootID int64, p PageReq) (Page[Post], error)

	// Community returns the community with this id.
	Community(ctx context.Context, id int64) (Community, error)
	// CommunityPosts lists a community's posts by order.
	CommunityPosts(ctx context.Context, communityID int64, order Order, p PageReq) (Page[Post], error)
	// CommunityMembers lists members: admins, then moderators, then members,
	// each by join time, newest first.
	CommunityMembers(ctx context.Context, communityID int64, p PageReq) (Page[Member], error)

	// List returns the list with this id.
	List(ctx context.Context, id int64) (List, error)
	// ListPosts lists posts by the list's members, newest first.
	ListPosts(ctx context.Context, listID int64, p PageReq) (Page[Post], error)
	// ListMembers lists the members, most recently added first.
	ListMembers(ctx context.Context, listID int64, p PageReq) (Page[User], error)
	// UserLists lists the lists a user owns or subscribes to, most recent first.
	UserLists(ctx context.Context, userID int64, p PageReq) (Page[List], error)

	// Reposters lists users who reposted the post, most recent first.
	Reposters(ctx context.Context, postID int64, p PageReq) (Page[User], error)
	// Affiliates lists an organisation's affiliated accounts, most recent first.
	Affiliates(ctx context.Context, orgID int64, p PageReq) (Page[User], error)
	// VerifiedFollowers lists the user's verified followers, most recent first.
	VerifiedFollowers(ctx context.Context, userID int64, p PageReq) (Page[User], error)
	// Following lists the accounts the user follows, most recent first.
	Following(ctx context.Context, userID int64, p PageReq) (Page[User], error)
	// Followers lists the user's followers, most recent first.
	Followers(ctx context.Context, userID int64, p PageReq) (Page[User], error)
	// LikingUsers lists the users who liked a post, most recent first.
	LikingUsers(ctx context.Context, postID int64, p PageReq) (Page[User], error)

	// ReplyIDs are the ids of userID's direct replies to postID, oldest first.
	ReplyIDs(ctx context.Context, postID, userID int64) ([]int64, error)
	// Reposted reports whether userID reposted postID.
	Reposted(ctx context.Context, postID, userID int64) (bool, error)
	// Follows reports whether followerID follows followeeID.
	Follows(ctx context.Context, followerID, followeeID int64) (bool, error)

	// Search runs a parsed query. Latest pages are keyed by id, Top pages
	// by (Score, id).
	Search(ctx context.Context, q *search.Query, order Order, p PageReq) (Page[Post], error)
}

// Batch is a set of values written together, in one transaction.
//
// The new fields since the first release are tagged omitempty, so that a
// batch without them encodes as before (gen's stability test hashes
// encoded batches).
type Batch struct {
	Users            []User
	Posts            []Post
	Follows          []Follow
	Reposts          []Repost
	Affiliations     []Affiliation
	Highlights       []Highlight
	Likes            []Like
	Lists            []List
	ListMembers      []ListMember
	ListSubscribers  []ListSubscriber
	Communities      []Community
	CommunityMembers []CommunityMember
	Spaces           []Space

	// Unfollows are follow edges to delete (CreatedAt is ignored), deleted
	// before Follows are written: a pair in both ends up followed. An edge
	// that is not stored is no error. Neither a follow nor an unfollow
	// changes a count: FollowersCount and FriendsCount are the profile's
	// own values, written with its User (a harvested profile's count is
	// the network's, far beyond the stored edges), so a writer that moves
	// them writes the users too.
	Unfollows []Follow `json:",omitempty"`
	// Unlikes, ListRemovals, ListUnsubscribes and CommunityLeaves delete
	// likes, list members, list subscribers and community members, keyed
	// by their pair (times and roles are ignored), before the batch's new
	// relations are written, as Unfollows do; a pair that is not stored is
	// no error. None moves a count: FavoriteCount, FavouritesCount,
	// MemberCount and SubscriberCount are their owners' own values, so a
	// writer that moves them writes the posts, users, lists or
	// communities too.
	Unlikes          []Like            `json:",omitempty"`
	ListRemovals     []ListMember      `json:",omitempty"`
	ListUnsubscribes []ListSubscriber  `json:",omitempty"`
	CommunityLeaves  []CommunityMember `json:",omitempty"`
	// LiveTick, above 0, makes the batch tick LiveTick of the living world
	// (package live): the tick is recorded as the last one in the same
	// transaction, and the write fails with ErrConflict, writing nothing,
	// unless the stored last tick is LiveTick-1.
	LiveTick int64 `json:",omitempty"`
	// DeletePosts and DeleteUsers are posts and users to delete, before
	// anything else of the batch is written: every id is tombstoned
	// (also one that is not stored), so that no later write stores it
	// again, and the stored ones go with everything that hangs off them
	// (docs/api.md, "Deleted posts and accounts"). The rest of the batch,
	// like every later write, leaves out the values that name a
	// tombstoned post or user (WriteStats counts them).
	DeletePosts []int64 `json:",omitempty"`
	DeleteUsers []int64 `json:",omitempty"`
}

// Len is the number of values in the batch.
func (b *Batch) Len() int {
	return len(b.Users) + len(b.Posts) + len(b.Follows) + len(b.Reposts) + len(b.Affiliations) +
		len(b.Highlights) + len(b.Likes) + len(b.Lists) + len(b.ListMembers) + len(b.ListSubscribers) +
		len(b.Communities) + len(b.CommunityMembers) + len(b.Spaces) + len(b.Unfollows) +
		len(b.Unlikes) + len(b.ListRemovals) + len(b.ListUnsubscribes) + len(b.CommunityLeaves) +
		len(b.DeletePosts) + len(b.DeleteUsers)
}

// WriteStats counts what a Write did with users and posts.
type WriteStats struct {
	PostsInserted int
	PostsUpdated  int
	UsersInserted int
	UsersUpdated  int
	// PostsDeleted and UsersDeleted are the posts and users of
	// DeletePosts and DeleteUsers that were stored; PostsDeletedWith the
	// posts that went with them (a deleted post's native reposts, a
	// deleted user's posts).
	PostsDeleted     int
	UsersDeleted     int
	PostsDeletedWith int
	// PostsSkipped, UsersSkipped and RelationsSkipped are the values of
	// the batch left out because they name a deleted (tombstoned) post or
	// user: posts with a deleted id, author or reposted post, users with
	// a deleted id, and relations, lists and spaces naming either.
	PostsSkipped     int
	UsersSkipped     int
	RelationsSkipped int
}

// Add sums two stats.
func (s *WriteStats) Add(o WriteStats) {
	s.PostsInserted += o.PostsInserted
	s.PostsUpdated += o.PostsUpdated
	s.UsersInserted += o.UsersInserted
	s.UsersUpdated += o.UsersUpdated
	s.PostsDeleted += o.PostsDeleted
	s.UsersDeleted += o.UsersDeleted
	s.PostsDeletedWith += o.PostsDeletedWith
	s.PostsSkipped += o.PostsSkipped
	s.UsersSkipped += o.UsersSkipped
	s.RelationsSkipped += o.RelationsSkipped
}

// Writer stores values. Write is atomic (all of the batch or none of it)
// and idempotent: a value whose key exists replaces the stored one (a newer
// copy of a post updates its text and counters; a later profile updates the
// user, every profile field included: an empty ExtendedBio erases a stored
// one), except that a Stub user never replaces a stored user, and a nil
// Post.Views never erases known views. Relations (likes too) are keyed by
// their pair; a space is keyed by its id, and each write of it replaces
// its admins and speakers as a whole.
type Writer interface {
	Write(ctx context.Context, b *Batch) (WriteStats, error)
}

// Store is one database engine: data, accounts and lifecycle.
type Store interface {
	Reader
	Researcher
	Writer
	Accounts
	AccountAdmin
	Replays
	Streams
	// Counts reports how many values of each kind are stored.
	Counts(ctx context.Context) (map[string]int64, error)
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// BulkLoader is a Writer with a path tuned for loading many posts at once
// (roost gen, roost import). Bulk runs load with a writer whose every Write
// keeps the Writer contract (atomic, idempotent, exact stats); the store may
// defer index maintenance and per-commit syncs until load returns, and
// makes everything durable and indexed before Bulk returns, also when load
// fails. expectPosts is about how many posts load will write.
type BulkLoader interface {
	Bulk(ctx context.Context, expectPosts int64, load func(Writer) error) error
}

// ConcurrentWriter is a bulk writer (see BulkLoader) that stores batches
// faster when several Writes run at once: Concurrency is how many to run.
// Writes that run at once must not share a key (a post, a user, a pair of
// a relation): only then is what they leave independent of their order.
type ConcurrentWriter interface {
	Writer
	Concurrency() int
}
