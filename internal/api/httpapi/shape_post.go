package httpapi

import (
	"strconv"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// Posts in the shapes of package wire. Nested quoted_status /
// retweeted_status use the shape of the post that carries them; they go
// as deep as social.Hydrate resolves (a repost's retweeted_status carries
// its own quoted_status) and are null beyond.

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

func newCompactPost(v *social.PostView) wire.CompactPost {
	p := &v.Post
	c := wire.CompactPost{
		TweetCreatedAt:       wire.Time{Time: p.CreatedAt},
		IDStr:                strconv.FormatInt(p.ID, 10),
		FullText:             p.Text,
		Source:               p.Source,
		Truncated:            p.Truncated,
		InReplyToStatusIDStr: optIDStr(p.InReplyToID),
		InReplyToUserIDStr:   optIDStr(p.InReplyToUserID),
		InReplyToScreenName:  replyScreenName(p),
		User:                 wire.CompactProfile{ProfileFields: newProfileFields(&v.Author, true)},
		QuotedStatusIDStr:    optIDStr(p.QuotedID),
		IsQuoteStatus:        p.QuotedID != 0,
		Engagement:           newEngagement(p),
		Lang:                 p.Lang,
		Entities:             newEntities(&p.Entities),
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

// highlightPosts shapes views in the highlights shape, their authors'
// profiles allocated together.
func highlightPosts(vs []social.PostView) []wire.HighlightPost {
	out := make([]wire.HighlightPost, len(vs))
	users := make([]wire.Profile, len(vs))
	for i := range vs {
		out[i] = newHighlightPost(&vs[i], &users[i])
	}
	return out
}

// newHighlightPost shapes v with its author's profile in user.
func newHighlightPost(v *social.PostView, user *wire.Profile) wire.HighlightPost {
	p := &v.Post
	*user = newProfile(&v.Author, true)
	return wire.HighlightPost{
		TweetCreatedAt:       wire.Time{Time: p.CreatedAt},
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
		User:                 user,
	}
}

// fullPosts shapes views in the full shape, their authors' profiles and
// their entities allocated together.
func fullPosts(vs []social.PostView) []wire.FullPost {
	out := make([]wire.FullPost, len(vs))
	users := make([]wire.Profile, len(vs))
	ents := make([]wire.Entities, len(vs))
	for i := range vs {
		fillFullPost(&out[i], &users[i], &ents[i], &vs[i])
	}
	return out
}

// newFullPost is one post in the full shape.
func newFullPost(v *social.PostView) *wire.FullPost {
	parts := new(struct {
		post wire.FullPost
		user wire.Profile
		ents wire.Entities
	})
	fillFullPost(&parts.post, &parts.user, &parts.ents, v)
	return &parts.post
}

// fillFullPost shapes v into f, with its author's profile in user and its
// entities in ents.
func fillFullPost(f *wire.FullPost, user *wire.Profile, ents *wire.Entities, v *social.PostView) {
	p := &v.Post
	*ents = newEntities(&p.Entities)
	*f = wire.FullPost{
		HighlightPost:     newHighlightPost(v, user),
		QuotedStatusID:    optID(p.QuotedID),
		QuotedStatusIDStr: optIDStr(p.QuotedID),
		IsQuoteStatus:     p.QuotedID != 0,
		Engagement:        newEngagement(p),
		Lang:              p.Lang,
		Entities:          ents,
		IsPinned:          v.Pinned,
	}
	if v.Quoted != nil {
		f.QuotedStatus = newFullPost(v.Quoted)
	}
	if v.RepostOf != nil {
		f.RetweetedStatus = newFullPost(v.RepostOf)
	}
}

func newEngagement(p *social.Post) wire.Engagement {
	return wire.Engagement{
		QuoteCount:    p.QuoteCount,
		ReplyCount:    p.ReplyCount,
		RetweetCount:  p.RetweetCount,
		FavoriteCount: p.FavoriteCount,
		ViewsCount:    p.Views,
		BookmarkCount: p.BookmarkCount,
	}
}

// newEntities always gives the four arrays, empty rather than null.
func newEntities(e *social.Entities) wire.Entities {
	out := wire.Entities{
		UserMentions: make([]wire.Mention, len(e.Mentions)),
		URLs:         make([]wire.URL, len(e.URLs)),
		Hashtags:     newTags(e.Hashtags),
		Symbols:      newTags(e.Symbols),
	}
	for i, m := range e.Mentions {
		id := ""
		if m.UserID != 0 {
			id = strconv.FormatInt(m.UserID, 10)
		}
		out.UserMentions[i] = wire.Mention{IDStr: id, Name: m.Name, ScreenName: m.ScreenName, Indices: [2]int{m.Start, m.End}}
	}
	for i, u := range e.URLs {
		out.URLs[i] = wire.URL{URL: u.URL, ExpandedURL: u.ExpandedURL, DisplayURL: u.DisplayURL, Indices: [2]int{u.Start, u.End}}
	}
	return out
}

func newTags(ts []social.Tag) []wire.Tag {
	out := make([]wire.Tag, len(ts))
	for i, t := range ts {
		out[i] = wire.Tag{Text: t.Text, Indices: [2]int{t.Start, t.End}}
	}
	return out
}
