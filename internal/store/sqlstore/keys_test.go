package sqlstore

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

func TestFlags(t *testing.T) {
	p := social.Post{ID: 2, AuthorID: 7, InReplyToID: 1, InReplyToUserID: 7, QuotedID: 3, Text: "RT @x: hi",
		Entities: social.Entities{Media: []social.Media{{Type: social.MediaGIF}}, URLs: []social.URL{{}}, Hashtags: []social.Tag{{}}}}
	got := Flags(&p)
	want := FlagReply | FlagSelfThread | FlagQuote | FlagOldRetweet | FlagMedia | FlagVideos | FlagLinks | FlagHashtags
	if got != want {
		t.Errorf("Flags = %b, want %b", got, want)
	}
	if Flags(&social.Post{FavoriteCount: 1})&FlagEngagement == 0 || Flags(&social.Post{})&FlagEngagement != 0 {
		t.Error("engagement flag wrong")
	}
}

func TestMemberOrder(t *testing.T) {
	older, newer := Micros(time.Unix(1e9, 0)), Micros(time.Unix(2e9, 0))
	var keys []int64
	for _, r := range []string{social.RoleMember, social.RoleModerator, social.RoleAdmin} {
		rank, err := RoleRank(r)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, MemberSortKey(rank, older), MemberSortKey(rank, newer))
	}
	if !slices.IsSorted(keys) {
		t.Errorf("descending sort keys do not give admins, moderators, members, newest first: %v", keys)
	}
	if _, err := RoleRank("Owner"); !errors.Is(err, social.ErrInvalid) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestIndexKeysAndTimes(t *testing.T) {
	e := social.Entities{Mentions: []social.Mention{{ScreenName: "Jack"}, {ScreenName: ""}},
		Hashtags: []social.Tag{{Text: "Go"}}, Symbols: []social.Tag{{Text: "AAPL"}}}
	if got := MentionKeys(&e); !slices.Equal(got, []string{"jack"}) {
		t.Errorf("MentionKeys = %q", got)
	}
	if got := TagKeys(&e); !slices.Equal(got, []string{"#go", "$aapl"}) {
		t.Errorf("TagKeys = %q", got)
	}
	at := time.Date(2024, 2, 3, 4, 5, 6, 789000, time.UTC)
	if got := FromMicros(Micros(at)); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("micros round trip: %v", got)
	}
	if Micros(time.Time{}) != 0 || !FromMicros(0).IsZero() {
		t.Error("zero time is not 0")
	}
}
