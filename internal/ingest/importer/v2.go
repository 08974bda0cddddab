package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// v2Page is one API v2 response as twarc2 writes it, one a line.
type v2Page struct {
	Data     json.RawMessage `json:"data"`
	Includes struct {
		Users  []v2User  `json:"users"`
		Tweets []v2Tweet `json:"tweets"`
		Media  []v2Media `json:"media"`
	} `json:"includes"`
}

// v2Tweet is a v2 tweet object. Author, present in twarc's flattened
// output, embeds the author.
type v2Tweet struct {
	ID               flexInt     `json:"id"`
	Text             string      `json:"text"`
	AuthorID         flexInt     `json:"author_id"`
	Author           *v2User     `json:"author"`
	CreatedAt        string      `json:"created_at"`
	ConversationID   flexInt     `json:"conversation_id"`
	InReplyToUserID  flexInt     `json:"in_reply_to_user_id"`
	Lang             string      `json:"lang"`
	Source           string      `json:"source"`
	Entities         *v2Entities `json:"entities"`
	ReferencedTweets []struct {
		Type string  `json:"type"`
		ID   flexInt `json:"id"`
	} `json:"referenced_tweets"`
	PublicMetrics struct {
		RetweetCount    flexInt  `json:"retweet_count"`
		ReplyCount      flexInt  `json:"reply_count"`
		LikeCount       flexInt  `json:"like_count"`
		QuoteCount      flexInt  `json:"quote_count"`
		BookmarkCount   flexInt  `json:"bookmark_count"`
		ImpressionCount *flexInt `json:"impression_count"`
	} `json:"public_metrics"`
	NoteTweet *struct {
		Text     string      `json:"text"`
		Entities *v2Entities `json:"entities"`
	} `json:"note_tweet"`
}

type v2Entities struct {
	Mentions []struct {
		Start    int     `json:"start"`
		End      int     `json:"end"`
		Username string  `json:"username"`
		ID       flexInt `json:"id"`
	} `json:"mentions"`
	Hashtags []v2Tag `json:"hashtags"`
	Cashtags []v2Tag `json:"cashtags"`
	URLs     []struct {
		Start       int    `json:"start"`
		End         int    `json:"end"`
		URL         string `json:"url"`
		ExpandedURL string `json:"expanded_url"`
		DisplayURL  string `json:"display_url"`
		MediaKey    string `json:"media_key"`
	} `json:"urls"`
}

type v2Tag struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Tag   string `json:"tag"`
}

type v2Media struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url"`
	PreviewImageURL string `json:"preview_image_url"`
}

type v2User struct {
	ID              flexInt `json:"id"`
	Username        string  `json:"username"`
	Name            string  `json:"name"`
	CreatedAt       string  `json:"created_at"`
	Description     string  `json:"description"`
	Location        string  `json:"location"`
	URL             string  `json:"url"`
	Verified        bool    `json:"verified"`
	Protected       bool    `json:"protected"`
	ProfileImageURL string  `json:"profile_image_url"`
	PinnedTweetID   flexInt `json:"pinned_tweet_id"`
	PublicMetrics   struct {
		FollowersCount flexInt `json:"followers_count"`
		FollowingCount flexInt `json:"following_count"`
		TweetCount     flexInt `json:"tweet_count"`
		ListedCount    flexInt `json:"listed_count"`
	} `json:"public_metrics"`
	Entities struct {
		URL struct {
			URLs []v1URL `json:"urls"`
		} `json:"url"`
	} `json:"entities"`
}

