package wire

// Profile is a user's profile. Its ID is 0 when read from a compact post,
// whose profile has none.
type Profile struct {
	ID int64 `json:"id"`
	ProfileFields
}

// CompactProfile is the profile of a compact post's author: no integer id.
type CompactProfile struct {
	ProfileFields
}

// ProfileFields are the fields of a profile after its integer id. CanDM
// is null where the server does not know it (users by screen names).
type ProfileFields struct {
	IDStr       string  `json:"id_str"`
	Name        string  `json:"name"`
	ScreenName  string  `json:"screen_name"`
	Location    string  `json:"location"`
	URL         *string `json:"url"`
	Description string  `json:"description"`
	Protected   bool    `json:"protected"`
	Verified    bool    `json:"verified"`
	ProfileCounts
	CreatedAt            Time   `json:"created_at"`
	ProfileBannerURL     string `json:"profile_banner_url"`
	ProfileImageURLHTTPS string `json:"profile_image_url_https"`
	CanDM                *bool  `json:"can_dm"`
}

// ProfileCounts are a user's followers, followings ("friends"), lists,
// likes ("favourites") and posts.
type ProfileCounts struct {
	FollowersCount  int64 `json:"followers_count"`
	FriendsCount    int64 `json:"friends_count"`
	ListedCount     int64 `json:"listed_count"`
	FavouritesCount int64 `json:"favourites_count"`
	StatusesCount   int64 `json:"statuses_count"`
}

// Member is a community member; CommunityRole is "Admin", "Moderator" or
// "Member".
type Member struct {
	ID                   int64  `json:"id"`
	IDStr                string `json:"id_str"`
	ScreenName           string `json:"screen_name"`
	Name                 string `json:"name"`
	Protected            bool   `json:"protected"`
	ProfileImageURLHTTPS string `json:"profile_image_url_https"`
	CommunityRole        string `json:"community_role"`
}

// ExtendedBio is a user's long bio, one block a paragraph in the Draft.js
// raw form; {} (no blocks) when the user has none.
type ExtendedBio struct {
	Blocks []BioBlock `json:"blocks,omitempty"`
}

// BioBlock is one paragraph of an extended bio.
type BioBlock struct {
	Text              string `json:"text"`
	Type              string `json:"type"`
	InlineStyleRanges []any  `json:"inlineStyleRanges"`
	EntityRanges      []any  `json:"entityRanges"`
	Depth             int    `json:"depth"`
	Key               string `json:"key"`
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
