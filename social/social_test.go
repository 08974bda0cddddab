package social

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestScore(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	base := Post{CreatedAt: at, FavoriteCount: 10}
	s0 := Score(&base)
	more := base
	more.FavoriteCount = 21 // engagement 10 → 21: about one doubling
	later := base
	later.CreatedAt = at.Add(7 * 24 * time.Hour)
	if d := Score(&more) - s0; d < 990_000 || d > 1_100_000 {
		t.Errorf("doubling engagement adds %d, want about 1e6", d)
	}
	if d := Score(&later) - s0; d != 1_000_000 {
		t.Errorf("a week later adds %d, want exactly 1e6", d)
	}
	views := int64(1000)
	withViews := base
	withViews.Views = &views
	if Score(&withViews) <= s0 {
		t.Error("views do not count")
	}
	if Score(&base) != s0 {
		t.Error("score is not a pure function")
	}
}

func TestFlags(t *testing.T) {
	p := Post{ID: 2, AuthorID: 7, InReplyToID: 1, InReplyToUserID: 7, QuotedID: 3, Text: "RT @x: hi",
		Entities: Entities{Media: []Media{{Type: MediaGIF}}, URLs: []URL{{}}, Hashtags: []Tag{{}}}}
	got := Flags(&p)
	want := FlagReply | FlagSelfThread | FlagQuote | FlagOldRetweet | FlagMedia | FlagVideos | FlagLinks | FlagHashtags
	if got != want {
		t.Errorf("Flags = %b, want %b", got, want)
	}
	if Flags(&Post{FavoriteCount: 1})&FlagEngagement == 0 || Flags(&Post{})&FlagEngagement != 0 {
		t.Error("engagement flag wrong")
	}
}

func TestMemberOrder(t *testing.T) {
	older, newer := Micros(time.Unix(1e9, 0)), Micros(time.Unix(2e9, 0))
	var keys []int64
	for _, r := range []string{RoleMember, RoleModerator, RoleAdmin} {
		rank, err := RoleRank(r)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, MemberSortKey(rank, older), MemberSortKey(rank, newer))
	}
	if !slices.IsSorted(keys) {
		t.Errorf("descending sort keys do not give admins, moderators, members, newest first: %v", keys)
	}
	if _, err := RoleRank("Owner"); !errors.Is(err, ErrInvalid) {
		t.Errorf("unknown role: %v", err)
	}
}

func TestIndexKeysAndTimes(t *testing.T) {
	e := Entities{Mentions: []Mention{{ScreenName: "Jack"}, {ScreenName: ""}},
		Hashtags: []Tag{{Text: "Go"}}, Symbols: []Tag{{Text: "AAPL"}}}
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
