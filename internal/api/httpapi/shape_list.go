package httpapi

import (
	"encoding/base64"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// The list object (docs/api.md, "Objects") in the network's GraphQL form. Everything is
// derived from the stored List and its owner: opaque ids are base64 of
// "<Type>:<id>" as the network writes them; the banner media id is a
// stable hash of the banner URL (a banner of the network's standard
// 1500×500 size, its whole area salient); facepile_urls is empty;
// following, is_member, muting and pinning describe the caller's relation
// to the list, which an API key does not have, so they are false.

const (
	bannerWidth  = 1500
	bannerHeight = 500
	// mediaKindPhoto is the network's media_key prefix of a photo.
	mediaKindPhoto = "3_"
)

type listObject struct {
	CreatedAt                 int64             `json:"created_at"`
	DefaultBannerMedia        bannerMedia       `json:"default_banner_media"`
	DefaultBannerMediaResults bannerMediaResult `json:"default_banner_media_results"`
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
	UserResults               userResults       `json:"user_results"`
}

type salientRect struct {
	Left   int `json:"left"`
	Top    int `json:"top"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

type bannerMedia struct {
	MediaInfo struct {
		OriginalImgURL    string      `json:"original_img_url"`
		OriginalImgWidth  int         `json:"original_img_width"`
		OriginalImgHeight int         `json:"original_img_height"`
		SalientRect       salientRect `json:"salient_rect"`
	} `json:"media_info"`
}

type bannerMediaResult struct {
	Result struct {
		ID        string `json:"id"`
		MediaKey  string `json:"media_key"`
		MediaID   string `json:"media_id"`
		MediaInfo struct {
			Typename          string      `json:"__typename"`
			OriginalImgHeight int         `json:"original_img_height"`
			OriginalImgWidth  int         `json:"original_img_width"`
			OriginalImgURL    string      `json:"original_img_url"`
			SalientRect       salientRect `json:"salient_rect"`
		} `json:"media_info"`
		Typename string `json:"__typename"`
	} `json:"result"`
}

type userResults struct {
	Result ownerResult `json:"result"`
}

type ownerResult struct {
	Typename                   string        `json:"__typename"`
	ID                         string        `json:"id"`
	RestID                     string        `json:"rest_id"`
	AffiliatesHighlightedLabel []string      `json:"affiliates_highlighted_label"`
	HasGraduatedAccess         bool          `json:"has_graduated_access"`
	IsBlueVerified             bool          `json:"is_blue_verified"`
	ProfileImageShape          string        `json:"profile_image_shape"`
	Professional               *professional `json:"professional"`
	Legacy                     ownerLegacy   `json:"legacy"`
}

type professional struct {
	RestID           string   `json:"rest_id"`
	ProfessionalType string   `json:"professional_type"`
	Category         []string `json:"category"`
}

type ownerLegacy struct {
	CanDM                   bool           `json:"can_dm"`
	CanMediaTag             bool           `json:"can_media_tag"`
	CreatedAt               string         `json:"created_at"`
	DefaultProfile          bool           `json:"default_profile"`
	DefaultProfileImage     bool           `json:"default_profile_image"`
	Description             string         `json:"description"`
	Entities                legacyEntities `json:"entities"`
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

type legacyEntities struct {
	Description struct {
		URLs []urlEntity `json:"urls"`
	} `json:"description"`
	URL struct {
		URLs []urlEntity `json:"urls"`
	} `json:"url"`
}

// legacyTimeLayout is the network's legacy created_at form.
const legacyTimeLayout = "Mon Jan 02 15:04:05 +0000 2006"

// graphID is the network's opaque id of an entity: base64("Type:id").
func graphID(typ string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(typ + ":" + strconv.FormatInt(id, 10)))
}

func newListObjects(ls []social.List, owners map[int64]*social.User) []listObject {
	out := make([]listObject, len(ls))
	for i := range ls {
		owner := owners[ls[i].OwnerID]
		if owner == nil {
			owner = &social.User{ID: ls[i].OwnerID, Stub: true}
		}
		out[i] = newListObject(&ls[i], owner)
	}
	return out
}

func newListObject(l *social.List, owner *social.User) listObject {
	o := listObject{
		CreatedAt:        l.CreatedAt.UnixMilli(),
		Description:      l.Description,
		FacepileURLs:     []string{},
		FollowersContext: countContext(l.SubscriberCount, "follower"),
		ID:               graphID("List", l.ID),
		IDStr:            strconv.FormatInt(l.ID, 10),
		MemberCount:      l.MemberCount,
		MembersContext:   countContext(l.MemberCount, "member"),
		Mode:             l.Mode,
		Name:             l.Name,
		SubscriberCount:  l.SubscriberCount,
		UserResults:      userResults{Result: newOwnerResult(owner)},
	}
	rect := salientRect{Width: bannerWidth, Height: bannerHeight}
	mi := &o.DefaultBannerMedia.MediaInfo
	mi.OriginalImgURL, mi.OriginalImgWidth, mi.OriginalImgHeight, mi.SalientRect = l.BannerURL, bannerWidth, bannerHeight, rect
	mediaID := bannerMediaID(l.BannerURL)
	r := &o.DefaultBannerMediaResults.Result
	r.ID = base64.StdEncoding.EncodeToString([]byte("ApiMedia:" + mediaKindPhoto + mediaID))
	r.MediaKey = mediaKindPhoto + mediaID
	r.MediaID = mediaID
	r.MediaInfo.Typename = "ApiImage"
	r.MediaInfo.OriginalImgHeight, r.MediaInfo.OriginalImgWidth = bannerHeight, bannerWidth
	r.MediaInfo.OriginalImgURL, r.MediaInfo.SalientRect = l.BannerURL, rect
	r.Typename = "ApiMedia"
	return o
}

// bannerMediaID is a stable positive 63-bit id for a banner URL.
func bannerMediaID(url string) string {
	h := fnv.New64a()
	h.Write([]byte(url))
	return strconv.FormatUint(h.Sum64()>>1, 10)
}

func newOwnerResult(u *social.User) ownerResult {
	shape := "Circle"
	var prof *professional
	if u.ProfessionalType != "" {
		prof = &professional{RestID: strconv.FormatInt(u.ID, 10), ProfessionalType: u.ProfessionalType, Category: []string{}}
		if u.ProfessionalType == "Business" {
			shape = "Square" // the network draws organisations square
		}
	}
	pinned := []string{}
	if u.PinnedPostID != 0 {
		pinned = append(pinned, strconv.FormatInt(u.PinnedPostID, 10))
	}
	var ents legacyEntities
	ents.Description.URLs = []urlEntity{}
	ents.URL.URLs = []urlEntity{}
	if u.URL != "" {
		ents.URL.URLs = append(ents.URL.URLs, urlEntity{
			URL: u.URL, ExpandedURL: u.URL, DisplayURL: displayURL(u.URL),
			Indices: [2]int{0, len([]rune(u.URL))},
		})
	}
	return ownerResult{
		Typename:                   "User",
		ID:                         graphID("User", u.ID),
		RestID:                     strconv.FormatInt(u.ID, 10),
		AffiliatesHighlightedLabel: []string{},
		IsBlueVerified:             u.BlueVerified,
		ProfileImageShape:          shape,
		Professional:               prof,
		Legacy: ownerLegacy{
			CanDM:                u.CanDM,
			CreatedAt:            u.CreatedAt.UTC().Format(legacyTimeLayout),
			DefaultProfile:       u.BannerURL == "",
			DefaultProfileImage:  u.ImageURL == "",
			Description:          u.Description,
			Entities:             ents,
			FavouritesCount:      u.FavouritesCount,
			FollowersCount:       u.FollowersCount,
			FriendsCount:         u.FriendsCount,
			HasCustomTimelines:   true, // the owner of a list has one
			ListedCount:          u.ListedCount,
			Location:             u.Location,
			MediaCount:           u.MediaCount,
			Name:                 u.Name,
			NormalFollowersCount: u.FollowersCount,
			PinnedTweetIDsStr:    pinned,
			ProfileBannerURL:     u.BannerURL,
			ProfileImageURLHTTPS: u.ImageURL,
			ScreenName:           u.ScreenName,
			StatusesCount:        u.StatusesCount,
			TranslatorType:       "none",
			URL:                  optString(u.URL),
			Verified:             u.Verified,
			WithheldInCountries:  []string{},
		},
	}
}

// displayURL is a URL without its scheme and "www.", as the network shows it.
func displayURL(u string) string {
	for _, p := range []string{"https://", "http://"} {
		u = strings.TrimPrefix(u, p)
	}
	return strings.TrimPrefix(u, "www.")
}

// countContext writes a count the way the network's list pages do:
// "1 member", "999 members", "1.2K members", "3.4M followers".
func countContext(n int64, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return compactCount(n) + " " + noun
}

func compactCount(n int64) string {
	scaled := func(div int64, suffix string) string {
		whole, tenth := n/div, n%div*10/div
		if whole >= 100 || tenth == 0 {
			return strconv.FormatInt(whole, 10) + suffix
		}
		return strconv.FormatInt(whole, 10) + "." + strconv.FormatInt(tenth, 10) + suffix
	}
	switch {
	case n >= 1_000_000_000:
		return scaled(1_000_000_000, "B")
	case n >= 1_000_000:
		return scaled(1_000_000, "M")
	case n >= 1_000:
		return scaled(1_000, "K")
	}
	return strconv.FormatInt(n, 10)
}
