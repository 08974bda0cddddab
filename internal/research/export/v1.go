package export

import (
	"strconv"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// API v1.1 shapes (tweet_mode=extended), as roost's v1 importer reads them
// back: every field roost holds that v1.1 carries, plus
// conversation_id_str (which the web's legacy objects carry). Views,
// communities and roost's own flags have no v1.1 field.

// v1Layout is how v1.1 writes times.
const v1Layout = "Mon Jan 02 15:04:05 -0700 2006"

type v1Status struct {
	CreatedAt            string      `json:"created_at"`
	ID                   int64       `json:"id"`
	IDStr                string      `json:"id_str"`
	FullText             string      `json:"full_text"`
	Truncated            bool        `json:"truncated"`
	Entities             v1Entities  `json:"entities"`
	ExtendedEntities     *v1Extended `json:"extended_entities,omitempty"`
	Source               string      `json:"source"`
	InReplyToStatusID    *int64      `json:"in_reply_to_status_id"`
	InReplyToStatusIDStr *string     `json:"in_reply_to_status_id_str"`
	InReplyToUserID      *int64      `json:"in_reply_to_user_id"`
	InReplyToUserIDStr   *string     `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string     `json:"in_reply_to_screen_name"`
	User                 v1User      `json:"user"`
	IsQuoteStatus        bool        `json:"is_quote_status"`
	QuotedStatusID       *int64      `json:"quoted_status_id,omitempty"`
	QuotedStatusIDStr    *string     `json:"quoted_status_id_str,omitempty"`
	QuotedStatus         *v1Status   `json:"quoted_status,omitempty"`
	RetweetedStatus      *v1Status   `json:"retweeted_status,omitempty"`
	ConversationIDStr    string      `json:"conversation_id_str"`
	RetweetCount         int64       `json:"retweet_count"`
	FavoriteCount        int64       `json:"favorite_count"`
	ReplyCount           int64       `json:"reply_count"`
	QuoteCount           int64       `json:"quote_count"`
	BookmarkCount        int64       `json:"bookmark_count"`
	Lang                 string      `json:"lang"`
}

// v1Entities are v1.1's entities: its hashtags, symbols and links are
// roost's (wire.Tag, wire.URL), its mentions carry the integer id too.
type v1Entities struct {
	Hashtags     []wire.Tag  `json:"hashtags"`
	Symbols      []wire.Tag  `json:"symbols"`
	UserMentions []v1Mention `json:"user_mentions"`
	URLs         []wire.URL  `json:"urls"`
}

type v1Extended struct {
	Media []v1Media `json:"media"`
}

type v1Mention struct {
	ScreenName string  `json:"screen_name"`
	Name       string  `json:"name"`
	ID         *int64  `json:"id"`
	IDStr      *string `json:"id_str"`
	Indices    [2]int  `json:"indices"`
}

type v1Media struct {
	ID            int64  `json:"id"`
	IDStr         string `json:"id_str"`
	Indices       [2]int `json:"indices"`
	MediaURLHTTPS string `json:"media_url_https"`
	URL           string `json:"url"`
	DisplayURL    string `json:"display_url"`
	ExpandedURL   string `json:"expanded_url"`
	Type          string `json:"type"`
}

type v1User struct {
	ID          int64   `json:"id"`
	IDStr       string  `json:"id_str"`
	Name        string  `json:"name"`
	ScreenName  string  `json:"screen_name"`
	Location    string  `json:"location"`
	Description string  `json:"description"`
	URL         *string `json:"url"`
	Protected   bool    `json:"protected"`
	Verified    bool    `json:"verified"`
	wire.ProfileCounts
	MediaCount           int64    `json:"media_count"`
	CreatedAt            string   `json:"created_at,omitempty"`
	ProfileImageURLHTTPS string   `json:"profile_image_url_https"`
	ProfileBannerURL     string   `json:"profile_banner_url"`
	PinnedTweetIDsStr    []string `json:"pinned_tweet_ids_str"`
	CanDM                bool     `json:"can_dm"`
}

func optID(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

func optIDStr(n int64) *string {
	if n == 0 {
		return nil
	}
	s := strconv.FormatInt(n, 10)
	return &s
}

func newV1Status(v *social.PostView) *v1Status {
	p := &v.Post
	s := &v1Status{
		CreatedAt: p.CreatedAt.UTC().Format(v1Layout), ID: p.ID, IDStr: strconv.FormatInt(p.ID, 10),
		FullText: p.Text, Truncated: p.Truncated, Entities: newV1Entities(&p.Entities), Source: p.Source,
		InReplyToStatusID: optID(p.InReplyToID), InReplyToStatusIDStr: optIDStr(p.InReplyToID),
		InReplyToUserID: optID(p.InReplyToUserID), InReplyToUserIDStr: optIDStr(p.InReplyToUserID),
		User: newV1User(&v.Author), IsQuoteStatus: p.QuotedID != 0,
		QuotedStatusID: optID(p.QuotedID), QuotedStatusIDStr: optIDStr(p.QuotedID),
		ConversationIDStr: id(p.ConversationID),
		RetweetCount:      p.RetweetCount, FavoriteCount: p.FavoriteCount, ReplyCount: p.ReplyCount,
		QuoteCount: p.QuoteCount, BookmarkCount: p.BookmarkCount, Lang: p.Lang,
	}
	if p.InReplyToID != 0 {
		name := p.InReplyToScreenName
		s.InReplyToScreenName = &name
	}
	if len(p.Entities.Media) > 0 {
		s.ExtendedEntities = &v1Extended{Media: make([]v1Media, len(p.Entities.Media))}
		for i, m := range p.Entities.Media {
			s.ExtendedEntities.Media[i] = v1Media{ID: m.ID, IDStr: strconv.FormatInt(m.ID, 10), Indices: [2]int{m.Start, m.End},
				MediaURLHTTPS: m.MediaURL, URL: m.URL, DisplayURL: m.DisplayURL, ExpandedURL: m.ExpandedURL, Type: m.Type}
		}
	}
	if v.Quoted != nil {
		s.QuotedStatus = newV1Status(v.Quoted)
	}
	if v.RepostOf != nil {
		s.RetweetedStatus = newV1Status(v.RepostOf)
	}
	return s
}

func newV1Entities(e *social.Entities) v1Entities {
	out := v1Entities{Hashtags: v1Tags(e.Hashtags), Symbols: v1Tags(e.Symbols),
		UserMentions: make([]v1Mention, len(e.Mentions)), URLs: make([]wire.URL, len(e.URLs))}
	for i, m := range e.Mentions {
		out.UserMentions[i] = v1Mention{ScreenName: m.ScreenName, Name: m.Name, ID: optID(m.UserID),
			IDStr: optIDStr(m.UserID), Indices: [2]int{m.Start, m.End}}
	}
	for i, u := range e.URLs {
		out.URLs[i] = wire.URL{URL: u.URL, ExpandedURL: u.ExpandedURL, DisplayURL: u.DisplayURL, Indices: [2]int{u.Start, u.End}}
	}
	return out
}

func v1Tags(ts []social.Tag) []wire.Tag {
	out := make([]wire.Tag, len(ts))
	for i, t := range ts {
		out[i] = wire.Tag{Text: t.Text, Indices: [2]int{t.Start, t.End}}
	}
	return out
}

func newV1User(u *social.User) v1User {
	out := v1User{
		ID: u.ID, IDStr: strconv.FormatInt(u.ID, 10), Name: u.Name, ScreenName: u.ScreenName, Location: u.Location,
		Description: u.Description, Protected: u.Protected, Verified: u.Verified || u.BlueVerified,
		ProfileCounts: wire.ProfileCounts{FollowersCount: u.FollowersCount, FriendsCount: u.FriendsCount,
			ListedCount: u.ListedCount, FavouritesCount: u.FavouritesCount, StatusesCount: u.StatusesCount},
		MediaCount:           u.MediaCount,
		ProfileImageURLHTTPS: u.ImageURL, ProfileBannerURL: u.BannerURL, PinnedTweetIDsStr: []string{}, CanDM: u.CanDM,
	}
	if u.URL != "" {
		out.URL = &u.URL
	}
	if !u.CreatedAt.IsZero() {
		out.CreatedAt = u.CreatedAt.UTC().Format(v1Layout)
	}
	if u.PinnedPostID != 0 {
		out.PinnedTweetIDsStr = []string{strconv.FormatInt(u.PinnedPostID, 10)}
	}
	return out
}
