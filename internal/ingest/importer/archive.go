package importer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// A personal data export holds JavaScript files of the form
//
//	window.YTD.tweets.part0 = [ {"tweet": {...}}, ... ]
//
// with numbers (ids, counts, indices) written as strings. tweets.js has no
// author: it comes from account.js (id, screen name, display name, creation
// time) and profile.js (bio, website, location, images) when present. When
// neither is present, the owner is recognised from the export itself: a
// link to one of its own posts ("x.com/NAME/status/ID" with ID in the
// export) names the account, and a reply or mention of NAME gives its id.
// note-tweet.js holds the full text of long posts; a note is matched to its
// post by creation time and text prefix.
//
// like.js lists the posts the owner liked, by id, with their text but
// neither author nor time. Each becomes a like of the owner's (from
// account.js, or recognised as above, or else named by Options.LikesOf;
// with none of them the likes are skipped and the summary says why); the
// liked post itself is not stored, its author being unknown. The like's
// time is the liked post's creation time, read from its snowflake id: the
// earliest the like can have been, and the same on every import (zero for
// ids older than snowflakes).

// exportSet is one export: a zip, or a tweets.js with its neighbours.
type exportSet struct {
	name      string
	account   *source
	profile   *source
	notes     *source
	tweets    []*source
	likes     []*source
	deleted   []*source // deleted-tweets.js
	followers []*source // follower.js
	following []*source // following.js
}

// ytdItem is one element of an export file.
type ytdItem struct {
	Tweet     *v1Status `json:"tweet"`
	Account   *ytdAccount
	Profile   *ytdProfile
	NoteTweet *ytdNote   `json:"noteTweet"`
	Like      *ytdLike   `json:"like"`
	Follower  *ytdFollow `json:"follower"`
	Following *ytdFollow `json:"following"`
}

// notTweet reports whether the item is one of the other kinds.
func (it *ytdItem) notTweet() bool {
	return it.Account != nil || it.Profile != nil || it.NoteTweet != nil || it.Like != nil ||
		it.Follower != nil || it.Following != nil
}

type ytdLike struct {
	TweetID     flexInt `json:"tweetId"`
	FullText    string  `json:"fullText"`
	ExpandedURL string  `json:"expandedUrl"`
}

type ytdAccount struct {
	AccountID          flexInt `json:"accountId"`
	Username           string  `json:"username"`
	AccountDisplayName string  `json:"accountDisplayName"`
	CreatedAt          string  `json:"createdAt"`
}

type ytdProfile struct {
	Description struct {
		Bio      string `json:"bio"`
		Website  string `json:"website"`
		Location string `json:"location"`
	} `json:"description"`
	AvatarMediaURL string `json:"avatarMediaUrl"`
	HeaderMediaURL string `json:"headerMediaUrl"`
}

type ytdNote struct {
	NoteTweetID flexInt `json:"noteTweetId"`
	CreatedAt   string  `json:"createdAt"`
	Core        struct {
		Text string `json:"text"`
		URLs []struct {
			ShortURL    string  `json:"shortUrl"`
			ExpandedURL string  `json:"expandedUrl"`
			DisplayURL  string  `json:"displayUrl"`
			FromIndex   flexInt `json:"fromIndex"`
			ToIndex     flexInt `json:"toIndex"`
		} `json:"urls"`
		Mentions []struct {
			ScreenName string  `json:"screenName"`
			FromIndex  flexInt `json:"fromIndex"`
			ToIndex    flexInt `json:"toIndex"`
		} `json:"mentions"`
		Hashtags []struct {
			Hashtag   string  `json:"hashtag"`
			FromIndex flexInt `json:"fromIndex"`
			ToIndex   flexInt `json:"toIndex"`
		} `json:"hashtags"`
		Cashtags []struct {
			Cashtag   string  `json:"cashtag"`
			FromIndex flexInt `json:"fromIndex"`
			ToIndex   flexInt `json:"toIndex"`
		} `json:"cashtags"`
	} `json:"core"`
}

// entities gives the note's entities in v1.1 form (indices over the raw
// note text).
func (n *ytdNote) entities() *v1Entities {
	var e v1Entities
	for _, u := range n.Core.URLs {
		e.URLs = append(e.URLs, v1URL{URL: u.ShortURL, ExpandedURL: u.ExpandedURL, DisplayURL: u.DisplayURL,
			Indices: []flexInt{u.FromIndex, u.ToIndex}})
	}
	for _, m := range n.Core.Mentions {
		e.UserMentions = append(e.UserMentions, v1Mention{ScreenName: m.ScreenName, Indices: []flexInt{m.FromIndex, m.ToIndex}})
	}
	for _, h := range n.Core.Hashtags {
		e.Hashtags = append(e.Hashtags, v1Tag{Text: h.Hashtag, Indices: []flexInt{h.FromIndex, h.ToIndex}})
	}
	for _, c := range n.Core.Cashtags {
		e.Symbols = append(e.Symbols, v1Tag{Text: c.Cashtag, Indices: []flexInt{c.FromIndex, c.ToIndex}})
	}
	return &e
}

