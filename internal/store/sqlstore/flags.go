package sqlstore

import (
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// Post flags: facts about a post that search filters test, computed once
// when the post is written (Flags) and stored as a bit set by every engine.
const (
	FlagReply      int64 = 1 << iota // a reply
	FlagSelfThread                   // a reply to the author's own post
	FlagQuote                        // quotes a post
	FlagRepost                       // a native repost
	FlagOldRetweet                   // text starts with "RT @"
	FlagMedia                        // has any media
	FlagImages                       // has a photo
	FlagVideos                       // has a video or animated GIF
	FlagLinks                        // has a URL entity
	FlagMentions                     // mentions a user
	FlagHashtags                     // has a hashtag
	FlagEngagement                   // any favourite, repost, reply or quote
)

// Flags computes a post's flag set.
func Flags(p *social.Post) int64 {
	var f int64
	set := func(b int64, ok bool) {
		if ok {
			f |= b
		}
	}
	set(FlagReply, p.InReplyToID != 0)
	set(FlagSelfThread, p.InReplyToID != 0 && p.InReplyToUserID == p.AuthorID)
	set(FlagQuote, p.QuotedID != 0)
	set(FlagRepost, p.RepostOfID != 0)
	set(FlagOldRetweet, strings.HasPrefix(p.Text, "RT @"))
	set(FlagMedia, len(p.Entities.Media) > 0)
	for _, m := range p.Entities.Media {
		set(FlagImages, m.Type == social.MediaPhoto)
		set(FlagVideos, m.Type == social.MediaVideo || m.Type == social.MediaGIF)
	}
	set(FlagLinks, len(p.Entities.URLs) > 0)
	set(FlagMentions, len(p.Entities.Mentions) > 0)
	set(FlagHashtags, len(p.Entities.Hashtags) > 0)
	set(FlagEngagement, p.FavoriteCount+p.RetweetCount+p.ReplyCount+p.QuoteCount > 0)
	return f
}