func (u *v2User) toUser() (social.User, error) {
	if u.ID <= 0 {
		return social.User{}, fmt.Errorf("user without an id")
	}
	out := social.User{
		ID: int64(u.ID), ScreenName: u.Username, Name: u.Name, CreatedAt: optTime(u.CreatedAt),
		Description: u.Description, Location: u.Location, URL: u.URL, Verified: u.Verified,
		Protected: u.Protected, ImageURL: u.ProfileImageURL, PinnedPostID: int64(u.PinnedTweetID),
		FollowersCount: int64(u.PublicMetrics.FollowersCount), FriendsCount: int64(u.PublicMetrics.FollowingCount),
		StatusesCount: int64(u.PublicMetrics.TweetCount), ListedCount: int64(u.PublicMetrics.ListedCount),
		Stub: u.Username == "",
	}
	if urls := u.Entities.URL.URLs; len(urls) > 0 && urls[0].ExpandedURL != "" {
		out.URL = urls[0].ExpandedURL
	}
	return out, nil
}

// v2Context is what a page's includes tell about the tweets in it.
type v2Context struct {
	users map[int64]*v2User
	media map[string]*v2Media
}

func (t *v2Tweet) convert(b *social.Batch, ctx *v2Context) error {
	if t.ID <= 0 {
		return fmt.Errorf("tweet without an id")
	}
	created, err := parseTime(t.CreatedAt)
	if err != nil {
		return fmt.Errorf("tweet %d: created_at: %w", t.ID, err)
	}
	author := int64(t.AuthorID)
	au := t.Author
	if au == nil {
		au = ctx.users[author]
	}
	if au != nil {
		u, err := au.toUser()
		if err != nil {
			return fmt.Errorf("tweet %d: author: %w", t.ID, err)
		}
		author = u.ID
		b.Users = append(b.Users, u)
	}
	if author <= 0 {
		return fmt.Errorf("tweet %d has no author_id", t.ID)
	}
	p := social.Post{
		ID: int64(t.ID), AuthorID: author, CreatedAt: created, Text: t.Text, Source: t.Source,
		Lang: t.Lang, InReplyToUserID: int64(t.InReplyToUserID), ConversationID: int64(t.ConversationID),
		RetweetCount: int64(t.PublicMetrics.RetweetCount), ReplyCount: int64(t.PublicMetrics.ReplyCount),
		FavoriteCount: int64(t.PublicMetrics.LikeCount), QuoteCount: int64(t.PublicMetrics.QuoteCount),
		BookmarkCount: int64(t.PublicMetrics.BookmarkCount),
	}
	if v := t.PublicMetrics.ImpressionCount; v != nil {
		n := int64(*v)
		p.Views = &n
	}
	if p.Lang == "" {
		p.Lang = "und"
	}
	if ru := ctx.users[p.InReplyToUserID]; ru != nil {
		p.InReplyToScreenName = ru.Username
	}
	for _, r := range t.ReferencedTweets {
		switch r.Type {
		case "replied_to":
			p.InReplyToID = int64(r.ID)
		case "quoted":
			p.QuotedID = int64(r.ID)
		case "retweeted":
			p.RepostOfID = int64(r.ID)
			if r.ID > 0 {
				b.Reposts = append(b.Reposts, social.Repost{PostID: int64(r.ID), UserID: author, CreatedAt: created})
			}
		}
	}
	ents := t.Entities
	if n := t.NoteTweet; n != nil && n.Text != "" {
		p.Text, ents = n.Text, n.Entities
	}
	p.Entities = ents.convert(p.Text, ctx)
	b.Posts = append(b.Posts, p)
	return nil
}

