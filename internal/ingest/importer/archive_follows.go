package importer

import (
	"encoding/json"

	"github.com/roostapi/roost/internal/social"
)

// An export's deletions and follows: deleted-tweets.js lists the posts the owner deleted, as tweets.js lists
// posts (with a deleted_at): each is deleted (Batch.DeletePosts), from the
// database if it is stored, and tombstoned so that no later write stores
// it again. follower.js and following.js list the accounts that follow
// the owner and that the owner follows, by accountId (and a userLink to
// it), with no time: each is a follow with the owner at the other end
// (named by account.js, or by Options.FollowersOf and FollowingOf), and
// the account a stub; a follow's time is left zero.

// ytdFollow is an element of follower.js or following.js.
type ytdFollow struct {
	AccountID flexInt `json:"accountId"`
	UserLink  string  `json:"userLink"`
}

// decodeExportDeleted converts one element of deleted-tweets.js into the
// deletion of its post.
func decodeExportDeleted(_ string, raw []byte, at RecordError) []item {
	var yi ytdItem
	if err := json.Unmarshal(raw, &yi); err != nil {
		return []item{bad(at, "invalid export item: %v", err)}
	}
	s := yi.Tweet
	if s == nil && !yi.notTweet() {
		s = new(v1Status)
		if err := json.Unmarshal(raw, s); err != nil {
			return []item{bad(at, "invalid export item: %v", err)}
		}
	}
	id := int64(0)
	if s != nil {
		id = first(s.IDStr, s.ID)
	}
	if id <= 0 {
		return []item{bad(at, "not a tweet item with an id")}
	}
	return []item{{batch: social.Batch{DeletePosts: []int64{id}}}}
}

// errNoOwner is the skip reason of follows whose other end is unknown.
const errNoOwner = "follow of an unknown owner"

// decodeExportFollow converts one element of follower.js (following
// false: the account follows owner) or following.js (owner follows it)
// into a follow, the account a stub; owner 0 (unknown) skips it.
func decodeExportFollow(following bool, owner int64) valueFunc {
	return func(_ string, raw []byte, at RecordError) []item {
		var yi ytdItem
		if err := json.Unmarshal(raw, &yi); err != nil {
			return []item{bad(at, "invalid export item: %v", err)}
		}
		f, kind := yi.Follower, "follower"
		if following {
			f, kind = yi.Following, "following"
		}
		if f == nil || f.AccountID <= 0 {
			return []item{bad(at, "not a %s item with an accountId", kind)}
		}
		if owner == 0 {
			return []item{{skip: errNoOwner}}
		}
		id := int64(f.AccountID)
		edge := social.Follow{FollowerID: id, FolloweeID: owner}
		if following {
			edge = social.Follow{FollowerID: owner, FolloweeID: id}
		}
		return []item{{batch: social.Batch{Users: []social.User{{ID: id, Stub: true}}, Follows: []social.Follow{edge}}}}
	}
}
