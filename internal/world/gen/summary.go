package gen

import "strconv"

// Summary counts what Generate wrote and names ids worth trying.
type Summary struct {
	Users            int64    `json:"users"`
	Posts            int64    `json:"posts"`
	Replies          int64    `json:"replies"`
	SelfReplies      int64    `json:"self_thread_replies"`
	Quotes           int64    `json:"quotes"`
	RepostPosts      int64    `json:"repost_posts"` // native reposts (posts with RepostOfID)
	Reposts          int64    `json:"reposts"`      // Repost rows, native or not
	Likes            int64    `json:"likes"`        // Like rows: min(favorite_count, cap) per post
	LikeCap          int64    `json:"likes_per_post_cap"`
	CommunityPosts   int64    `json:"community_posts"`
	MediaPosts       int64    `json:"media_posts"`
	LongThreads      int64    `json:"threads_over_30"`
	Follows          int64    `json:"follows"`
	Lists            int64    `json:"lists"`
	ListMembers      int64    `json:"list_members"`
	ListSubscribers  int64    `json:"list_subscribers"`
	Communities      int64    `json:"communities"`
	CommunityMembers int64    `json:"community_members"`
	Highlights       int64    `json:"highlights"`
	Affiliations     int64    `json:"affiliations"`
	Spaces           int64    `json:"spaces"`
	PinnedPosts      int64    `json:"pinned_posts"`
	ProtectedUsers   int64    `json:"protected_users"`
	ShadowBanned     int64    `json:"shadow_banned_users"`
	VerifiedUsers    int64    `json:"verified_users"`
	BlueVerified     int64    `json:"blue_verified_users"`
	ExtendedBios     int64    `json:"extended_bios"` // users with an extended bio
	Batches          int64    `json:"batches"`
	Examples         Examples `json:"examples"`
}

// Examples are ids a newcomer can try against the served network. Ids are
// JSON strings, exact beyond 2^53; an id is left out when the network is
// too small to have one.
type Examples struct {
	UserID               int64  `json:"user_id,string,omitempty"`
	Username             string `json:"username,omitempty"`
	ProtectedUserID      int64  `json:"protected_user_id,string,omitempty"`
	ShadowBannedUsername string `json:"shadow_banned_username,omitempty"`
	OrganizationUserID   int64  `json:"organization_user_id,string,omitempty"`
	// ThreadID is the root of a self-thread longer than 30 posts.
	ThreadID    int64 `json:"thread_id,string,omitempty"`
	CommunityID int64 `json:"community_id,string,omitempty"`
	// ListID is a list with members and subscribers.
	ListID int64 `json:"list_id,string,omitempty"`
	// PostID is a popular post with replies, quotes and reposts.
	PostID int64 `json:"post_id,string,omitempty"`
	// ListsUserID owns and subscribes to more than 100 lists.
	ListsUserID int64 `json:"lists_user_id,string,omitempty"`
	// SpaceID is an ended audio space with speakers, when there is one.
	SpaceID string `json:"space_id,omitempty"`
	// ExtendedBioUsername is a public account with an extended bio.
	ExtendedBioUsername string `json:"extended_bio_username,omitempty"`
}

// PaidPages are paths of paid pages of the network, one per example that
// has one (a user's posts and following, a search of the user's posts, a
// thread, a list's members), for load that must find items.
func (x Examples) PaidPages() []string {
	ps := []string{
		"/social/user/" + strconv.FormatInt(x.UserID, 10) + "/tweets",
		"/twitter/user/" + strconv.FormatInt(x.UserID, 10) + "/following",
		"/social/search?query=from:" + x.Username,
	}
	if x.ThreadID != 0 {
		ps = append(ps, "/social/thread/"+strconv.FormatInt(x.ThreadID, 10))
	}
	if x.ListID != 0 {
		ps = append(ps, "/social/list/"+strconv.FormatInt(x.ListID, 10)+"/members")
	}
	return ps
}
