package client

import "encoding/json"

// Tweet is a post in the compact or the full shape (the full shape adds
// ID, the integer reference ids and IsPinned).
type Tweet struct {
	TweetCreatedAt       Time      `json:"tweet_created_at"`
	ID                   int64     `json:"id,omitempty"`
	IDStr                string    `json:"id_str"`
	FullText             string    `json:"full_text"`
	Source               string    `json:"source"`
	Truncated            bool      `json:"truncated"`
	InReplyToStatusID    *int64    `json:"in_reply_to_status_id,omitempty"`
	InReplyToStatusIDStr *string   `json:"in_reply_to_status_id_str"`
	InReplyToUserID      *int64    `json:"in_reply_to_user_id,omitempty"`
	InReplyToUserIDStr   *string   `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string   `json:"in_reply_to_screen_name"`
	User                 *User     `json:"user"`
	QuotedStatusID       *int64    `json:"quoted_status_id,omitempty"`
	QuotedStatusIDStr    *string   `json:"quoted_status_id_str"`
	IsQuoteStatus        bool      `json:"is_quote_status"`
	QuotedStatus         *Tweet    `json:"quoted_status"`
	RetweetedStatus      *Tweet    `json:"retweeted_status"`
	QuoteCount           int64     `json:"quote_count"`
	ReplyCount           int64     `json:"reply_count"`
	RetweetCount         int64     `json:"retweet_count"`
	FavoriteCount        int64     `json:"favorite_count"`
	ViewsCount           *int64    `json:"views_count"`
	BookmarkCount        int64     `json:"bookmark_count"`
	Lang                 string    `json:"lang"`
	Entities             *Entities `json:"entities,omitempty"`
	IsPinned             bool      `json:"is_pinned,omitempty"`
}

// Entities are the mentions, links, hashtags and cashtags of a post;
// indices are code points of FullText, end-exclusive.
type Entities struct {
	UserMentions []Mention `json:"user_mentions"`
	URLs         []URL     `json:"urls"`
	Hashtags     []Tag     `json:"hashtags"`
	Symbols      []Tag     `json:"symbols"`
}

// Mention is a mentioned user.
type Mention struct {
	IDStr      string `json:"id_str"`
	Name       string `json:"name"`
	ScreenName string `json:"screen_name"`
	Indices    [2]int `json:"indices"`
}

// URL is a link.
type URL struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
	Indices     [2]int `json:"indices"`
}

// Tag is a hashtag or a cashtag (without # or $).
type Tag struct {
	Text    string `json:"text"`
	Indices [2]int `json:"indices"`
}

// User is a profile. ID is 0 in the profile embedded in compact posts.
type User struct {
	ID                   int64   `json:"id,omitempty"`
	IDStr                string  `json:"id_str"`
	Name                 string  `json:"name"`
	ScreenName           string  `json:"screen_name"`
	Location             string  `json:"location"`
	URL                  *string `json:"url"`
	Description          string  `json:"description"`
	Protected            bool    `json:"protected"`
	Verified             bool    `json:"verified"`
	FollowersCount       int64   `json:"followers_count"`
	FriendsCount         int64   `json:"friends_count"`
	ListedCount          int64   `json:"listed_count"`
	FavouritesCount      int64   `json:"favourites_count"`
	StatusesCount        int64   `json:"statuses_count"`
	CreatedAt            Time    `json:"created_at"`
	ProfileBannerURL     string  `json:"profile_banner_url"`
	ProfileImageURLHTTPS string  `json:"profile_image_url_https"`
	CanDM                *bool   `json:"can_dm"`
}

// Member is a community member.
type Member struct {
	ID                   int64  `json:"id"`
	IDStr                string `json:"id_str"`
	ScreenName           string `json:"screen_name"`
	Name                 string `json:"name"`
	Protected            bool   `json:"protected"`
	ProfileImageURLHTTPS string `json:"profile_image_url_https"`
	CommunityRole        string `json:"community_role"`
}

// List is a list object. Owner keeps the owner's record as served
// (user_results.result) for callers that need more than its id.
type List struct {
	ID              string `json:"id"`
	IDStr           string `json:"id_str"`
	Name            string `json:"name"`
	Description     string `json:"description"`
	Mode            string `json:"mode"`
	CreatedAt       int64  `json:"created_at"` // Unix milliseconds
	MemberCount     int64  `json:"member_count"`
	SubscriberCount int64  `json:"subscriber_count"`
	UserResults     struct {
		Result json.RawMessage `json:"result"`
	} `json:"user_results"`
}

// OwnerID is the id of the list's owner, 0 when it cannot be read.
func (l *List) OwnerID() int64 {
	var r struct {
		RestID string `json:"rest_id"`
	}
	if json.Unmarshal(l.UserResults.Result, &r) != nil {
		return 0
	}
	id, _ := parseID(r.RestID)
	return id
}

// Space is an audio space. Times are Unix milliseconds (nil while
// unknown); EndedAt is written as a string by the service.
type Space struct {
	ID                          string  `json:"id"`
	State                       string  `json:"state"`
	Title                       string  `json:"title"`
	MediaKey                    string  `json:"media_key"`
	CreatedAt                   *int64  `json:"created_at"`
	ScheduledStart              *int64  `json:"scheduled_start"`
	StartedAt                   *int64  `json:"started_at"`
	EndedAt                     *string `json:"ended_at"`
	UpdatedAt                   *int64  `json:"updated_at"`
	DisallowJoin                bool    `json:"disallow_join"`
	NarrowCastSpaceType         int     `json:"narrow_cast_space_type"`
	IsEmployeeOnly              bool    `json:"is_employee_only"`
	IsLocked                    bool    `json:"is_locked"`
	IsSpaceAvailableForReplay   bool    `json:"is_space_available_for_replay"`
	IsSpaceAvailableForClipping bool    `json:"is_space_available_for_clipping"`
	ConversationControls        int     `json:"conversation_controls"`
	TotalReplayWatched          int64   `json:"total_replay_watched"`
	TotalLiveListeners          int64   `json:"total_live_listeners"`
	Creator                     *User   `json:"creator"`
	Participants                struct {
		Total    int    `json:"total"`
		Admins   []User `json:"admins"`
		Speakers []User `json:"speakers"`
	} `json:"participants"`
}

// ExtendedBio is a user's long bio, one block a paragraph; no blocks when
// the user has none.
type ExtendedBio struct {
	Blocks []struct {
		Text string `json:"text"`
		Type string `json:"type"`
		Key  string `json:"key"`
	} `json:"blocks"`
}

// Text is the bio's paragraphs joined by newlines.
func (b *ExtendedBio) Text() string {
	out := ""
	for i, bl := range b.Blocks {
		if i > 0 {
			out += "\n"
		}
		out += bl.Text
	}
	return out
}

// Commented answers whether a user replied to a post.
type Commented struct {
	Status      string   `json:"status"`
	IsCommented bool     `json:"is_commented"`
	CommentIDs  []string `json:"comment_ids"`
}

// Retweeted answers whether a user reposted a post.
type Retweeted struct {
	Status        string `json:"status"`
	IsRetweeted   bool   `json:"is_retweeted"`
	SourceUserID  string `json:"source_user_id"`
	TargetTweetID string `json:"target_tweet_id"`
}

// Following answers whether one user follows another.
type Following struct {
	Status       string `json:"status"`
	IsFollowing  bool   `json:"is_following"`
	SourceUserID string `json:"source_user_id"`
	TargetUserID string `json:"target_user_id"`
}

// Page is one page of a paged endpoint: its items and the cursor of the
// next page ("" on the last page).
type Page[T any] struct {
	Items      []T
	NextCursor string
	// Raw is the response body as the server sent it.
	Raw []byte
}

// envelope is the wire form of every page.
type envelope struct {
	NextCursor *string         `json:"next_cursor"`
	Tweets     json.RawMessage `json:"tweets"`
	Users      json.RawMessage `json:"users"`
	Lists      json.RawMessage `json:"lists"`
}
