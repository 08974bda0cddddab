package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/roostapi/roost/internal/social"
)

var smallConfig = Config{Seed: 7, Users: 300, Posts: 20000, BatchSize: 2500}

// small is the network most tests inspect, generated once.
var small = sync.OnceValues(func() (smallRun, error) {
	w, sum, err := recordWorld(smallConfig)
	return smallRun{w, sum}, err
})

type smallRun struct {
	w   *world
	sum Summary
}

func smallWorld(t *testing.T) (*world, Summary) {
	t.Helper()
	r, err := small()
	if err != nil {
		t.Fatalf("Generate(%+v): %v", smallConfig, err)
	}
	return r.w, r.sum
}

func TestDeterministic(t *testing.T) {
	cfg := Config{Seed: 42, Users: 200, Posts: 6000, BatchSize: 1000}
	digest := func(c Config) ([32]byte, Summary) {
		rec := newRecorder(false)
		sum, err := Generate(context.Background(), rec, c, nil)
		if err != nil {
			t.Fatalf("Generate: %v", err)
		}
		return rec.sum(), sum
	}
	a, sa := digest(cfg)
	b, sb := digest(cfg)
	if a != b {
		t.Fatalf("same config, different batches: %x vs %x", a, b)
	}
	if sa != sb {
		t.Fatalf("same config, different summaries:\n%+v\n%+v", sa, sb)
	}
	other := cfg
	other.Seed = 43
	if c, _ := digest(other); c == a {
		t.Fatal("a different seed generated the same batches")
	}
}

func TestSnowflakeIDs(t *testing.T) {
	w, _ := smallWorld(t)
	if w.dupPosts > 0 {
		t.Errorf("%d posts written more than once", w.dupPosts)
	}
	var prevID, prevMS int64
	ids := slices.Sorted(func(yield func(int64) bool) {
		for id := range w.posts {
			if !yield(id) {
				return
			}
		}
	})
	for _, id := range ids {
		p := w.posts[id]
		if id <= 1<<53 {
			t.Errorf("post id %d is not above 2^53", id)
		}
		ms := id>>tsShift + snowflakeEpochMS
		if got := p.CreatedAt.UnixMilli(); got != ms {
			t.Errorf("post %d: id says %d ms, CreatedAt %d ms", id, ms, got)
		}
		if ms < windowStartMS || ms >= windowEndMS {
			t.Errorf("post %d at %v is outside the window", id, p.CreatedAt)
		}
		if id <= prevID || ms < prevMS {
			t.Errorf("post %d: time does not rise with id", id)
		}
		if p.CreatedAt.Location().String() != "UTC" {
			t.Errorf("post %d: time zone %v", id, p.CreatedAt.Location())
		}
		prevID, prevMS = id, ms
	}
	var small, big int
	for _, u := range w.users {
		switch {
		case u.ID < 1<<32:
			small++
		case u.ID > 1<<53:
			big++
			if ms := u.ID>>tsShift + snowflakeEpochMS; ms != u.CreatedAt.UnixMilli() {
				t.Errorf("user %d: id says %d ms, CreatedAt %v", u.ID, ms, u.CreatedAt)
			}
		}
	}
	if small == 0 || big == 0 {
		t.Errorf("user ids: %d small and %d snowflake; want both", small, big)
	}
	for _, l := range w.lists {
		if ms := l.ID>>tsShift + snowflakeEpochMS; ms != l.CreatedAt.UnixMilli() {
			t.Errorf("list %d: id and CreatedAt disagree", l.ID)
		}
	}
}

// sub returns code points [start, end) of s, or "" when out of range.
func sub(r []rune, start, end int) string {
	if start < 0 || end > len(r) || start > end {
		return ""
	}
	return string(r[start:end])
}

