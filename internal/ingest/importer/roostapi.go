package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// apiPost is a post as the API serves it (compact, full or highlights
// shape: docs/api.md, "Objects").
type apiPost struct {
	TweetCreatedAt       string      `json:"tweet_created_at"`
	ID                   flexInt     `json:"id"`
	IDStr                flexInt     `json:"id_str"`
	FullText             string      `json:"full_text"`
	Source               string      `json:"source"`
	Truncated            bool        `json:"truncated"`
	InReplyToStatusID    flexInt     `json:"in_reply_to_status_id"`
	InReplyToStatusIDStr flexInt     `json:"in_reply_to_status_id_str"`
	InReplyToUserID      flexInt     `json:"in_reply_to_user_id"`
	InReplyToUserIDStr   flexInt     `json:"in_reply_to_user_id_str"`
	InReplyToScreenName  string      `json:"in_reply_to_screen_name"`
	User                 *v1User     `json:"user"`
	QuotedStatusID       flexInt     `json:"quoted_status_id"`
	QuotedStatusIDStr    flexInt     `json:"quoted_status_id_str"`
	QuotedStatus         *apiPost    `json:"quoted_status"`
	RetweetedStatus      *apiPost    `json:"retweeted_status"`
	QuoteCount           flexInt     `json:"quote_count"`
	ReplyCount           flexInt     `json:"reply_count"`
	RetweetCount         flexInt     `json:"retweet_count"`
	FavoriteCount        flexInt     `json:"favorite_count"`
	BookmarkCount        flexInt     `json:"bookmark_count"`
	ViewsCount           *flexInt    `json:"views_count"`
	Lang                 string      `json:"lang"`
	Entities             *v1Entities `json:"entities"`
	IsPinned             bool        `json:"is_pinned"`
}

func (a *apiPost) convert(b *social.Batch, depth int) (int64, error) {
	id := first(a.IDStr, a.ID)
	if id <= 0 {
		return 0, fmt.Errorf("post without an id_str")
	}
	created, err := parseTime(a.TweetCreatedAt)
	if err != nil {
		return 0, fmt.Errorf("post %d: tweet_created_at: %w", id, err)
	}
	if a.User == nil {
		return 0, fmt.Errorf("post %d has no user", id)
	}
	u, err := a.User.toUser()
	if err != nil {
		return 0, fmt.Errorf("post %d: user: %w", id, err)
	}
	if a.IsPinned && !u.Stub {
		u.PinnedPostID = id
	}
	b.Users = append(b.Users, u)
	p := social.Post{
		ID: id, AuthorID: u.ID, CreatedAt: created, Text: a.FullText, Source: a.Source,
		Truncated: a.Truncated, Lang: a.Lang,
		InReplyToID:         first(a.InReplyToStatusIDStr, a.InReplyToStatusID),
		InReplyToUserID:     first(a.InReplyToUserIDStr, a.InReplyToUserID),
		InReplyToScreenName: a.InReplyToScreenName,
		QuotedID:            first(a.QuotedStatusIDStr, a.QuotedStatusID),
		QuoteCount:          int64(a.QuoteCount), ReplyCount: int64(a.ReplyCount),
		RetweetCount: int64(a.RetweetCount), FavoriteCount: int64(a.FavoriteCount),
		BookmarkCount: int64(a.BookmarkCount),
	}
	if a.ViewsCount != nil {
		v := int64(*a.ViewsCount)
		p.Views = &v
	}
	if p.Lang == "" {
		p.Lang = "und"
	}
	p.Entities = entitiesOf(p.Text, a.Entities, nil, nil)
	if depth < maxNest {
		if q := a.QuotedStatus; q != nil {
			qid, err := q.convert(b, depth+1)
			if err != nil {
				return 0, fmt.Errorf("quoted_status: %w", err)
			}
			if p.QuotedID == 0 {
				p.QuotedID = qid
			}
		}
		if r := a.RetweetedStatus; r != nil {
			rid, err := r.convert(b, depth+1)
			if err != nil {
				return 0, fmt.Errorf("retweeted_status: %w", err)
			}
			p.RepostOfID = rid
			b.Reposts = append(b.Reposts, social.Repost{PostID: rid, UserID: u.ID, CreatedAt: created})
		}
	}
	b.Posts = append(b.Posts, p)
	return id, nil
}

// apiList is a list as the API serves it (docs/api.md, "Objects").
type apiList struct {
	IDStr              flexInt `json:"id_str"`
	Name               string  `json:"name"`
	Description        string  `json:"description"`
	Mode               string  `json:"mode"`
	CreatedAt          flexInt `json:"created_at"`
	MemberCount        flexInt `json:"member_count"`
	SubscriberCount    flexInt `json:"subscriber_count"`
	DefaultBannerMedia struct {
		MediaInfo struct {
			OriginalImgURL string `json:"original_img_url"`
		} `json:"media_info"`
	} `json:"default_banner_media"`
	UserResults gqlResult `json:"user_results"`
}

func (l *apiList) convert(b *social.Batch) error {
	if l.IDStr <= 0 {
		return fmt.Errorf("list without an id_str")
	}
	out := social.List{ID: int64(l.IDStr), Name: l.Name, Description: l.Description, Mode: l.Mode,
		MemberCount: int64(l.MemberCount), SubscriberCount: int64(l.SubscriberCount),
		BannerURL: l.DefaultBannerMedia.MediaInfo.OriginalImgURL}
	if l.CreatedAt > 0 {
		out.CreatedAt = optTime(strconv.FormatInt(int64(l.CreatedAt), 10))
	}
	if len(l.UserResults.Result) > 0 {
		var g gqlUser
		if err := json.Unmarshal(l.UserResults.Result, &g); err != nil {
			return fmt.Errorf("list %d owner: %w", l.IDStr, err)
		}
		u, err := g.toUser()
		if err != nil {
			return fmt.Errorf("list %d owner: %w", l.IDStr, err)
		}
		out.OwnerID = u.ID
		b.Users = append(b.Users, u)
	}
	if out.OwnerID == 0 {
		return fmt.Errorf("list %d has no owner", l.IDStr)
	}
	b.Lists = append(b.Lists, out)
	return nil
}

