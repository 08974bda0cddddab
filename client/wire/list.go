package wire

import "strconv"

// List is a list object in the network's GraphQL form. ID is the
// network's opaque id of the list; UserResults.Result is its owner.
type List struct {
	CreatedAt                 int64             `json:"created_at"` // Unix milliseconds
	DefaultBannerMedia        BannerMedia       `json:"default_banner_media"`
	DefaultBannerMediaResults BannerMediaResult `json:"default_banner_media_results"`
	Description               string            `json:"description"`
	FacepileURLs              []string          `json:"facepile_urls"`
	FollowersContext          string            `json:"followers_context"`
	Following                 bool              `json:"following"`
	ID                        string            `json:"id"`
	IDStr                     string            `json:"id_str"`
	IsMember                  bool              `json:"is_member"`
	MemberCount               int64             `json:"member_count"`
	MembersContext            string            `json:"members_context"`
	Mode                      string            `json:"mode"`
	Muting                    bool              `json:"muting"`
	Name                      string            `json:"name"`
	Pinning                   bool              `json:"pinning"`
	SubscriberCount           int64             `json:"subscriber_count"`
	UserResults               UserResults       `json:"user_results"`
}

// OwnerID is the id of the list's owner, 0 when it cannot be read.
func (l *List) OwnerID() int64 {
	id, err := strconv.ParseInt(l.UserResults.Result.RestID, 10, 64)
	if err != nil || id < 1 {
		return 0
	}
	return id
}

// SalientRect is the salient area of an image.
type SalientRect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// BannerMedia is a list's banner image.
type BannerMedia struct {
	MediaInfo struct {
		OriginalImgURL    string      `json:"original_img_url"`
		OriginalImgWidth  int         `json:"original_img_width"`
		OriginalImgHeight int         `json:"original_img_height"`
		SalientRect       SalientRect `json:"salient_rect"`
	} `json:"media_info"`
}

// BannerMediaResult is a list's banner image as a media entity.
type BannerMediaResult struct {
	Result struct {
		ID        string `json:"id"`
		MediaKey  string `json:"media_key"`
		MediaID   string `json:"media_id"`
		MediaInfo struct {
			Typename          string      `json:"__typename"`
			OriginalImgHeight int         `json:"original_img_height"`
			OriginalImgWidth  int         `json:"original_img_width"`
			OriginalImgURL    string      `json:"original_img_url"`
			SalientRect       SalientRect `json:"salient_rect"`
		} `json:"media_info"`
		Typename string `json:"__typename"`
	} `json:"result"`
}

// UserResults holds a list's owner.
type UserResults struct {
	Result OwnerResult `json:"result"`
}

// OwnerResult is a list's owner as a GraphQL user; RestID is its id.
type OwnerResult struct {
	Typename                   string        `json:"__typename"`
	ID                         string        `json:"id"`
	RestID                     string        `json:"rest_id"`
	AffiliatesHighlightedLabel []string      `json:"affiliates_highlighted_label"`
	HasGraduatedAccess         bool          `json:"has_graduated_access"`
	IsBlueVerified             bool          `json:"is_blue_verified"`
	ProfileImageShape          string        `json:"profile_image_shape"`
	Professional               *Professional `json:"professional"`
	Legacy                     OwnerLegacy   `json:"legacy"`
}

// Professional marks a professional (business or creator) account.
type Professional struct {
	RestID           string   `json:"rest_id"`
	ProfessionalType string   `json:"professional_type"`
	Category         []string `json:"category"`
}

// OwnerLegacy is a list owner's profile in the network's legacy form;
// CreatedAt is written as "Mon Jan 02 15:04:05 +0000 2006".
type OwnerLegacy struct {
	CanDM                   bool           `json:"can_dm"`
	CanMediaTag             bool           `json:"can_media_tag"`
	CreatedAt               string         `json:"created_at"`
	DefaultProfile          bool           `json:"default_profile"`
	DefaultProfileImage     bool           `json:"default_profile_image"`
	Description             string         `json:"description"`
	Entities                LegacyEntities `json:"entities"`
	FastFollowersCount      int64          `json:"fast_followers_count"`
	FavouritesCount         int64          `json:"favourites_count"`
	FollowersCount          int64          `json:"followers_count"`
	FriendsCount            int64          `json:"friends_count"`
	HasCustomTimelines      bool           `json:"has_custom_timelines"`
	IsTranslator            bool           `json:"is_translator"`
	ListedCount             int64          `json:"listed_count"`
	Location                string         `json:"location"`
	MediaCount              int64          `json:"media_count"`
	Name                    string         `json:"name"`
	NormalFollowersCount    int64          `json:"normal_followers_count"`
	PinnedTweetIDsStr       []string       `json:"pinned_tweet_ids_str"`
	PossiblySensitive       bool           `json:"possibly_sensitive"`
	ProfileBannerURL        string         `json:"profile_banner_url"`
	ProfileImageURLHTTPS    string         `json:"profile_image_url_https"`
	ProfileInterstitialType string         `json:"profile_interstitial_type"`
	ScreenName              string         `json:"screen_name"`
	StatusesCount           int64          `json:"statuses_count"`
	TranslatorType          string         `json:"translator_type"`
	URL                     *string        `json:"url"`
	Verified                bool           `json:"verified"`
	WantRetweets            bool           `json:"want_retweets"`
	WithheldInCountries     []string       `json:"withheld_in_countries"`
}

// LegacyEntities are the links of a legacy profile's description and URL.
type LegacyEntities struct {
	Description struct {
		URLs []URL `json:"urls"`
	} `json:"description"`
	URL struct {
		URLs []URL `json:"urls"`
	} `json:"url"`
}