// ytdKind strips the "window.YTD.<kind>.partN =" prefix from r and returns
// the kind ("" when the file is bare JSON).
func ytdKind(r *bufio.Reader) (string, error) {
	peek, _ := r.Peek(512)
	trimmed := bytes.TrimLeft(peek, " \t\r\n\ufeff")
	skip := len(peek) - len(trimmed)
	m := ytdPrefix.FindSubmatchIndex(trimmed)
	if m == nil {
		_, err := r.Discard(skip)
		return "", err
	}
	kind := string(trimmed[m[2]:m[3]])
	_, err := r.Discard(skip + m[1])
	return kind, err
}

// readYTD decodes every element of a small export file (account, profile,
// notes).
func readYTD(src *source) ([]ytdItem, error) {
	rc, err := src.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	if _, err := ytdKind(br); err != nil {
		return nil, fmt.Errorf("read %s: %w", src.name, err)
	}
	var items []ytdItem
	if err := json.NewDecoder(br).Decode(&items); err != nil {
		return nil, fmt.Errorf("read %s: %w", src.name, err)
	}
	return items, nil
}

// owner reads account.js and profile.js into the export's owner.
func (x *exportSet) owner() (social.User, error) {
	var u social.User
	if x.account == nil {
		return u, nil
	}
	items, err := readYTD(x.account)
	if err != nil {
		return u, err
	}
	for _, it := range items {
		if a := it.Account; a != nil && a.AccountID > 0 {
			u = social.User{ID: int64(a.AccountID), ScreenName: a.Username, Name: a.AccountDisplayName,
				CreatedAt: optTime(a.CreatedAt)}
		}
	}
	if u.ID == 0 {
		return u, fmt.Errorf("%s: no account with an accountId", x.account.name)
	}
	if x.profile != nil {
		items, err := readYTD(x.profile)
		if err != nil {
			return u, err
		}
		for _, it := range items {
			if p := it.Profile; p != nil {
				u.Description, u.URL, u.Location = p.Description.Bio, p.Description.Website, p.Description.Location
				u.ImageURL, u.BannerURL = p.AvatarMediaURL, p.HeaderMediaURL
			}
		}
	}
	u.Stub = u.ScreenName == ""
	return u, nil
}

// noteIndex finds the note of a long post by its creation second.
type noteIndex map[int64][]*ytdNote

func (x *exportSet) loadNotes() (noteIndex, error) {
	idx := noteIndex{}
	if x.notes == nil {
		return idx, nil
	}
	items, err := readYTD(x.notes)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if n := it.NoteTweet; n != nil && n.Core.Text != "" {
			if t, err := parseTime(n.CreatedAt); err == nil {
				idx[t.Unix()] = append(idx[t.Unix()], n)
			}
		}
	}
	return idx, nil
}

var trailingLink = regexp.MustCompile(`\s*https://t\.co/\w+\s*$`)

// find returns the note holding the full text of a post created at t with
// the (escaped, possibly cut) text.
func (idx noteIndex) find(t time.Time, text string) *ytdNote {
	if len(idx) == 0 {
		return nil
	}
	prefix := html.UnescapeString(text)
	prefix = trailingLink.ReplaceAllString(prefix, "")
	prefix = strings.TrimRight(strings.TrimSuffix(strings.TrimSpace(prefix), "…"), " ")
	for d := int64(-1); d <= 1; d++ {
		for _, n := range idx[t.Unix()+d] {
			if strings.HasPrefix(n.Core.Text, prefix) {
				return n
			}
		}
	}
	return nil
}

// ownLink finds links to posts: /NAME/status/ID.
var ownLink = regexp.MustCompile(`^https?://(?:mobile\.|www\.)?(?:twitter|x)\.com/([A-Za-z0-9_]{1,15})/status/(\d+)`)

// inferOwner recognises the export's owner from links to its own posts
// and from replies and mentions naming it (see the package comment above).
func (x *exportSet) inferOwner(ctx context.Context) (social.User, error) {
	ids := map[int64]bool{}
	names := map[string]int64{}    // lower-case screen name → id
	display := map[string]string{} // lower-case → as written
	type link struct {
		name string
		id   int64
	}
	var links []link
	for _, src := range x.tweets {
		err := eachExportTweet(ctx, src, func(s *v1Status) {
			ids[first(s.IDStr, s.ID)] = true
			if id := first(s.InReplyToUserIDStr, s.InReplyToUserID); id > 0 && s.InReplyToScreenName != "" {
				names[strings.ToLower(s.InReplyToScreenName)] = id
			}
			var ents []*v1Entities
			ents = append(ents, s.Entities, s.ExtendedEntities)
			for _, e := range ents {
				if e == nil {
					continue
				}
				for _, m := range e.UserMentions {
					if id := first(m.IDStr, m.ID); id > 0 {
						names[strings.ToLower(m.ScreenName)] = id
					}
				}
				var urls []string
				for _, u := range e.URLs {
					urls = append(urls, u.ExpandedURL)
				}
				for _, m := range e.Media {
					urls = append(urls, m.ExpandedURL)
				}
				for _, u := range urls {
					if sm := ownLink.FindStringSubmatch(u); sm != nil {
						var id flexInt
						if id.UnmarshalJSON([]byte(sm[2])) == nil {
							links = append(links, link{sm[1], int64(id)})
						}
					}
				}
			}
		})
		if err != nil {
			return social.User{}, err
		}
	}
	votes := map[string]int{}
	best := ""
	for _, l := range links {
		if !ids[l.id] {
			continue
		}
		k := strings.ToLower(l.name)
		display[k] = l.name
		votes[k]++
		if best == "" || votes[k] > votes[best] {
			best = k
		}
	}
	if best == "" || names[best] == 0 {
		return social.User{}, nil
	}
	return social.User{ID: names[best], ScreenName: display[best], Stub: true}, nil
}

