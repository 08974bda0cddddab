package export

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// API v2 pages as twarc2 writes them (one response a line: data, and
// includes of users, referenced tweets and media), as roost's v2 importer
// reads them back: every field roost holds that v2 carries. includes.users
// holds every stored user the page names (authors, users replied to and
// mentioned), so that replies keep their parent's screen name. source is
// the client's name, as v2 writes it.

// v2PageSize is how many posts one page holds (twarc2's pages hold 100).
const v2PageSize = 100

type v2Page struct {
	Data     []v2Tweet  `json:"data"`
	Includes v2Includes `json:"includes"`
}

type v2Includes struct {
	Users  []v2User  `json:"users"`
	Tweets []v2Tweet `json:"tweets"`
	Media  []v2Media `json:"media"`
}

type v2Tweet struct {
	ID               string         `json:"id"`
	Text             string         `json:"text"`
	AuthorID         string         `json:"author_id"`
	CreatedAt        string         `json:"created_at"`
	ConversationID   string         `json:"conversation_id"`
	InReplyToUserID  string         `json:"in_reply_to_user_id,omitempty"`
	Lang             string         `json:"lang"`
	Source           string         `json:"source"`
	Entities         v2Entities     `json:"entities"`
	ReferencedTweets []v2Ref        `json:"referenced_tweets,omitempty"`
	Attachments      *v2Attachments `json:"attachments,omitempty"`
	PublicMetrics    v2TweetMetrics `json:"public_metrics"`
}

type v2Ref struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type v2Attachments struct {
	MediaKeys []string `json:"media_keys"`
}

type v2TweetMetrics struct {
	RetweetCount    int64  `json:"retweet_count"`
	ReplyCount      int64  `json:"reply_count"`
	LikeCount       int64  `json:"like_count"`
	QuoteCount      int64  `json:"quote_count"`
	BookmarkCount   int64  `json:"bookmark_count"`
	ImpressionCount *int64 `json:"impression_count,omitempty"`
}

type v2Entities struct {
	Mentions []v2Mention `json:"mentions"`
	Hashtags []v2Tag     `json:"hashtags"`
	Cashtags []v2Tag     `json:"cashtags"`
	URLs     []v2URL     `json:"urls"`
}

type v2Mention struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Username string `json:"username"`
	ID       string `json:"id,omitempty"`
}

type v2Tag struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Tag   string `json:"tag"`
}

type v2URL struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
	MediaKey    string `json:"media_key,omitempty"`
}

type v2Media struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url,omitempty"`
	PreviewImageURL string `json:"preview_image_url,omitempty"`
}

type v2User struct {
	ID              string        `json:"id"`
	Username        string        `json:"username"`
	Name            string        `json:"name"`
	CreatedAt       string        `json:"created_at,omitempty"`
	Description     string        `json:"description"`
	Location        string        `json:"location"`
	URL             string        `json:"url"`
	Verified        bool          `json:"verified"`
	Protected       bool          `json:"protected"`
	ProfileImageURL string        `json:"profile_image_url"`
	PinnedTweetID   string        `json:"pinned_tweet_id,omitempty"`
	PublicMetrics   v2UserMetrics `json:"public_metrics"`
}

type v2UserMetrics struct {
	FollowersCount int64 `json:"followers_count"`
	FollowingCount int64 `json:"following_count"`
	TweetCount     int64 `json:"tweet_count"`
	ListedCount    int64 `json:"listed_count"`
}

