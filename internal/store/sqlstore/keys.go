package sqlstore

import (
	"fmt"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Micros is the stored form of a time: Unix microseconds, 0 for the zero
// time. Every engine stores times this way, so copies are exact and both
// engines order and compare alike.
func Micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// FromMicros is the time of a stored value (UTC); 0 is the zero time.
func FromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// RoleRank orders community roles: admins (0), moderators (1), members (2).
// Any other role is social.ErrInvalid.
func RoleRank(role string) (int64, error) {
	switch role {
	case social.RoleAdmin:
		return 0, nil
	case social.RoleModerator:
		return 1, nil
	case social.RoleMember:
		return 2, nil
	}
	return 0, fmt.Errorf("community role %q: %w", role, social.ErrInvalid)
}

// MemberSortKey is the keyset sort value of a community member: admins,
// then moderators, then members, each newest first when sorted descending.
// Join times up to 2^52 µs (year 2112) fit beside the rank.
func MemberSortKey(rank, joinedMicros int64) int64 { return (2-rank)<<52 | joinedMicros }

// MentionKeys are the index keys of a post's mentions: lower-cased screen
// names (the mentions timeline and @user search look them up).
func MentionKeys(e *social.Entities) []string {
	out := make([]string, 0, len(e.Mentions))
	for _, m := range e.Mentions {
		if m.ScreenName != "" {
			out = append(out, strings.ToLower(m.ScreenName))
		}
	}
	return out
}

// TagKeys are the index keys of a post's hashtags ("#tag") and cashtags
// ("$tag"), lower-cased.
func TagKeys(e *social.Entities) []string {
	out := make([]string, 0, len(e.Hashtags)+len(e.Symbols))
	for _, h := range e.Hashtags {
		out = append(out, "#"+strings.ToLower(h.Text))
	}
	for _, c := range e.Symbols {
		out = append(out, "$"+strings.ToLower(c.Text))
	}
	return out
}
