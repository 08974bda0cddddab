package wire

// The post shapes. A post's quoted_status and retweeted_status are in the
// shape of the post that carries them, null where the server does not
// resolve them (deeper than a repost's quoted post).

// CompactPost is the compact shape: timelines, community and list posts,
// mentions, likes, replies, quotes and search.
type CompactPost struct {
	TweetCreatedAt       Time           `json:"tweet_created_at"`
	IDStr                string         `json:"id_str"`
	Text                 *string        `json:"text"` // always null: the text is FullText
	FullText             string         `json:"full_text"`
	Source               string         `json:"source"`
	Truncated            bool           `json:"truncated"`
	InReplyToStatusIDStr *string        `json:"in_reply_to_status_id_str"`
	InReplyToUserIDStr   *string        `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string        `json:"in_reply_to_screen_name"`
	User                 CompactProfile `json:"user"`
	QuotedStatusIDStr    *string        `json:"quoted_status_id_str"`
	IsQuoteStatus        bool           `json:"is_quote_status"`
	QuotedStatus         *CompactPost   `json:"quoted_status"`
	RetweetedStatus      *CompactPost   `json:"retweeted_status"`
	Engagement
	Lang     string   `json:"lang"`
	Entities Entities `json:"entities"`
}

// HighlightPost is the reduced shape of a user's highlights, and the
// start of the full shape.
type HighlightPost struct {
	TweetCreatedAt       Time     `json:"tweet_created_at"`
	ID                   int64    `json:"id"`
	IDStr                string   `json:"id_str"`
	Text                 *string  `json:"text"` // always null: the text is FullText
	FullText             string   `json:"full_text"`
	Source               string   `json:"source"`
	Truncated            bool     `json:"truncated"`
	InReplyToStatusID    *int64   `json:"in_reply_to_status_id"`
	InReplyToStatusIDStr *string  `json:"in_reply_to_status_id_str"`
	InReplyToUserID      *int64   `json:"in_reply_to_user_id"`
	InReplyToUserIDStr   *string  `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string  `json:"in_reply_to_screen_name"`
	User                 *Profile `json:"user" wire:"nonnull"`
}

// FullPost is the full shape: posts by id, threads, exports and monitor
// events. Every shape of a post decodes into it (a compact post leaves the
// integer ids 0 and the user's id 0).
type FullPost struct {
	HighlightPost
	QuotedStatusID    *int64    `json:"quoted_status_id"`
	QuotedStatusIDStr *string   `json:"quoted_status_id_str"`
	IsQuoteStatus     bool      `json:"is_quote_status"`
	QuotedStatus      *FullPost `json:"quoted_status"`
	RetweetedStatus   *FullPost `json:"retweeted_status"`
	Engagement
	Lang     string    `json:"lang"`
	Entities *Entities `json:"entities" wire:"nonnull"`
	IsPinned bool      `json:"is_pinned"`
}

// Engagement are a post's counters; views_count is null when unknown.
type Engagement struct {
	QuoteCount    int64  `json:"quote_count"`
	ReplyCount    int64  `json:"reply_count"`
	RetweetCount  int64  `json:"retweet_count"`
	FavoriteCount int64  `json:"favorite_count"`
	ViewsCount    *int64 `json:"views_count"`
	BookmarkCount int64  `json:"bookmark_count"`
}

// Entities are the mentions, links, hashtags and cashtags of a post, each
// an array (empty, never null); indices are code points of the text,
// end-exclusive.
type Entities struct {
	UserMentions []Mention `json:"user_mentions"`
	URLs         []URL     `json:"urls"`
	Hashtags     []Tag     `json:"hashtags"`
	Symbols      []Tag     `json:"symbols"`
}

// Mention is a mentioned user; IDStr is "" when the user's id is unknown.
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