func TestEntityIndices(t *testing.T) {
	w, _ := smallWorld(t)
	byName := map[string]social.User{}
	for _, u := range w.users {
		byName[strings.ToLower(u.ScreenName)] = u
	}
	checked := 0
	for _, id := range w.postOrder {
		p := w.posts[id]
		r := []rune(p.Text)
		if !utf8.ValidString(p.Text) || len(r) == 0 || len(r) > 280 {
			t.Errorf("post %d: text of %d code points (valid %v)", id, len(r), utf8.ValidString(p.Text))
		}
		if err := checkEscaped(p.Text); err != nil {
			t.Errorf("post %d: %v in %q", id, err, p.Text)
		}
		e := p.Entities
		for _, m := range e.Mentions {
			checked++
			if got := sub(r, m.Start, m.End); got != "@"+m.ScreenName {
				t.Errorf("post %d: mention [%d,%d) is %q, want @%s in %q", id, m.Start, m.End, got, m.ScreenName, p.Text)
			}
			if u, ok := byName[strings.ToLower(m.ScreenName)]; !ok || u.ID != m.UserID || u.Name != m.Name {
				t.Errorf("post %d: mention %+v does not name its user", id, m)
			}
		}
		for _, h := range e.Hashtags {
			checked++
			if got := sub(r, h.Start, h.End); got != "#"+h.Text {
				t.Errorf("post %d: hashtag [%d,%d) is %q, want #%s", id, h.Start, h.End, got, h.Text)
			}
		}
		for _, h := range e.Symbols {
			checked++
			if got := sub(r, h.Start, h.End); got != "$"+h.Text {
				t.Errorf("post %d: cashtag [%d,%d) is %q, want $%s", id, h.Start, h.End, got, h.Text)
			}
		}
		for _, u := range e.URLs {
			checked++
			if got := sub(r, u.Start, u.End); got != u.URL || !strings.HasPrefix(u.URL, "https://t.co/") || u.ExpandedURL == "" || u.DisplayURL == "" {
				t.Errorf("post %d: url %+v covers %q", id, u, got)
			}
		}
		for _, m := range e.Media {
			checked++
			if got := sub(r, m.Start, m.End); got != m.URL || m.MediaURL == "" || m.ExpandedURL == "" {
				t.Errorf("post %d: media %+v covers %q", id, m, got)
			}
		}
	}
	if checked < len(w.posts)/2 {
		t.Errorf("only %d entities in %d posts", checked, len(w.posts))
	}
}

// checkEscaped reports raw '<' or '>' and any '&' that starts no escape.
func checkEscaped(s string) error {
	if strings.ContainsAny(s, "<>") {
		return errors.New("unescaped < or >")
	}
	for i := strings.IndexByte(s, '&'); i >= 0; {
		rest := s[i:]
		if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") && !strings.HasPrefix(rest, "&gt;") {
			return fmt.Errorf("bare & at byte %d", i)
		}
		j := strings.IndexByte(s[i+1:], '&')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return nil
}

