package httpapi

import (
	"strconv"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// timeLayout is how every timestamp is written: UTC with microseconds.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// profileFields are the profile fields (docs/api.md, "Objects") after `id`.
type profileFields struct {
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
	CreatedAt            string  `json:"created_at"`
	ProfileBannerURL     string  `json:"profile_banner_url"`
	ProfileImageURLHTTPS string  `json:"profile_image_url_https"`
	CanDM                *bool   `json:"can_dm"`
}

// profile is the user profile object (docs/api.md, "Objects").
type profile struct {
	ID int64 `json:"id"`
	profileFields
}

// compactProfile is the profile embedded in compact posts: no integer id.
type compactProfile struct {
	profileFields
}

func newProfileFields(u *social.User, dmKnown bool) profileFields {
	f := profileFields{
		IDStr:                strconv.FormatInt(u.ID, 10),
		Name:                 u.Name,
		ScreenName:           u.ScreenName,
		Location:             u.Location,
		URL:                  optString(u.URL),
		Description:          u.Description,
		Protected:            u.Protected,
		Verified:             u.Verified || u.BlueVerified, // legacy or blue (docs/api.md, "Objects")
		FollowersCount:       u.FollowersCount,
		FriendsCount:         u.FriendsCount,
		ListedCount:          u.ListedCount,
		FavouritesCount:      u.FavouritesCount,
		StatusesCount:        u.StatusesCount,
		CreatedAt:            formatTime(u.CreatedAt),
		ProfileBannerURL:     u.BannerURL,
		ProfileImageURLHTTPS: u.ImageURL,
	}
	if dmKnown {
		canDM := u.CanDM
		f.CanDM = &canDM
	}
	return f
}

func newProfile(u *social.User, dmKnown bool) profile {
	return profile{ID: u.ID, profileFields: newProfileFields(u, dmKnown)}
}

func newProfiles(users []social.User) []profile {
	out := make([]profile, len(users))
	for i := range users {
		out[i] = newProfile(&users[i], true)
	}
	return out
}

// optString is nil (JSON null) for "".
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// optID is nil (JSON null) for id 0, else the id.
func optID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// optIDStr is nil (JSON null) for id 0, else the id in decimal.
func optIDStr(id int64) *string {
	if id == 0 {
		return nil
	}
	s := strconv.FormatInt(id, 10)
	return &s
}
