package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// v1Status is an API v1.1 status (tweet_mode=extended). The same shape is
// a GraphQL tweet's legacy object and a data export's tweet, so numbers are
// read as flexInt (the export writes them as strings).
type v1Status struct {
	CreatedAt            string      `json:"created_at"`
	ID                   flexInt     `json:"id"`
	IDStr                flexInt     `json:"id_str"`
	FullText             string      `json:"full_text"`
	Text                 string      `json:"text"`
	Truncated            bool        `json:"truncated"`
	Entities             *v1Entities `json:"entities"`
	ExtendedEntities     *v1Entities `json:"extended_entities"`
	ExtendedTweet        *v1Extended `json:"extended_tweet"`
	Source               string      `json:"source"`
	Lang                 string      `json:"lang"`
	InReplyToStatusID    flexInt     `json:"in_reply_to_status_id"`
	InReplyToStatusIDStr flexInt     `json:"in_reply_to_status_id_str"`
	InReplyToUserID      flexInt     `json:"in_reply_to_user_id"`
	InReplyToUserIDStr   flexInt     `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  string      `json:"in_reply_to_screen_name"`
	User                 *v1User     `json:"user"`
	UserIDStr            flexInt     `json:"user_id_str"`
	RetweetedStatus      *v1Status   `json:"retweeted_status"`
	QuotedStatus         *v1Status   `json:"quoted_status"`
	QuotedStatusID       flexInt     `json:"quoted_status_id"`
	QuotedStatusIDStr    flexInt     `json:"quoted_status_id_str"`
	ConversationIDStr    flexInt     `json:"conversation_id_str"`
	FavoriteCount        flexInt     `json:"favorite_count"`
	RetweetCount         flexInt     `json:"retweet_count"`
	ReplyCount           flexInt     `json:"reply_count"`
	QuoteCount           flexInt     `json:"quote_count"`
	BookmarkCount        flexInt     `json:"bookmark_count"`
}

// v1Extended is the extended_tweet object of compatibility-mode statuses
// (the streaming API), which holds the full text of a long post.
type v1Extended struct {
	FullText         string      `json:"full_text"`
	Entities         *v1Entities `json:"entities"`
	ExtendedEntities *v1Entities `json:"extended_entities"`
}

// v1User is a v1.1 user object (also a GraphQL user's legacy object).
type v1User struct {
	ID          flexInt `json:"id"`
	IDStr       flexInt `json:"id_str"`
	Name        string  `json:"name"`
	ScreenName  string  `json:"screen_name"`
	Location    string  `json:"location"`
	Description string  `json:"description"`
	URL         string  `json:"url"`
	Entities    struct {
		URL struct {
			URLs []v1URL `json:"urls"`
		} `json:"url"`
	} `json:"entities"`
	Protected            bool      `json:"protected"`
	Verified             bool      `json:"verified"`
	FollowersCount       flexInt   `json:"followers_count"`
	FriendsCount         flexInt   `json:"friends_count"`
	ListedCount          flexInt   `json:"listed_count"`
	FavouritesCount      flexInt   `json:"favourites_count"`
	StatusesCount        flexInt   `json:"statuses_count"`
	MediaCount           flexInt   `json:"media_count"`
	CreatedAt            string    `json:"created_at"`
	ProfileImageURLHTTPS string    `json:"profile_image_url_https"`
	ProfileBannerURL     string    `json:"profile_banner_url"`
	PinnedTweetIDsStr    []flexInt `json:"pinned_tweet_ids_str"`
	CanDM                bool      `json:"can_dm"`
}

// toUser converts a v1.1 user. A user without a screen name is a stub.
func (u *v1User) toUser() (social.User, error) {
	id := first(u.IDStr, u.ID)
	if id <= 0 {
		return social.User{}, fmt.Errorf("user without an id")
	}
	out := social.User{
		ID: id, ScreenName: u.ScreenName, Name: u.Name, Location: u.Location,
		URL: u.URL, Description: u.Description, Protected: u.Protected, Verified: u.Verified,
		CanDM: u.CanDM, FollowersCount: int64(u.FollowersCount), FriendsCount: int64(u.FriendsCount),
		ListedCount: int64(u.ListedCount), FavouritesCount: int64(u.FavouritesCount),
		StatusesCount: int64(u.StatusesCount), MediaCount: int64(u.MediaCount),
		CreatedAt: optTime(u.CreatedAt), ImageURL: u.ProfileImageURLHTTPS,
		BannerURL: u.ProfileBannerURL, Stub: u.ScreenName == "",
	}
	if urls := u.Entities.URL.URLs; len(urls) > 0 && urls[0].ExpandedURL != "" {
		out.URL = urls[0].ExpandedURL
	}
	if len(u.PinnedTweetIDsStr) > 0 {
		out.PinnedPostID = int64(u.PinnedTweetIDsStr[0])
	}
	return out, nil
}

// maxNest bounds how deep embedded posts are followed (a repost of a
// quote of a quote…); hostile input cannot recurse without end.
const maxNest = 4

// convert adds the status, its author and the posts it embeds to b and
// returns the post's id.
func (s *v1Status) convert(b *social.Batch, depth int) (int64, error) {
	p, err := s.post(b, depth)
	if err != nil {
		return 0, err
	}
	b.Posts = append(b.Posts, p)
	return p.ID, nil
}

// post converts the status, adding its author and the posts it embeds to
// b but not the post itself.
func (s *v1Status) post(b *social.Batch, depth int) (social.Post, error) {
	id := first(s.IDStr, s.ID)
	if id <= 0 {
		return social.Post{}, fmt.Errorf("status without an id")
	}
	created, err := parseTime(s.CreatedAt)
	if err != nil {
		return social.Post{}, fmt.Errorf("status %d: created_at: %w", id, err)
	}
	var author int64
	if s.User != nil {
		u, err := s.User.toUser()
		if err != nil {
			return social.Post{}, fmt.Errorf("status %d: %w", id, err)
		}
		author = u.ID
		b.Users = append(b.Users, u)
	}
	if author == 0 {
		author = int64(s.UserIDStr)
	}
	if author <= 0 {
		return social.Post{}, fmt.Errorf("status %d has no author", id)
	}
	p := social.Post{
		ID: id, AuthorID: author, CreatedAt: created, Source: s.Source, Truncated: s.Truncated,
		Lang:                s.Lang,
		InReplyToID:         first(s.InReplyToStatusIDStr, s.InReplyToStatusID),
		InReplyToUserID:     first(s.InReplyToUserIDStr, s.InReplyToUserID),
		InReplyToScreenName: s.InReplyToScreenName,
		QuotedID:            first(s.QuotedStatusIDStr, s.QuotedStatusID),
		ConversationID:      int64(s.ConversationIDStr),
		FavoriteCount:       int64(s.FavoriteCount), RetweetCount: int64(s.RetweetCount),
		ReplyCount: int64(s.ReplyCount), QuoteCount: int64(s.QuoteCount),
		BookmarkCount: int64(s.BookmarkCount),
	}
	if p.Lang == "" {
		p.Lang = "und"
	}
	text, ents, ext := s.FullText, s.Entities, s.ExtendedEntities
	if x := s.ExtendedTweet; x != nil && x.FullText != "" {
		text, ents, ext = x.FullText, x.Entities, x.ExtendedEntities
	} else if text == "" {
		text = s.Text
	}
	p.Text = text
	p.Entities = entitiesOf(text, ents, ext, nil)
	if depth < maxNest {
		if rt := s.RetweetedStatus; rt != nil {
			rid, err := rt.convert(b, depth+1)
			if err != nil {
				return social.Post{}, fmt.Errorf("retweeted_status: %w", err)
			}
			p.RepostOfID = rid
			b.Reposts = append(b.Reposts, social.Repost{PostID: rid, UserID: author, CreatedAt: created})
		}
		if q := s.QuotedStatus; q != nil {
			qid, err := q.convert(b, depth+1)
			if err != nil {
				return social.Post{}, fmt.Errorf("quoted_status: %w", err)
			}
			if p.QuotedID == 0 {
				p.QuotedID = qid
			}
		}
	}
	return p, nil
}

// entitiesOf converts a source's entities (nil: absent) over text, moved
// through pos, computing what the source lacks.
func entitiesOf(text string, ents, ext *v1Entities, pos []int) social.Entities {
	if ents == nil {
		e := complete(text, social.Entities{}, catAll)
		if ext != nil {
			m, _ := (&v1Entities{Media: ext.Media}).convert(nil, pos)
			e.Media = m.Media
		}
		return e
	}
	var media []v1Media
	if ext != nil {
		media = ext.Media
	}
	e, missing := ents.convert(media, pos)
	return complete(text, e, missing)
}

// v1Record is one top-level v1.1 value: a status, or a search envelope.
type v1Record struct {
	v1Status
	Statuses []json.RawMessage `json:"statuses"`
}

// decodeV1 decodes one v1.1 value: a status, a search envelope
// ({"statuses": [...]}) or an array of statuses.
func decodeV1(key string, raw []byte, at RecordError) []item {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if err := unmarshalFast(raw, &arr); err != nil {
			return []item{bad(at, "invalid JSON: %v", err)}
		}
		var out []item
		for i, el := range arr {
			a := at
			a.Path = joinPath(at.Path, "["+strconv.Itoa(i)+"]")
			out = append(out, decodeV1(key, el, a)...)
		}
		return out
	}
	var r v1Record
	if err := unmarshalFast(raw, &r); err != nil {
		return []item{bad(at, "invalid v1.1 status: %v", err)}
	}
	if r.Statuses != nil && first(r.IDStr, r.ID) == 0 {
		var out []item
		for i, el := range r.Statuses {
			a := at
			a.Path = joinPath(at.Path, "statuses["+strconv.Itoa(i)+"]")
			out = append(out, decodeV1(key, el, a)...)
		}
		return out
	}
	var it item
	if _, err := r.v1Status.convert(&it.batch, 0); err != nil {
		return []item{bad(at, "%v", err)}
	}
	return []item{it}
}

func joinPath(base, rest string) string {
	if base == "" {
		return "$" + rest
	}
	return base + rest
}