func TestReferencesAndCounts(t *testing.T) {
	w, _ := smallWorld(t)
	replies, quotes := map[int64]int64{}, map[int64]int64{}
	type pair struct{ post, user int64 }
	repostRows := map[pair]social.Repost{}
	retweets := map[int64]int64{}
	for _, r := range w.reposts {
		k := pair{r.PostID, r.UserID}
		if _, dup := repostRows[k]; dup {
			t.Errorf("repost %+v twice", r)
		}
		repostRows[k] = r
		retweets[r.PostID]++
		p, ok := w.posts[r.PostID]
		if _, uok := w.users[r.UserID]; !ok || !uok {
			t.Errorf("repost %+v points nowhere", r)
		} else if !r.CreatedAt.After(p.CreatedAt) {
			t.Errorf("repost %+v before its post", r)
		}
	}
	statuses := map[int64]int64{}
	for _, p := range w.posts {
		statuses[p.AuthorID]++
		author, ok := w.users[p.AuthorID]
		if !ok {
			t.Fatalf("post %d: author %d unknown", p.ID, p.AuthorID)
		}
		if !author.CreatedAt.Before(p.CreatedAt) {
			t.Errorf("post %d before its author's account", p.ID)
		}
		if p.InReplyToID != 0 {
			parent, ok := w.posts[p.InReplyToID]
			switch {
			case !ok || parent.ID >= p.ID:
				t.Errorf("post %d replies to missing or later post %d", p.ID, p.InReplyToID)
			case parent.AuthorID != p.InReplyToUserID || w.users[parent.AuthorID].ScreenName != p.InReplyToScreenName:
				t.Errorf("post %d: in-reply-to user does not match post %d", p.ID, parent.ID)
			case p.ConversationID != parent.ConversationID || p.CommunityID != parent.CommunityID:
				t.Errorf("post %d: conversation or community differs from its parent", p.ID)
			}
			replies[p.InReplyToID]++
		} else if p.ConversationID != p.ID {
			t.Errorf("root post %d has conversation %d", p.ID, p.ConversationID)
		}
		if q := p.QuotedID; q != 0 {
			if qp, ok := w.posts[q]; !ok || q >= p.ID || qp.RepostOfID != 0 {
				t.Errorf("post %d quotes bad post %d", p.ID, q)
			}
			quotes[q]++
		}
		if o := p.RepostOfID; o != 0 {
			op, ok := w.posts[o]
			if !ok || o >= p.ID || op.RepostOfID != 0 {
				t.Fatalf("post %d reposts bad post %d", p.ID, o)
			}
			if !strings.HasPrefix(p.Text, "RT @"+w.users[op.AuthorID].ScreenName+": ") {
				t.Errorf("repost %d text %q", p.ID, p.Text)
			}
			if r, ok := repostRows[pair{o, p.AuthorID}]; !ok || !r.CreatedAt.Equal(p.CreatedAt) {
				t.Errorf("native repost %d has no matching Repost row", p.ID)
			}
		}
		if c := p.CommunityID; c != 0 {
			if _, ok := w.comms[c]; !ok {
				t.Errorf("post %d in unknown community %d", p.ID, c)
			}
		}
	}
	for _, p := range w.posts {
		if p.ReplyCount != replies[p.ID] || p.QuoteCount != quotes[p.ID] || p.RetweetCount != retweets[p.ID] {
			t.Errorf("post %d counts replies %d/%d quotes %d/%d reposts %d/%d (stored/generated)", p.ID,
				p.ReplyCount, replies[p.ID], p.QuoteCount, quotes[p.ID], p.RetweetCount, retweets[p.ID])
		}
	}
	followers, friends := map[int64]int64{}, map[int64]int64{}
	type edge struct{ a, b int64 }
	seen := map[edge]bool{}
	for _, f := range w.follows {
		a, aok := w.users[f.FollowerID]
		b, bok := w.users[f.FolloweeID]
		if !aok || !bok || f.FollowerID == f.FolloweeID || seen[edge{f.FollowerID, f.FolloweeID}] {
			t.Fatalf("bad follow %+v", f)
		}
		seen[edge{f.FollowerID, f.FolloweeID}] = true
		if !f.CreatedAt.After(a.CreatedAt) || !f.CreatedAt.After(b.CreatedAt) || f.CreatedAt.UnixMilli() >= windowEndMS {
			t.Errorf("follow %+v at a bad time", f)
		}
		followers[f.FolloweeID]++
		friends[f.FollowerID]++
	}
	listed := map[int64]int64{}
	for _, m := range w.listMembers {
		listed[m.UserID]++
	}
	for _, u := range w.users {
		if u.FollowersCount != followers[u.ID] || u.FriendsCount != friends[u.ID] || u.StatusesCount != statuses[u.ID] || u.ListedCount != listed[u.ID] {
			t.Errorf("user %s: followers %d/%d friends %d/%d statuses %d/%d listed %d/%d (stored/generated)", u.ScreenName,
				u.FollowersCount, followers[u.ID], u.FriendsCount, friends[u.ID], u.StatusesCount, statuses[u.ID], u.ListedCount, listed[u.ID])
		}
		if u.PinnedPostID != 0 {
			if p, ok := w.posts[u.PinnedPostID]; !ok || p.AuthorID != u.ID {
				t.Errorf("user %s pins post %d that is not theirs", u.ScreenName, u.PinnedPostID)
			}
		}
	}
	for _, h := range w.highlights {
		if p, ok := w.posts[h.PostID]; !ok || p.AuthorID != h.UserID || !h.CreatedAt.After(p.CreatedAt) {
			t.Errorf("bad highlight %+v", h)
		}
	}
}

