package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// gqlTweet is a web GraphQL tweet result (Tweet, or its
// TweetWithVisibilityResults wrapper holding it in Tweet).
type gqlTweet struct {
	Typename string          `json:"__typename"`
	RestID   flexInt         `json:"rest_id"`
	Tweet    json.RawMessage `json:"tweet"`
	Core     struct {
		UserResults gqlResult `json:"user_results"`
	} `json:"core"`
	Legacy *gqlLegacy `json:"legacy"`
	Source string     `json:"source"`
	Views  struct {
		Count *flexInt `json:"count"`
	} `json:"views"`
	NoteTweet *struct {
		NoteTweetResults struct {
			Result struct {
				Text      string      `json:"text"`
				EntitySet *v1Entities `json:"entity_set"`
			} `json:"result"`
		} `json:"note_tweet_results"`
	} `json:"note_tweet"`
	QuotedStatusResult gqlResult `json:"quoted_status_result"`
	CommunityResults   struct {
		Result *gqlCommunity `json:"result"`
	} `json:"community_results"`
}

type gqlResult struct {
	Result json.RawMessage `json:"result"`
}

// gqlLegacy is a tweet's legacy object: a v1.1 status without the user,
// with the reposted post as a GraphQL result.
type gqlLegacy struct {
	v1Status
	RetweetedStatusResult gqlResult `json:"retweeted_status_result"`
}