// eachExportTweet streams the statuses of one tweets file.
func eachExportTweet(ctx context.Context, src *source, fn func(*v1Status)) error {
	rc, err := src.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 1<<16)
	if _, err := ytdKind(br); err != nil {
		return fmt.Errorf("read %s: %w", src.name, err)
	}
	st := &streamer{name: src.name}
	return st.docs(ctx, br, func(_ string, raw []byte, _ RecordError) []item {
		var it ytdItem
		if json.Unmarshal(raw, &it) == nil {
			if it.Tweet != nil {
				fn(it.Tweet)
			} else if !it.notTweet() {
				var s v1Status
				if json.Unmarshal(raw, &s) == nil {
					fn(&s)
				}
			}
		}
		return nil
	}, func(item) error { return nil })
}

// decodeExportTweet converts one element of tweets.js, written by owner,
// replacing a cut text with its note.
func decodeExportTweet(owner social.User, notes noteIndex) valueFunc {
	return func(_ string, raw []byte, at RecordError) []item {
		var yi ytdItem
		if err := json.Unmarshal(raw, &yi); err != nil {
			return []item{bad(at, "invalid export item: %v", err)}
		}
		s := yi.Tweet
		if s == nil {
			if yi.notTweet() {
				return []item{bad(at, "not a tweet item")}
			}
			s = new(v1Status)
			if err := json.Unmarshal(raw, s); err != nil {
				return []item{bad(at, "invalid export item: %v", err)}
			}
		}
		if owner.ID == 0 {
			return []item{bad(at, "author unknown: the export has no account.js and does not reveal its owner")}
		}
		s.User, s.UserIDStr = nil, flexInt(owner.ID)
		var it item
		p, err := s.post(&it.batch, 0)
		if err != nil {
			return []item{bad(at, "%v", err)}
		}
		if n := notes.find(p.CreatedAt, p.Text); n != nil {
			text, pos := escapeHTML(n.Core.Text)
			media := mediaOutside(p.Entities.Media, text)
			p.Text = text
			p.Entities = entitiesOf(text, n.entities(), nil, pos)
			p.Entities.Media = media
			p.Truncated = false
		}
		it.batch.Posts = append(it.batch.Posts, p)
		return []item{it}
	}
}

// errNoLiker is the skip reason of likes whose liking user is unknown.
const errNoLiker = "like of an unknown user"

// decodeExportLike converts one element of like.js into a like by liker
// (0: unknown, the like is skipped).
func decodeExportLike(liker int64) valueFunc {
	return func(_ string, raw []byte, at RecordError) []item {
		var yi ytdItem
		if err := json.Unmarshal(raw, &yi); err != nil {
			return []item{bad(at, "invalid export item: %v", err)}
		}
		if yi.Like == nil || yi.Like.TweetID <= 0 {
			return []item{bad(at, "not a like item with a tweetId")}
		}
		if liker == 0 {
			return []item{{skip: errNoLiker}}
		}
		id := int64(yi.Like.TweetID)
		return []item{{batch: social.Batch{Likes: []social.Like{{PostID: id, UserID: liker, CreatedAt: snowflakeTime(id)}}}}}
	}
}

// snowflakeTime is the creation time a snowflake id holds; zero for ids
// older than snowflakes (below 2^42, far beyond the last counter id).
func snowflakeTime(id int64) time.Time {
	if id < 1<<42 {
		return time.Time{}
	}
	return time.UnixMilli(id>>social.SnowflakeShift + social.SnowflakeEpochMS).UTC()
}

// decodeExportProfile handles an account.js or profile.js given on its own
// (outside an export set): account.js gives the user.
func decodeExportProfile(_ string, raw []byte, at RecordError) []item {
	var yi ytdItem
	if err := json.Unmarshal(raw, &yi); err != nil {
		return []item{bad(at, "invalid export item: %v", err)}
	}
	if a := yi.Account; a != nil && a.AccountID > 0 {
		u := social.User{ID: int64(a.AccountID), ScreenName: a.Username, Name: a.AccountDisplayName,
			CreatedAt: optTime(a.CreatedAt), Stub: a.Username == ""}
		return []item{{batch: social.Batch{Users: []social.User{u}}}}
	}
	return nil
}

// readerOf is io.ReadCloser from a reader and a closer.
type readerOf struct {
	io.Reader
	io.Closer
}