func TestListsAndCommunities(t *testing.T) {
	w, _ := smallWorld(t)
	members, subs := map[int64]int64{}, map[int64]int64{}
	perUser := map[int64]int{}
	for _, m := range w.listMembers {
		members[m.ListID]++
	}
	for _, s := range w.listSubs {
		subs[s.ListID]++
		perUser[s.UserID]++
		if l := w.lists[s.ListID]; l.OwnerID == s.UserID {
			t.Errorf("user %d subscribes to own list %d", s.UserID, s.ListID)
		}
	}
	for _, l := range w.lists {
		perUser[l.OwnerID]++
		if l.ID <= 0 {
			t.Errorf("list id %d is not positive: the API takes ids in 1..2^63-1", l.ID)
		}
		if l.MemberCount != members[l.ID] || l.SubscriberCount != subs[l.ID] {
			t.Errorf("list %d: members %d/%d subscribers %d/%d", l.ID, l.MemberCount, members[l.ID], l.SubscriberCount, subs[l.ID])
		}
		if _, ok := w.users[l.OwnerID]; !ok {
			t.Errorf("list %d owner unknown", l.ID)
		}
	}
	most := 0
	for _, n := range perUser {
		most = max(most, n)
	}
	if most <= 100 {
		t.Errorf("the user with most lists owns or subscribes to %d; want > 100", most)
	}
	roles := map[int64]map[string]int{}
	count := map[int64]int64{}
	for _, m := range w.commMembers {
		if roles[m.CommunityID] == nil {
			roles[m.CommunityID] = map[string]int{}
		}
		roles[m.CommunityID][m.Role]++
		count[m.CommunityID]++
	}
	pinned := 0
	for _, c := range w.comms {
		if c.MemberCount != count[c.ID] {
			t.Errorf("community %d: MemberCount %d, %d members", c.ID, c.MemberCount, count[c.ID])
		}
		r := roles[c.ID]
		if r[social.RoleAdmin] < 1 || r[social.RoleModerator] < 1 || r[social.RoleMember] < 1 {
			t.Errorf("community %d roles %v", c.ID, r)
		}
		if c.PinnedPostID != 0 {
			pinned++
			if p, ok := w.posts[c.PinnedPostID]; !ok || p.CommunityID != c.ID {
				t.Errorf("community %d pins post %d not in it", c.ID, c.PinnedPostID)
			}
		}
	}
	if pinned == 0 {
		t.Error("no community has a pinned post")
	}
}

