package httpapi

import (
	"strconv"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

func newProfileFields(u *social.User, dmKnown bool) wire.ProfileFields {
	f := wire.ProfileFields{
		IDStr:                strconv.FormatInt(u.ID, 10),
		Name:                 u.Name,
		ScreenName:           u.ScreenName,
		Location:             u.Location,
		URL:                  optString(u.URL),
		Description:          u.Description,
		Protected:            u.Protected,
		Verified:             u.Verified || u.BlueVerified, // legacy or blue (docs/api.md, "Objects")
		ProfileCounts:        profileCounts(u),
		CreatedAt:            wire.Time{Time: u.CreatedAt},
		ProfileBannerURL:     u.BannerURL,
		ProfileImageURLHTTPS: u.ImageURL,
	}
	if dmKnown {
		canDM := u.CanDM
		f.CanDM = &canDM
	}
	return f
}

// profileCounts are u's counts as a profile (and a v1.1 user) has them.
func profileCounts(u *social.User) wire.ProfileCounts {
	return wire.ProfileCounts{FollowersCount: u.FollowersCount, FriendsCount: u.FriendsCount,
		ListedCount: u.ListedCount, FavouritesCount: u.FavouritesCount, StatusesCount: u.StatusesCount}
}

// newProfile is the profile of u; can_dm is null unless dmKnown.
func newProfile(u *social.User, dmKnown bool) wire.Profile {
	return wire.Profile{ID: u.ID, ProfileFields: newProfileFields(u, dmKnown)}
}

func newProfiles(users []social.User) []wire.Profile {
	out := make([]wire.Profile, len(users))
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