// convert turns v2 entities (start/end are code points over the escaped
// text) into the domain form; links to attached media become media.
func (e *v2Entities) convert(text string, ctx *v2Context) social.Entities {
	if e == nil {
		return complete(text, social.Entities{}, catAll)
	}
	var out social.Entities
	for _, m := range e.Mentions {
		out.Mentions = append(out.Mentions, social.Mention{UserID: int64(m.ID), ScreenName: m.Username, Start: m.Start, End: m.End})
		if u := ctx.users[int64(m.ID)]; u != nil {
			out.Mentions[len(out.Mentions)-1].Name = u.Name
		}
	}
	for _, h := range e.Hashtags {
		out.Hashtags = append(out.Hashtags, social.Tag{Text: h.Tag, Start: h.Start, End: h.End})
	}
	for _, h := range e.Cashtags {
		out.Symbols = append(out.Symbols, social.Tag{Text: h.Tag, Start: h.Start, End: h.End})
	}
	for _, u := range e.URLs {
		if u.MediaKey != "" {
			m := social.Media{Type: social.MediaPhoto, URL: u.URL, ExpandedURL: u.ExpandedURL,
				DisplayURL: u.DisplayURL, Start: u.Start, End: u.End}
			if _, id, ok := strings.Cut(u.MediaKey, "_"); ok {
				m.ID, _ = strconv.ParseInt(id, 10, 64)
			}
			if md := ctx.media[u.MediaKey]; md != nil {
				m.Type = firstString(md.Type, m.Type)
				m.MediaURL = firstString(md.URL, md.PreviewImageURL)
			}
			out.Media = append(out.Media, m)
			continue
		}
		out.URLs = append(out.URLs, social.URL{URL: u.URL, ExpandedURL: u.ExpandedURL, DisplayURL: u.DisplayURL, Start: u.Start, End: u.End})
	}
	return out
}

// decodeV2 decodes one v2 value: a page (data plus includes) or a single
// tweet as twarc2's flattened output writes it.
func decodeV2(_ string, raw []byte, at RecordError) []item {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return []item{bad(at, "invalid JSON: %v", err)}
		}
		var out []item
		for i, el := range arr {
			a := at
			a.Path = joinPath(at.Path, "["+strconv.Itoa(i)+"]")
			out = append(out, decodeV2("", el, a)...)
		}
		return out
	}
	var page v2Page
	if err := json.Unmarshal(raw, &page); err != nil {
		return []item{bad(at, "invalid v2 page: %v", err)}
	}
	ctx := &v2Context{users: map[int64]*v2User{}, media: map[string]*v2Media{}}
	for i := range page.Includes.Users {
		ctx.users[int64(page.Includes.Users[i].ID)] = &page.Includes.Users[i]
	}
	for i := range page.Includes.Media {
		ctx.media[page.Includes.Media[i].MediaKey] = &page.Includes.Media[i]
	}
	var data []v2Tweet
	dataPath := ".data"
	switch d := bytes.TrimSpace(page.Data); {
	case len(d) == 0 || string(d) == "null":
		if page.Data == nil && page.Includes.Tweets == nil && page.Includes.Users == nil {
			// A flattened tweet, not a page.
			var t v2Tweet
			if err := json.Unmarshal(raw, &t); err != nil || t.ID == 0 {
				return []item{bad(at, "neither a v2 page nor a v2 tweet")}
			}
			data, dataPath = []v2Tweet{t}, ""
		}
	case d[0] == '[':
		if err := json.Unmarshal(d, &data); err != nil {
			return []item{bad(at, "invalid v2 data: %v", err)}
		}
	default:
		var t v2Tweet
		if err := json.Unmarshal(d, &t); err != nil {
			return []item{bad(at, "invalid v2 data: %v", err)}
		}
		data, dataPath = []v2Tweet{t}, ".data"
	}
	var out []item
	conv := func(t *v2Tweet, path string) {
		var it item
		if err := t.convert(&it.batch, ctx); err != nil {
			a := at
			a.Path = joinPath(at.Path, path)
			it = bad(a, "%v", err)
		}
		out = append(out, it)
	}
	for i := range page.Includes.Tweets {
		conv(&page.Includes.Tweets[i], ".includes.tweets["+strconv.Itoa(i)+"]")
	}
	for i := range data {
		conv(&data[i], dataPath+"["+strconv.Itoa(i)+"]")
	}
	// Profiles of users who only appear in includes (mentioned, replied to).
	extra := item{extra: true}
	for i := range page.Includes.Users {
		if u, err := page.Includes.Users[i].toUser(); err == nil {
			extra.batch.Users = append(extra.batch.Users, u)
		}
	}
	if len(extra.batch.Users) > 0 {
		out = append(out, extra)
	}
	return out
}
