package httpapi

import (
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// Post shapes (docs/api.md, "Objects"). Field order is the hosted service's. Nested
// quoted_status / retweeted_status use the shape of the post that carries
// them; they go as deep as social.Hydrate resolves (a repost's
// retweeted_status carries its own quoted_status) and are null beyond.

// compactPost is the compact shape: timelines, community and list posts,
// mentions, search.
type compactPost struct {
	TweetCreatedAt       string         `json:"tweet_created_at"`
	IDStr                string         `json:"id_str"`
	Text                 *string        `json:"text"`
	FullText             string         `json:"full_text"`
	Source               string         `json:"source"`
	Truncated            bool           `json:"truncated"`
	InReplyToStatusIDStr *string        `json:"in_reply_to_status_id_str"`
	InReplyToUserIDStr   *string        `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string        `json:"in_reply_to_screen_name"`
	User                 compactProfile `json:"user"`
	QuotedStatusIDStr    *string        `json:"quoted_status_id_str"`
	IsQuoteStatus        bool           `json:"is_quote_status"`
	QuotedStatus         *compactPost   `json:"quoted_status"`
	RetweetedStatus      *compactPost   `json:"retweeted_status"`
	postTail
}

// highlightPost is the reduced highlights shape; fullPost starts with it.
type highlightPost struct {
	TweetCreatedAt       string  `json:"tweet_created_at"`
	ID                   int64   `json:"id"`
	IDStr                string  `json:"id_str"`
	Text                 *string `json:"text"`
	FullText             string  `json:"full_text"`
	Source               string  `json:"source"`
	Truncated            bool    `json:"truncated"`
	InReplyToStatusID    *int64  `json:"in_reply_to_status_id"`
	InReplyToStatusIDStr *string `json:"in_reply_to_status_id_str"`
	InReplyToUserID      *int64  `json:"in_reply_to_user_id"`
	InReplyToUserIDStr   *string `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  *string `json:"in_reply_to_screen_name"`
	User                 profile `json:"user"`
}

// fullPost is the full shape: posts by ids, thread.
type fullPost struct {
	highlightPost
	QuotedStatusID    *int64    `json:"quoted_status_id"`
	QuotedStatusIDStr *string   `json:"quoted_status_id_str"`
	IsQuoteStatus     bool      `json:"is_quote_status"`
	QuotedStatus      *fullPost `json:"quoted_status"`
	RetweetedStatus   *fullPost `json:"retweeted_status"`
	postTail
	IsPinned bool `json:"is_pinned"`
}

// postTail are the counters, language and entities shared by the compact
// and full shapes.
type postTail struct {
	QuoteCount    int64    `json:"quote_count"`
	ReplyCount    int64    `json:"reply_count"`
	RetweetCount  int64    `json:"retweet_count"`
	FavoriteCount int64    `json:"favorite_count"`
	ViewsCount    *int64   `json:"views_count"`
	BookmarkCount int64    `json:"bookmark_count"`
	Lang          string   `json:"lang"`
	Entities      entities `json:"entities"`
}

type entities struct {
	UserMentions []mentionEntity `json:"user_mentions"`
	URLs         []urlEntity     `json:"urls"`
	Hashtags     []tagEntity     `json:"hashtags"`
	Symbols      []tagEntity     `json:"symbols"`
}

// mentionEntity's id_str is "" when the mentioned user's id is unknown.
type mentionEntity struct {
	IDStr      string `json:"id_str"`
	Name       string `json:"name"`
	ScreenName string `json:"screen_name"`
	Indices    [2]int `json:"indices"`
}

type urlEntity struct {
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
	Indices     [2]int `json:"indices"`
}

type tagEntity struct {
	Text    string `json:"text"`
	Indices [2]int `json:"indices"`
}

func replyScreenName(p *social.Post) *string {
	if !p.IsReply() {
		return nil
	}
	s := p.InReplyToScreenName
	return &s
}

// shapePosts shapes every view with one of the post shapes below.
func shapePosts[T any](vs []social.PostView, shape func(*social.PostView) T) []T {
	out := make([]T, len(vs))
	for i := range vs {
		out[i] = shape(&vs[i])
	}
	return out
}

func newCompactPost(v *social.PostView) compactPost {
	p := &v.Post
	c := compactPost{
		TweetCreatedAt:       formatTime(p.CreatedAt),
		IDStr:                strconv.FormatInt(p.ID, 10),
		FullText:             p.Text,
		Source:               p.Source,
		Truncated:            p.Truncated,
		InReplyToStatusIDStr: optIDStr(p.InReplyToID),
		InReplyToUserIDStr:   optIDStr(p.InReplyToUserID),
		InReplyToScreenName:  replyScreenName(p),
		User:                 compactProfile{newProfileFields(&v.Author, true)},
		QuotedStatusIDStr:    optIDStr(p.QuotedID),
		IsQuoteStatus:        p.QuotedID != 0,
		postTail:             newPostTail(p),
	}
	if v.Quoted != nil {
		q := newCompactPost(v.Quoted)
		c.QuotedStatus = &q
	}
	if v.RepostOf != nil {
		r := newCompactPost(v.RepostOf)
		c.RetweetedStatus = &r
	}
	return c
}

func newHighlightPost(v *social.PostView) highlightPost {
	p := &v.Post
	return highlightPost{
		TweetCreatedAt:       formatTime(p.CreatedAt),
		ID:                   p.ID,
		IDStr:                strconv.FormatInt(p.ID, 10),
		FullText:             p.Text,
		Source:               p.Source,
		Truncated:            p.Truncated,
		InReplyToStatusID:    optID(p.InReplyToID),
		InReplyToStatusIDStr: optIDStr(p.InReplyToID),
		InReplyToUserID:      optID(p.InReplyToUserID),
		InReplyToUserIDStr:   optIDStr(p.InReplyToUserID),
		InReplyToScreenName:  replyScreenName(p),
		User:                 newProfile(&v.Author, true),
	}
}

func newFullPost(v *social.PostView) fullPost {
	p := &v.Post
	f := fullPost{
		highlightPost:     newHighlightPost(v),
		QuotedStatusID:    optID(p.QuotedID),
		QuotedStatusIDStr: optIDStr(p.QuotedID),
		IsQuoteStatus:     p.QuotedID != 0,
		postTail:          newPostTail(p),
		IsPinned:          v.Pinned,
	}
	if v.Quoted != nil {
		q := newFullPost(v.Quoted)
		f.QuotedStatus = &q
	}
	if v.RepostOf != nil {
		r := newFullPost(v.RepostOf)
		f.RetweetedStatus = &r
	}
	return f
}

func newPostTail(p *social.Post) postTail {
	return postTail{
		QuoteCount:    p.QuoteCount,
		ReplyCount:    p.ReplyCount,
		RetweetCount:  p.RetweetCount,
		FavoriteCount: p.FavoriteCount,
		ViewsCount:    p.Views,
		BookmarkCount: p.BookmarkCount,
		Lang:          p.Lang,
		Entities:      newEntities(&p.Entities),
	}
}

// newEntities always gives the four arrays, empty rather than null.
func newEntities(e *social.Entities) entities {
	out := entities{
		UserMentions: make([]mentionEntity, len(e.Mentions)),
		URLs:         make([]urlEntity, len(e.URLs)),
		Hashtags:     newTags(e.Hashtags),
		Symbols:      newTags(e.Symbols),
	}
	for i, m := range e.Mentions {
		id := ""
		if m.UserID != 0 {
			id = strconv.FormatInt(m.UserID, 10)
		}
		out.UserMentions[i] = mentionEntity{IDStr: id, Name: m.Name, ScreenName: m.ScreenName, Indices: [2]int{m.Start, m.End}}
	}
	for i, u := range e.URLs {
		out.URLs[i] = urlEntity{URL: u.URL, ExpandedURL: u.ExpandedURL, DisplayURL: u.DisplayURL, Indices: [2]int{u.Start, u.End}}
	}
	return out
}

func newTags(ts []social.Tag) []tagEntity {
	out := make([]tagEntity, len(ts))
	for i, t := range ts {
		out[i] = tagEntity{Text: t.Text, Indices: [2]int{t.Start, t.End}}
	}
	return out
}