// apiPage is a page envelope, or any top-level API value.
type apiPage struct {
	Tweets []json.RawMessage `json:"tweets"`
	Users  []json.RawMessage `json:"users"`
	Lists  []json.RawMessage `json:"lists"`
}

// apiProbe is the top of an API response: a page, or one post.
type apiProbe struct {
	apiPage
	TweetCreatedAt *string `json:"tweet_created_at"`
}

// decodeAPI decodes one value of roost's (or the hosted service's)
// responses: a page, a tweets-by-ids array or one of its elements, or an
// element streamed out of a page (key "tweets", "users" or "lists").
func decodeAPI(key string, raw []byte, at RecordError) []item {
	raw = bytes.TrimSpace(raw)
	switch key {
	case "tweets":
		return []item{apiOne(raw, at, func(b *social.Batch) error {
			var p apiPost
			if err := unmarshalFast(raw, &p); err != nil {
				return fmt.Errorf("invalid post: %w", err)
			}
			_, err := p.convert(b, 0)
			return err
		})}
	case "users":
		return []item{apiOne(raw, at, func(b *social.Batch) error {
			var u v1User
			if err := unmarshalFast(raw, &u); err != nil {
				return fmt.Errorf("invalid profile: %w", err)
			}
			su, err := u.toUser()
			if err != nil {
				return err
			}
			b.Users = append(b.Users, su)
			return nil
		})}
	case "lists":
		return []item{apiOne(raw, at, func(b *social.Batch) error {
			var l apiList
			if err := unmarshalFast(raw, &l); err != nil {
				return fmt.Errorf("invalid list: %w", err)
			}
			return l.convert(b)
		})}
	}
	if len(raw) > 0 && raw[0] == '[' {
		var arr []json.RawMessage
		if err := unmarshalFast(raw, &arr); err != nil {
			return []item{bad(at, "invalid JSON: %v", err)}
		}
		var out []item
		for i, el := range arr {
			a := at
			a.Path = joinPath(at.Path, "["+strconv.Itoa(i)+"]")
			out = append(out, decodeAPI("tweets", el, a)...)
		}
		return out
	}
	var probe apiProbe
	if err := unmarshalFast(raw, &probe); err != nil {
		return []item{bad(at, "invalid JSON: %v", err)}
	}
	if probe.TweetCreatedAt != nil {
		return decodeAPI("tweets", raw, at)
	}
	var out []item
	for _, part := range []struct {
		key  string
		vals []json.RawMessage
	}{{"tweets", probe.Tweets}, {"users", probe.Users}, {"lists", probe.Lists}} {
		for i, el := range part.vals {
			a := at
			a.Path = joinPath(at.Path, "."+part.key+"["+strconv.Itoa(i)+"]")
			out = append(out, decodeAPI(part.key, el, a)...)
		}
	}
	if out == nil && probe.Tweets == nil && probe.Users == nil && probe.Lists == nil {
		return []item{bad(at, "not an API response: no tweets, users or lists")}
	}
	return out
}

func apiOne(raw []byte, at RecordError, fn func(b *social.Batch) error) item {
	var it item
	if err := fn(&it.batch); err != nil {
		return bad(at, "%v", err)
	}
	return it
}

// DecodePage reads one response of the API (a page, a tweets-by-ids array
// or one post) into a batch, as an import reads each line of such a file:
// authors and embedded posts included, each value once. A malformed record
// is an error naming it.
func DecodePage(raw []byte) (*social.Batch, error) {
	var out *social.Batch
	var sum Summary
	// A page holds at most a few hundred values: one batch takes them all.
	e := newEmitter(pageBatch, &sum, func(b *social.Batch) error {
		if out != nil {
			return fmt.Errorf("a page of more than %d posts", pageBatch)
		}
		out = b
		return nil
	})
	for _, it := range decodeAPI("", raw, RecordError{Path: "$"}) {
		if it.err != nil {
			return nil, it.err
		}
		if err := e.add(it); err != nil {
			return nil, err
		}
	}
	if err := e.done(); err != nil {
		return nil, err
	}
	if out == nil {
		out = &social.Batch{}
	}
	return out, nil
}

// pageBatch bounds the values DecodePage takes from one page.
const pageBatch = 1000

// Merger gathers batches (DecodePage's, say) into one, as an import
// gathers records: each user, post and relation row once, a later copy of
// a post or a user replacing an earlier one. Writing several pages in one
// transaction is what makes a harvest fast.
type Merger struct {
	e   *emitter
	sum Summary
	out *social.Batch
}

// NewMerger is an empty Merger.
func NewMerger() *Merger {
	m := &Merger{}
	// The size only bounds a batch: a Merger never flushes on its own.
	m.e = newEmitter(math.MaxInt/8, &m.sum, func(b *social.Batch) error {
		m.out = b
		return nil
	})
	return m
}

// Add merges b.
func (m *Merger) Add(b *social.Batch) error {
	return m.e.add(item{batch: *b, extra: true})
}

// Batch is everything added, as one batch.
func (m *Merger) Batch() (*social.Batch, error) {
	if err := m.e.done(); err != nil {
		return nil, err
	}
	if m.out == nil {
		return &social.Batch{}, nil
	}
	return m.out, nil
}