var handle = regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`)

func TestEveryKindPresent(t *testing.T) {
	w, sum := smallWorld(t)
	has := map[string]bool{}
	names := map[string]bool{}
	for _, u := range w.users {
		if !handle.MatchString(u.ScreenName) {
			t.Errorf("screen name %q", u.ScreenName)
		}
		if k := strings.ToLower(u.ScreenName); names[k] {
			t.Errorf("screen name %q twice", u.ScreenName)
		} else {
			names[k] = true
		}
		has["protected"] = has["protected"] || u.Protected
		has["shadow banned"] = has["shadow banned"] || u.ShadowBanned
		has["verified"] = has["verified"] || u.Verified
		has["blue verified"] = has["blue verified"] || u.BlueVerified
		has["business"] = has["business"] || u.ProfessionalType == "Business"
		has["pinned post"] = has["pinned post"] || u.PinnedPostID != 0
		has["non-Latin name"] = has["non-Latin name"] || strings.IndexFunc(u.Name, func(r rune) bool { return r > 0x2FF && !unicode.Is(unicode.So, r) }) >= 0
		has["emoji name"] = has["emoji name"] || strings.IndexFunc(u.Name, func(r rune) bool { return unicode.Is(unicode.So, r) }) >= 0
	}
	langs, srcs := map[string]bool{}, map[string]bool{}
	for _, p := range w.posts {
		langs[p.Lang] = true
		srcs[p.Source] = true
		has["views"] = has["views"] || p.Views != nil
		has["no views"] = has["no views"] || (p.Views == nil && p.RepostOfID == 0)
		for _, m := range p.Entities.Media {
			has["media "+m.Type] = true
		}
		for _, s := range []string{"&amp;", "&lt;", "&gt;"} {
			has[s] = has[s] || strings.Contains(p.Text, s)
		}
		has["cashtag"] = has["cashtag"] || len(p.Entities.Symbols) > 0
		has["url"] = has["url"] || len(p.Entities.URLs) > 0
		has["community post"] = has["community post"] || p.CommunityID != 0
		has["bookmarks"] = has["bookmarks"] || p.BookmarkCount > 0
		for _, r := range p.Text {
			switch {
			case unicode.Is(unicode.Han, r):
				has["CJK"] = true
			case unicode.Is(unicode.Arabic, r):
				has["Arabic"] = true
			case unicode.Is(unicode.Hebrew, r):
				has["Hebrew"] = true
			case unicode.Is(unicode.Hangul, r):
				has["Hangul"] = true
			case unicode.Is(unicode.Cyrillic, r):
				has["Cyrillic"] = true
			case r == 'é' || r == 'ñ' || r == 'ü' || r == 'ç':
				has["accented Latin"] = true
			case r == 0x200D:
				has["emoji ZWJ sequence"] = true
			}
		}
	}
	has["affiliations"] = len(w.affs) > 0
	has["highlights"] = len(w.highlights) > 0
	for _, want := range []string{"protected", "shadow banned", "verified", "blue verified", "business", "pinned post",
		"non-Latin name", "emoji name", "views", "no views", "media photo", "media video", "media animated_gif",
		"&amp;", "&lt;", "&gt;", "cashtag", "url", "community post", "bookmarks", "CJK", "Arabic", "Hebrew", "Hangul",
		"Cyrillic", "accented Latin", "emoji ZWJ sequence", "affiliations", "highlights"} {
		if !has[want] {
			t.Errorf("no %s in the generated network", want)
		}
	}
	if len(langs) < 10 || len(srcs) < 4 {
		t.Errorf("%d languages, %d sources", len(langs), len(srcs))
	}
	for _, k := range []struct {
		name string
		n    int64
	}{{"replies", sum.Replies}, {"self replies", sum.SelfReplies}, {"quotes", sum.Quotes}, {"repost posts", sum.RepostPosts},
		{"long threads", sum.LongThreads}, {"media posts", sum.MediaPosts}} {
		if k.n == 0 {
			t.Errorf("no %s", k.name)
		}
	}
	// Affiliates belong to a Business organisation.
	for _, a := range w.affs {
		if w.users[a.OrgID].ProfessionalType != "Business" {
			t.Errorf("affiliation %+v: organisation is not a Business", a)
		}
	}
}

func TestPowerLawFollowers(t *testing.T) {
	w, _ := smallWorld(t)
	var counts []int64
	for _, u := range w.users {
		counts = append(counts, u.FollowersCount)
	}
	slices.Sort(counts)
	median, top := counts[len(counts)/2], counts[len(counts)-1]
	if top < 10*max(median, 1) {
		t.Errorf("followers: median %d, max %d; want a few huge accounts", median, top)
	}
	var favs []int64
	for _, p := range w.posts {
		if p.RepostOfID == 0 {
			favs = append(favs, p.FavoriteCount)
		}
	}
	slices.Sort(favs)
	if favs[len(favs)-1] < 20*max(favs[len(favs)/2], 1) {
		t.Errorf("likes: median %d, max %d; want a heavy tail", favs[len(favs)/2], favs[len(favs)-1])
	}
}

func TestLongThreadAndExamples(t *testing.T) {
	w, sum := smallWorld(t)
	ex := sum.Examples
	root, ok := w.posts[ex.ThreadID]
	if !ok {
		t.Fatalf("example thread %d not generated", ex.ThreadID)
	}
	chain := 0
	for _, p := range w.posts {
		if p.ConversationID == root.ID && p.AuthorID == root.AuthorID && (p.ID == root.ID || p.InReplyToUserID == root.AuthorID) {
			chain++
		}
	}
	if chain <= 30 {
		t.Errorf("example thread %d has %d self-thread posts; want > 30", root.ID, chain)
	}
	if u := w.users[ex.UserID]; u.ScreenName != ex.Username || u.Protected {
		t.Errorf("example user %d / %q", ex.UserID, ex.Username)
	}
	if !w.users[ex.ProtectedUserID].Protected {
		t.Errorf("example protected user %d is not protected", ex.ProtectedUserID)
	}
	banned := false
	for _, u := range w.users {
		banned = banned || (u.ScreenName == ex.ShadowBannedUsername && u.ShadowBanned)
	}
	if !banned {
		t.Errorf("example shadow-banned user %q is not", ex.ShadowBannedUsername)
	}
	if w.users[ex.OrganizationUserID].ProfessionalType != "Business" {
		t.Errorf("example organisation %d", ex.OrganizationUserID)
	}
	if _, ok := w.comms[ex.CommunityID]; !ok {
		t.Errorf("example community %d", ex.CommunityID)
	}
	if l, ok := w.lists[ex.ListID]; !ok || l.MemberCount == 0 || l.SubscriberCount == 0 {
		t.Errorf("example list %d", ex.ListID)
	}
	if p, ok := w.posts[ex.PostID]; !ok || p.ReplyCount == 0 || p.RetweetCount == 0 {
		t.Errorf("example post %d", ex.PostID)
	}
}

func TestSummaryMatches(t *testing.T) {
	w, sum := smallWorld(t)
	var replies, quotes, natives int64
	for _, p := range w.posts {
		if p.InReplyToID != 0 {
			replies++
		}
		if p.QuotedID != 0 {
			quotes++
		}
		if p.RepostOfID != 0 {
			natives++
		}
	}
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"users", sum.Users, int64(len(w.users))}, {"posts", sum.Posts, int64(len(w.posts))},
		{"replies", sum.Replies, replies}, {"quotes", sum.Quotes, quotes}, {"repost posts", sum.RepostPosts, natives},
		{"reposts", sum.Reposts, int64(len(w.reposts))}, {"follows", sum.Follows, int64(len(w.follows))},
		{"lists", sum.Lists, int64(len(w.lists))}, {"list members", sum.ListMembers, int64(len(w.listMembers))},
		{"list subscribers", sum.ListSubscribers, int64(len(w.listSubs))}, {"communities", sum.Communities, int64(len(w.comms))},
		{"community members", sum.CommunityMembers, int64(len(w.commMembers))}, {"highlights", sum.Highlights, int64(len(w.highlights))},
		{"affiliations", sum.Affiliations, int64(len(w.affs))}, {"batches", sum.Batches, int64(w.batches)},
		{"likes", sum.Likes, int64(len(w.likes))}, {"spaces", sum.Spaces, int64(len(w.spaces))},
		{"like cap", sum.LikeCap, likeCap},
	} {
		if c.got != c.want {
			t.Errorf("summary %s = %d, recorded %d", c.name, c.got, c.want)
		}
	}
	if sum.Posts != int64(smallConfig.Posts) {
		t.Errorf("posts = %d, want %d", sum.Posts, smallConfig.Posts)
	}
	raw, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	ex := back["examples"].(map[string]any)
	for _, k := range []string{"user_id", "protected_user_id", "organization_user_id", "thread_id", "community_id", "list_id", "post_id",
		"space_id", "extended_bio_username"} {
		if _, ok := ex[k].(string); !ok {
			t.Errorf("examples.%s = %v; want a string id", k, ex[k])
		}
	}
	if ex["thread_id"] != fmt.Sprint(sum.Examples.ThreadID) {
		t.Errorf("thread_id %v does not round-trip", ex["thread_id"])
	}
}
