package social

import "time"

// Post is one post ("tweet"). Ids are int64 end to end; zero means "none"
// for the optional links (InReplyToID, QuotedID, RepostOfID, CommunityID).
type Post struct {
	ID        int64
	AuthorID  int64
	CreatedAt time.Time
	// Text is the complete text as the network stores it (HTML-escaped:
	// "&amp;" is five code points). Entity indices count code points of it.
	Text      string
	Source    string // HTML anchor naming the client, e.g. `<a href="...">Web App</a>`
	Truncated bool
	Lang      string // BCP-47-ish code as the network writes it; "und" when unknown

	InReplyToID         int64
	InReplyToUserID     int64
	InReplyToScreenName string
	QuotedID            int64
	RepostOfID          int64 // set on a native repost: the reposted post
	ConversationID      int64 // id of the thread's root; equals ID for a root
	CommunityID         int64

	QuoteCount    int64
	ReplyCount    int64
	RetweetCount  int64
	FavoriteCount int64
	BookmarkCount int64
	Views         *int64 // nil where the source did not say

	Entities Entities
}

// IsReply reports whether the post answers another post.
func (p *Post) IsReply() bool { return p.InReplyToID != 0 }

// IsRepost reports whether the post is a native repost.
func (p *Post) IsRepost() bool { return p.RepostOfID != 0 }

// Entities are the parsed parts of a post's text. Indices are code points,
// start inclusive and end exclusive, over Post.Text.
type Entities struct {
	Mentions []Mention `json:"user_mentions,omitempty"`
	URLs     []URL     `json:"urls,omitempty"`
	Hashtags []Tag     `json:"hashtags,omitempty"`
	Symbols  []Tag     `json:"symbols,omitempty"`
	Media    []Media   `json:"media,omitempty"`
}

// Mention is an @-mention of a user.
type Mention struct {
	UserID     int64  `json:"id,omitempty"`
	ScreenName string `json:"screen_name"`
	Name       string `json:"name,omitempty"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
}

// URL is a link in the text: URL is the shortened form that appears in the
// text, ExpandedURL the target.
type URL struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url,omitempty"`
	DisplayURL  string `json:"display_url,omitempty"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
}

// Tag is a hashtag or a cashtag ("symbol"), without its leading # or $.
type Tag struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Media kinds as the network names them.
const (
	MediaPhoto = "photo"
	MediaVideo = "video"
	MediaGIF   = "animated_gif"
)

// Media is an attached photo, video or animated GIF.
type Media struct {
	ID          int64  `json:"id,omitempty"`
	Type        string `json:"type"`
	URL         string `json:"url,omitempty"`
	MediaURL    string `json:"media_url,omitempty"`
	ExpandedURL string `json:"expanded_url,omitempty"`
	DisplayURL  string `json:"display_url,omitempty"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
}

// User is a profile.
type User struct {
	ID           int64
	ScreenName   string
	Name         string
	Location     string
	URL          string // "" is served as null
	Description  string
	Protected    bool
	Verified     bool // legacy verification (the `verified` field)
	BlueVerified bool // paid verification (`is_blue_verified`)
	ShadowBanned bool // never matches from: in search (docs/search.md, "Rules")
	CanDM        bool

	FollowersCount  int64
	FriendsCount    int64
	ListedCount     int64
	FavouritesCount int64
	StatusesCount   int64
	MediaCount      int64

	CreatedAt    time.Time
	BannerURL    string
	ImageURL     string
	PinnedPostID int64
	// ProfessionalType is "Business" or "Creator" for professional
	// accounts; an organisation with affiliates is a "Business".
	ProfessionalType string
	// ExtendedBio is the long bio of a profile ("" when it has none);
	// paragraphs are separated by newlines.
	ExtendedBio string

	// Stub marks a user known only by reference (an author or mention
	// without a profile): a writer inserts it if missing and never lets it
	// overwrite a fuller record.
	Stub bool
}

// Follow is one follow edge: Follower follows Followee since CreatedAt.
type Follow struct {
	FollowerID int64
	FolloweeID int64
	CreatedAt  time.Time
}

// Repost records that UserID reposted PostID at CreatedAt.
type Repost struct {
	PostID    int64
	UserID    int64
	CreatedAt time.Time
}

// Affiliation links an affiliated account to an organisation.
type Affiliation struct {
	OrgID     int64
	UserID    int64
	CreatedAt time.Time
}

// Highlight is a post on a user's highlights tab.
type Highlight struct {
	UserID    int64
	PostID    int64
	CreatedAt time.Time
}

// List is a curated list of accounts.
type List struct {
	ID              int64
	OwnerID         int64
	Name            string
	Description     string
	Mode            string // "Public" or "Private"
	CreatedAt       time.Time
	MemberCount     int64
	SubscriberCount int64
	BannerURL       string
}

// ListMember puts UserID on ListID since CreatedAt.
type ListMember struct {
	ListID    int64
	UserID    int64
	CreatedAt time.Time
}

// ListSubscriber records that UserID follows (subscribes to) ListID.
type ListSubscriber struct {
	ListID    int64
	UserID    int64
	CreatedAt time.Time
}

// Community roles.
const (
	RoleAdmin     = "Admin"
	RoleModerator = "Moderator"
	RoleMember    = "Member"
)

// Community is a group with its own timeline.
type Community struct {
	ID           int64
	Name         string
	Description  string
	CreatorID    int64
	CreatedAt    time.Time
	PinnedPostID int64
	MemberCount  int64
}

// CommunityMember gives UserID a Role in CommunityID since JoinedAt.
type CommunityMember struct {
	CommunityID int64
	UserID      int64
	Role        string
	JoinedAt    time.Time
}

// Member is a community member as served: the profile and its role.
type Member struct {
	User User
	Role string
}

// Like is UserID liking PostID at CreatedAt.
type Like struct {
	PostID    int64
	UserID    int64
	CreatedAt time.Time
}

// Space states, as the hosted service writes them.
const (
	SpaceScheduled = "NotStarted"
	SpaceRunning   = "Running"
	SpaceEnded     = "Ended"
)

// Space is an audio space: a live conversation hosted by CreatorID.
type Space struct {
	ID             string // base62, e.g. "1jMJgLdenVjxL"
	CreatorID      int64
	Title          string
	State          string // SpaceScheduled, SpaceRunning or SpaceEnded
	CreatedAt      time.Time
	ScheduledStart time.Time // zero when it was not scheduled
	StartedAt      time.Time // zero before it starts
	EndedAt        time.Time // zero until it ends
	UpdatedAt      time.Time
	// Listeners is the count of live listeners it had (total_live_listeners).
	Listeners int64
	// ReplayWatched is how often its recording was played.
	ReplayWatched int64
	// Replay is whether the recording can be played.
	Replay bool
	// Admins (the host first) and Speakers are user ids in their order.
	Admins   []int64
	Speakers []int64
}
