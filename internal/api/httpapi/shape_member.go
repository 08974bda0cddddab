package httpapi

import (
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// member is the community member object (docs/api.md, "Objects"). community_role is
// "Admin", "Moderator" or "Member".
type member struct {
	ID                   int64  `json:"id"`
	IDStr                string `json:"id_str"`
	ScreenName           string `json:"screen_name"`
	Name                 string `json:"name"`
	Protected            bool   `json:"protected"`
	ProfileImageURLHTTPS string `json:"profile_image_url_https"`
	CommunityRole        string `json:"community_role"`
}

func newMembers(ms []social.Member) []member {
	out := make([]member, len(ms))
	for i := range ms {
		u := &ms[i].User
		out[i] = member{
			ID:                   u.ID,
			IDStr:                strconv.FormatInt(u.ID, 10),
			ScreenName:           u.ScreenName,
			Name:                 u.Name,
			Protected:            u.Protected,
			ProfileImageURLHTTPS: u.ImageURL,
			CommunityRole:        ms[i].Role,
		}
	}
	return out
}