// newV2Page is the page of views: the posts they embed (quoted, reposted,
// two levels deep) go to includes.tweets, each once.
func newV2Page(views []social.PostView, users map[int64]*social.User) v2Page {
	pg := v2Page{Data: make([]v2Tweet, 0, len(views)),
		Includes: v2Includes{Users: []v2User{}, Tweets: []v2Tweet{}, Media: []v2Media{}}}
	userIDs := map[int64]bool{}
	tweetIDs := map[int64]bool{}
	mediaKeys := map[string]bool{}
	nameUsers := func(p *social.Post) {
		userIDs[p.AuthorID] = true
		if p.InReplyToUserID != 0 {
			userIDs[p.InReplyToUserID] = true
		}
		for _, m := range p.Entities.Mentions {
			if m.UserID != 0 {
				userIDs[m.UserID] = true
			}
		}
		for _, m := range p.Entities.Media {
			if k := mediaKey(m); !mediaKeys[k] {
				mediaKeys[k] = true
				pg.Includes.Media = append(pg.Includes.Media, newV2Media(m))
			}
		}
	}
	var include func(v *social.PostView)
	include = func(v *social.PostView) {
		for _, x := range []*social.PostView{v.Quoted, v.RepostOf} {
			if x == nil || tweetIDs[x.ID] {
				continue
			}
			tweetIDs[x.ID] = true
			pg.Includes.Tweets = append(pg.Includes.Tweets, newV2Tweet(&x.Post))
			nameUsers(&x.Post)
			include(x)
		}
	}
	for i := range views {
		pg.Data = append(pg.Data, newV2Tweet(&views[i].Post))
		nameUsers(&views[i].Post)
		include(&views[i])
	}
	for id := range userIDs {
		if u := users[id]; u != nil {
			pg.Includes.Users = append(pg.Includes.Users, newV2User(u))
		}
	}
	slices.SortFunc(pg.Includes.Users, func(a, b v2User) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(pg.Includes.Tweets, func(a, b v2Tweet) int { return cmpID(a.ID, b.ID) })
	slices.SortFunc(pg.Includes.Media, func(a, b v2Media) int { return cmp.Compare(a.MediaKey, b.MediaKey) })
	return pg
}

// cmpID orders decimal ids numerically.
func cmpID(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return cmp.Compare(a, b)
}

func newV2Tweet(p *social.Post) v2Tweet {
	t := v2Tweet{
		ID: strconv.FormatInt(p.ID, 10), Text: p.Text, AuthorID: strconv.FormatInt(p.AuthorID, 10),
		CreatedAt: p.CreatedAt.UTC().Format(v2Time), ConversationID: id(p.ConversationID),
		InReplyToUserID: id(p.InReplyToUserID), Lang: p.Lang, Source: social.SourceName(p.Source),
		PublicMetrics: v2TweetMetrics{RetweetCount: p.RetweetCount, ReplyCount: p.ReplyCount, LikeCount: p.FavoriteCount,
			QuoteCount: p.QuoteCount, BookmarkCount: p.BookmarkCount, ImpressionCount: p.Views},
	}
	e := &p.Entities
	t.Entities = v2Entities{Mentions: make([]v2Mention, len(e.Mentions)), Hashtags: v2Tags(e.Hashtags),
		Cashtags: v2Tags(e.Symbols), URLs: make([]v2URL, 0, len(e.URLs)+len(e.Media))}
	for i, m := range e.Mentions {
		t.Entities.Mentions[i] = v2Mention{Start: m.Start, End: m.End, Username: m.ScreenName, ID: id(m.UserID)}
	}
	for _, u := range e.URLs {
		t.Entities.URLs = append(t.Entities.URLs, v2URL{Start: u.Start, End: u.End, URL: u.URL, ExpandedURL: u.ExpandedURL,
			DisplayURL: u.DisplayURL})
	}
	if len(e.Media) > 0 {
		t.Attachments = &v2Attachments{}
		for _, m := range e.Media {
			k := mediaKey(m)
			t.Attachments.MediaKeys = append(t.Attachments.MediaKeys, k)
			t.Entities.URLs = append(t.Entities.URLs, v2URL{Start: m.Start, End: m.End, URL: m.URL, ExpandedURL: m.ExpandedURL,
				DisplayURL: m.DisplayURL, MediaKey: k})
		}
	}
	for _, r := range []struct {
		kind string
		id   int64
	}{{"replied_to", p.InReplyToID}, {"quoted", p.QuotedID}, {"retweeted", p.RepostOfID}} {
		if r.id != 0 {
			t.ReferencedTweets = append(t.ReferencedTweets, v2Ref{Type: r.kind, ID: strconv.FormatInt(r.id, 10)})
		}
	}
	return t
}

func v2Tags(ts []social.Tag) []v2Tag {
	out := make([]v2Tag, len(ts))
	for i, t := range ts {
		out[i] = v2Tag{Start: t.Start, End: t.End, Tag: t.Text}
	}
	return out
}

func newV2Media(m social.Media) v2Media {
	out := v2Media{MediaKey: mediaKey(m), Type: m.Type}
	if m.Type == social.MediaPhoto {
		out.URL = m.MediaURL
	} else {
		out.PreviewImageURL = m.MediaURL
	}
	return out
}

func newV2User(u *social.User) v2User {
	return v2User{
		ID: strconv.FormatInt(u.ID, 10), Username: u.ScreenName, Name: u.Name, CreatedAt: optTime(u.CreatedAt),
		Description: u.Description, Location: u.Location, URL: u.URL, Verified: u.Verified || u.BlueVerified,
		Protected: u.Protected, ProfileImageURL: u.ImageURL, PinnedTweetID: id(u.PinnedPostID),
		PublicMetrics: v2UserMetrics{FollowersCount: u.FollowersCount, FollowingCount: u.FriendsCount,
			TweetCount: u.StatusesCount, ListedCount: u.ListedCount},
	}
}