type gqlCommunity struct {
	Typename    string  `json:"__typename"`
	IDStr       flexInt `json:"id_str"`
	RestID      flexInt `json:"rest_id"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	MemberCount flexInt `json:"member_count"`
	CreatedAt   flexInt `json:"created_at"`
}

func (c *gqlCommunity) community() (social.Community, bool) {
	id := first(c.IDStr, c.RestID)
	if id <= 0 || c.Name == "" {
		return social.Community{}, false
	}
	out := social.Community{ID: id, Name: c.Name, Description: c.Description, MemberCount: int64(c.MemberCount)}
	if c.CreatedAt > 0 {
		out.CreatedAt = optTime(strconv.FormatInt(int64(c.CreatedAt), 10))
	}
	return out, true
}

// gqlUser is a web GraphQL user result in either schema: the older one
// keeps the profile in legacy, the current one spreads it over core,
// avatar, relationship_counts and so on. Both may be present.
type gqlUser struct {
	Typename       string  `json:"__typename"`
	RestID         flexInt `json:"rest_id"`
	IsBlueVerified bool    `json:"is_blue_verified"`
	Legacy         *v1User `json:"legacy"`
	Core           *struct {
		CreatedAt  string `json:"created_at"`
		Name       string `json:"name"`
		ScreenName string `json:"screen_name"`
	} `json:"core"`
	Avatar struct {
		ImageURL string `json:"image_url"`
	} `json:"avatar"`
	Banner struct {
		ImageURL string `json:"image_url"`
	} `json:"banner"`
	Location *struct {
		Location string `json:"location"`
	} `json:"location"`
	Privacy struct {
		Protected *bool `json:"protected"`
	} `json:"privacy"`
	Verification struct {
		Verified *bool `json:"verified"`
	} `json:"verification"`
	ProfileBio *struct {
		Description string `json:"description"`
	} `json:"profile_bio"`
	Website *struct {
		URL string `json:"url"`
	} `json:"website"`
	RelationshipCounts *struct {
		Followers flexInt `json:"followers"`
		Following flexInt `json:"following"`
	} `json:"relationship_counts"`
	TweetCounts *struct {
		Tweets      flexInt `json:"tweets"`
		MediaTweets flexInt `json:"media_tweets"`
	} `json:"tweet_counts"`
	ActionCounts *struct {
		FavoritesCount flexInt `json:"favorites_count"`
	} `json:"action_counts"`
	DMPermissions *struct {
		CanDM bool `json:"can_dm"`
	} `json:"dm_permissions"`
	PinnedItems struct {
		TweetIDsStr []flexInt `json:"tweet_ids_str"`
	} `json:"pinned_items"`
	Professional *struct {
		ProfessionalType string `json:"professional_type"`
	} `json:"professional"`
}

func (g *gqlUser) toUser() (social.User, error) {
	id := int64(g.RestID)
	if id <= 0 {
		return social.User{}, fmt.Errorf("user without a rest_id")
	}
	var u social.User
	if g.Legacy != nil {
		l := *g.Legacy
		l.IDStr = flexInt(id)
		var err error
		if u, err = l.toUser(); err != nil {
			return social.User{}, err
		}
	}
	u.ID = id
	u.BlueVerified = g.IsBlueVerified
	if c := g.Core; c != nil {
		u.ScreenName = firstString(c.ScreenName, u.ScreenName)
		u.Name = firstString(c.Name, u.Name)
		if t := optTime(c.CreatedAt); !t.IsZero() {
			u.CreatedAt = t
		}
	}
	u.ImageURL = firstString(g.Avatar.ImageURL, u.ImageURL)
	u.BannerURL = firstString(g.Banner.ImageURL, u.BannerURL)
	if g.Location != nil && g.Location.Location != "" {
		u.Location = g.Location.Location
	}
	if g.Privacy.Protected != nil {
		u.Protected = *g.Privacy.Protected
	}
	if g.Verification.Verified != nil {
		u.Verified = *g.Verification.Verified
	}
	if g.ProfileBio != nil && g.ProfileBio.Description != "" {
		u.Description = g.ProfileBio.Description
	}
	if g.Website != nil && g.Website.URL != "" && u.URL == "" {
		u.URL = g.Website.URL
	}
	if c := g.RelationshipCounts; c != nil {
		u.FollowersCount, u.FriendsCount = int64(c.Followers), int64(c.Following)
	}
	if c := g.TweetCounts; c != nil {
		u.StatusesCount, u.MediaCount = int64(c.Tweets), int64(c.MediaTweets)
	}
	if c := g.ActionCounts; c != nil {
		u.FavouritesCount = int64(c.FavoritesCount)
	}
	if d := g.DMPermissions; d != nil {
		u.CanDM = d.CanDM
	}
	if len(g.PinnedItems.TweetIDsStr) > 0 {
		u.PinnedPostID = int64(g.PinnedItems.TweetIDsStr[0])
	}
	if p := g.Professional; p != nil {
		u.ProfessionalType = p.ProfessionalType
	}
	u.Stub = u.ScreenName == ""
	return u, nil
}

// errTombstone marks a deleted or withheld post: skipped, not malformed.
var errTombstone = fmt.Errorf("tombstone")

// gqlTweetResult converts a tweet result (and what it embeds) into b and
// returns the post id.
func gqlTweetResult(raw json.RawMessage, b *social.Batch, depth int) (int64, error) {
	var t gqlTweet
	if err := json.Unmarshal(raw, &t); err != nil {
		return 0, fmt.Errorf("invalid tweet result: %w", err)
	}
	switch t.Typename {
	case "TweetWithVisibilityResults":
		if len(t.Tweet) == 0 || depth > maxNest {
			return 0, fmt.Errorf("TweetWithVisibilityResults without a tweet")
		}
		return gqlTweetResult(t.Tweet, b, depth+1)
	case "TweetTombstone", "TweetUnavailable":
		return 0, errTombstone
	}
	if t.Legacy == nil {
		return 0, fmt.Errorf("tweet %d without legacy", t.RestID)
	}
	l := &t.Legacy.v1Status
	if first(l.IDStr, l.ID) == 0 {
		l.IDStr = t.RestID
	}
	if len(t.Core.UserResults.Result) > 0 {
		var gu gqlUser
		if err := json.Unmarshal(t.Core.UserResults.Result, &gu); err != nil {
			return 0, fmt.Errorf("tweet %d author: %w", t.RestID, err)
		}
		if gu.RestID > 0 {
			u, err := gu.toUser()
			if err != nil {
				return 0, fmt.Errorf("tweet %d author: %w", t.RestID, err)
			}
			b.Users = append(b.Users, u)
			if l.UserIDStr == 0 {
				l.UserIDStr = flexInt(u.ID)
			}
		}
	}
	p, err := l.post(b, depth)
	if err != nil {
		return 0, err
	}
	p.Source = firstString(t.Source, p.Source)
	if t.Views.Count != nil {
		v := int64(*t.Views.Count)
		p.Views = &v
	}
	if n := t.NoteTweet; n != nil && n.NoteTweetResults.Result.Text != "" {
		// Note text is not escaped and its indices count the raw text:
		// store the escaped form, as the legacy full_text is.
		nr := n.NoteTweetResults.Result
		text, pos := escapeHTML(nr.Text)
		media := mediaOutside(p.Entities.Media, text)
		p.Text = text
		p.Entities = entitiesOf(text, nr.EntitySet, nil, pos)
		p.Entities.Media = media
	}
	if depth < maxNest {
		if r := t.Legacy.RetweetedStatusResult.Result; len(r) > 0 {
			rid, err := gqlTweetResult(r, b, depth+1)
			switch {
			case err == nil:
				p.RepostOfID = rid
				b.Reposts = append(b.Reposts, social.Repost{PostID: rid, UserID: p.AuthorID, CreatedAt: p.CreatedAt})
			case err != errTombstone:
				return 0, fmt.Errorf("retweeted_status_result: %w", err)
			}
		}
		if r := t.QuotedStatusResult.Result; len(r) > 0 {
			qid, err := gqlTweetResult(r, b, depth+1)
			switch {
			case err == nil:
				if p.QuotedID == 0 {
					p.QuotedID = qid
				}
			case err != errTombstone:
				return 0, fmt.Errorf("quoted_status_result: %w", err)
			}
		}
	}
	if c := t.CommunityResults.Result; c != nil {
		p.CommunityID = first(c.IDStr, c.RestID)
		if cm, ok := c.community(); ok {
			b.Communities = append(b.Communities, cm)
		}
	}
	b.Posts = append(b.Posts, p)
	return p.ID, nil
}

// gqlRelations says whose user list (or Likes timeline) a capture is, when
// its body does not.
type gqlRelations struct {
	FollowersOf, FollowingOf, RepostersOf, ListMembersOf, LikersOf int64
	// LikesOf is the user whose Likes timeline the capture is: its tweet
	// entries are that user's likes.
	LikesOf int64
}

func (r gqlRelations) any() bool {
	return r.FollowersOf != 0 || r.FollowingOf != 0 || r.RepostersOf != 0 || r.ListMembersOf != 0 || r.LikersOf != 0
}

// gqlWalker walks a GraphQL response generically, in document order:
// every tweet result outside another tweet is one record, every user result
// outside a tweet another, and an audio space (data.audioSpace) another;
// users listed as timeline entries ("user-…") get the relations named in
// rel, and tweets listed as entries ("tweet-…") the like of rel.LikesOf.
//
// The web client sends the subject of a timeline (the tweetId of
// Favoriters, the userId of Likes) in the request's variables, which a
// captured response does not hold: rel supplies it. A like's time is in no
// capture; it is stored as the liked post's creation time, read from its
// snowflake id (as for like.js).
type gqlWalker struct {
	at    RecordError
	rel   gqlRelations
	out   []item
	nodes int
}

// maxGQLNodes bounds the work one hostile document can cause.
const maxGQLNodes = 1 << 22

func decodeGraphQL(rel gqlRelations) valueFunc {
	return func(_ string, raw []byte, at RecordError) []item {
		w := &gqlWalker{at: at, rel: rel}
		if !json.Valid(raw) {
			return []item{bad(at, "invalid JSON")}
		}
		w.walk(raw, "$", "", 0)
		return w.out
	}
}

func (w *gqlWalker) walk(raw []byte, path, entry string, depth int) {
	w.nodes++
	if w.nodes > maxGQLNodes || depth > 256 {
		return
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	switch raw[0] {
	case '[':
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil {
			return
		}
		for i, el := range arr {
			w.walk(el, path+"["+strconv.Itoa(i)+"]", entry, depth+1)
		}
	case '{':
		members, err := orderedMembers(raw)
		if err != nil {
			return
		}
		var typename string
		for _, m := range members {
			if m.key == "__typename" {
				_ = json.Unmarshal(m.value, &typename)
			}
			if m.key == "entryId" {
				_ = json.Unmarshal(m.value, &entry)
			}
		}
		switch typename {
		case "Tweet", "TweetWithVisibilityResults", "TweetTombstone", "TweetUnavailable":
			w.tweet(raw, path, entry)
			return
		case "User":
			if w.user(raw, path, entry) {
				// A user result may hold a timeline (data.user.result).
				for _, m := range members {
					if strings.HasPrefix(m.key, "timeline") {
						w.walk(m.value, path+"."+m.key, entry, depth+1)
					}
				}
				return
			}
		case "Community":
			var c gqlCommunity
			if json.Unmarshal(raw, &c) == nil {
				if cm, ok := c.community(); ok {
					w.out = append(w.out, item{extra: true, batch: social.Batch{Communities: []social.Community{cm}}})
				}
			}
		}
		for _, m := range members {
			switch m.key {
			case "__typename", "entryId":
				continue
			case "audioSpace":
				w.space(m.value, path+"."+m.key)
				continue
			}
			w.walk(m.value, path+"."+m.key, entry, depth+1)
		}
	}
}

func (w *gqlWalker) tweet(raw []byte, path, entry string) {
	var it item
	id, err := gqlTweetResult(raw, &it.batch, 0)
	switch {
	case err == errTombstone:
		it = item{skip: "tombstone"}
	case err != nil:
		a := w.at
		a.Path = path
		it = bad(a, "%v", err)
	case w.rel.LikesOf != 0 && strings.HasPrefix(entry, "tweet-"):
		it.batch.Likes = append(it.batch.Likes, social.Like{PostID: id, UserID: w.rel.LikesOf, CreatedAt: snowflakeTime(id)})
	}
	w.out = append(w.out, it)
}

// user converts a user result; it reports false when the object is not a
// profile (no rest_id: a wrapper such as data.user.result).
func (w *gqlWalker) user(raw []byte, path, entry string) bool {
	var g gqlUser
	if err := json.Unmarshal(raw, &g); err != nil {
		a := w.at
		a.Path = path
		w.out = append(w.out, bad(a, "invalid user result: %v", err))
		return true
	}
	if g.RestID == 0 {
		return false
	}
	u, err := g.toUser()
	if err != nil {
		a := w.at
		a.Path = path
		w.out = append(w.out, bad(a, "%v", err))
		return true
	}
	it := item{batch: social.Batch{Users: []social.User{u}}}
	if strings.HasPrefix(entry, "user-") {
		b := &it.batch
		if w.rel.FollowersOf != 0 {
			b.Follows = append(b.Follows, social.Follow{FollowerID: u.ID, FolloweeID: w.rel.FollowersOf})
		}
		if w.rel.FollowingOf != 0 {
			b.Follows = append(b.Follows, social.Follow{FollowerID: w.rel.FollowingOf, FolloweeID: u.ID})
		}
		if w.rel.RepostersOf != 0 {
			b.Reposts = append(b.Reposts, social.Repost{PostID: w.rel.RepostersOf, UserID: u.ID})
		}
		if w.rel.ListMembersOf != 0 {
			b.ListMembers = append(b.ListMembers, social.ListMember{ListID: w.rel.ListMembersOf, UserID: u.ID})
		}
		if w.rel.LikersOf != 0 {
			b.Likes = append(b.Likes, social.Like{PostID: w.rel.LikersOf, UserID: u.ID, CreatedAt: snowflakeTime(w.rel.LikersOf)})
		}
		if !w.rel.any() {
			it.note = "a GraphQL user list (followers, following, reposters, likers or list members) does not say whose list it is: " +
				"its users were stored without relations; name the subject with --followers-of, --following-of, --reposters-of, " +
				"--likers-of or --list-members-of"
		}
	}
	w.out = append(w.out, it)
	return true
}

type member struct {
	key   string
	value json.RawMessage
}

// orderedMembers splits an object into its members in document order.
func orderedMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
	}
	return out, nil
}
