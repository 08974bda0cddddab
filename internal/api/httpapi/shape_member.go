package httpapi

import (
	"strconv"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// newMembers shapes community members.
func newMembers(ms []social.Member) []wire.Member {
	out := make([]wire.Member, len(ms))
	for i := range ms {
		u := &ms[i].User
		out[i] = wire.Member{
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
