package httpapi

import (
	"encoding/base64"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// The list object (wire.List) in the network's GraphQL form. Everything
// is derived from the stored List and its owner: opaque ids are base64 of
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

// legacyTimeLayout is the network's legacy created_at form.
const legacyTimeLayout = "Mon Jan 02 15:04:05 +0000 2006"

// graphID is the network's opaque id of an entity: base64("Type:id").
func graphID(typ string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(typ + ":" + strconv.FormatInt(id, 10)))
}

func newListObjects(ls []social.List, owners map[int64]*social.User) []wire.List {
	out := make([]wire.List, len(ls))
	for i := range ls {
		owner := owners[ls[i].OwnerID]
		if owner == nil {
			owner = &social.User{ID: ls[i].OwnerID, Stub: true}
		}
		out[i] = newListObject(&ls[i], owner)
	}
	return out
}

func newListObject(l *social.List, owner *social.User) wire.List {
	o := wire.List{
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
		UserResults:      wire.UserResults{Result: newOwnerResult(owner)},
	}
	rect := wire.SalientRect{Width: bannerWidth, Height: bannerHeight}
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

func newOwnerResult(u *social.User) wire.OwnerResult {
	shape := "Circle"
	var prof *wire.Professional
	if u.ProfessionalType != "" {
		prof = &wire.Professional{RestID: strconv.FormatInt(u.ID, 10), ProfessionalType: u.ProfessionalType, Category: []string{}}
		if u.ProfessionalType == "Business" {
			shape = "Square" // the network draws organisations square
		}
	}
	pinned := []string{}
	if u.PinnedPostID != 0 {
		pinned = append(pinned, strconv.FormatInt(u.PinnedPostID, 10))
	}
	var ents wire.LegacyEntities
	ents.Description.URLs = []wire.URL{}
	ents.URL.URLs = []wire.URL{}
	if u.URL != "" {
		ents.URL.URLs = append(ents.URL.URLs, wire.URL{
			URL: u.URL, ExpandedURL: u.URL, DisplayURL: displayURL(u.URL),
			Indices: [2]int{0, len([]rune(u.URL))},
		})
	}
	return wire.OwnerResult{
		Typename:                   "User",
		ID:                         graphID("User", u.ID),
		RestID:                     strconv.FormatInt(u.ID, 10),
		AffiliatesHighlightedLabel: []string{},
		IsBlueVerified:             u.BlueVerified,
		ProfileImageShape:          shape,
		Professional:               prof,
		Legacy: wire.OwnerLegacy{
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
