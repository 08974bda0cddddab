package importer

import (
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Facts below were read from the recorded files by hand (jq); each test
// imports one file and compares what was written with them.

func mustPost(t *testing.T, rec *recorder, id int64) social.Post {
	t.Helper()
	p, ok := rec.posts[id]
	if !ok {
		t.Fatalf("post %d not imported", id)
	}
	return p
}

func mustUser(t *testing.T, rec *recorder, id int64) social.User {
	t.Helper()
	u, ok := rec.users[id]
	if !ok {
		t.Fatalf("user %d not imported", id)
	}
	return u
}

func check[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestV1Facts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "v1/rtweet-statuses.jsonl"))

	p := mustPost(t, rec, 1589632502309990401)
	check(t, "author", p.AuthorID, 69133574)
	check(t, "created", p.CreatedAt, time.Date(2022, 11, 7, 14, 54, 57, 0, time.UTC))
	if !strings.HasPrefix(p.Text, "New chapter on regular expressions in R4DS: https://t.co/EhgVwIixXN.") {
		t.Errorf("text = %q", p.Text)
	}
	check(t, "favorites", p.FavoriteCount, 408)
	check(t, "retweets", p.RetweetCount, 77)
	check(t, "lang", p.Lang, "en")
	check(t, "conversation (root)", p.ConversationID, p.ID)
	if p.Views != nil {
		t.Errorf("v1.1 has no views, got %d", *p.Views)
	}
	if len(p.Entities.Hashtags) != 1 || p.Entities.Hashtags[0] != (social.Tag{Text: "rstats", Start: 186, End: 193}) {
		t.Errorf("hashtags = %+v", p.Entities.Hashtags)
	}
	if len(p.Entities.URLs) != 1 || p.Entities.URLs[0].Start != 44 || p.Entities.URLs[0].End != 67 ||
		p.Entities.URLs[0].ExpandedURL != "https://r4ds.hadley.nz/regexps.html" {
		t.Errorf("urls = %+v", p.Entities.URLs)
	}
	u := mustUser(t, rec, 69133574)
	check(t, "screen name", u.ScreenName, "hadleywickham")
	check(t, "user url (expanded)", u.URL, "http://hadley.nz")
	check(t, "verified", u.Verified, true)
	check(t, "stub", u.Stub, false)
	check(t, "user created", u.CreatedAt, time.Date(2009, 8, 26, 23, 34, 46, 0, time.UTC))

	// A reply to the post above, imported after it: same conversation.
	r := mustPost(t, rec, 1589728186556121088)
	check(t, "reply to", r.InReplyToID, 1589632502309990401)
	check(t, "reply to user", r.InReplyToUserID, 69133574)
	check(t, "reply to screen name", r.InReplyToScreenName, "hadleywickham")
	check(t, "reply conversation", r.ConversationID, 1589632502309990401)
	if len(r.Entities.Mentions) != 2 || r.Entities.Mentions[1] != (social.Mention{UserID: 14629263, ScreenName: "JonTheGeek", Name: "Jon Harmon (he/him)", Start: 15, End: 26}) {
		t.Errorf("mentions = %+v", r.Entities.Mentions)
	}

	// A repost of a quote: three linked posts and a repost row.
	rt := mustPost(t, rec, 1590090777123639296)
	check(t, "repost of", rt.RepostOfID, 1590090211215568896)
	orig := mustPost(t, rec, 1590090211215568896)
	check(t, "quoted", orig.QuotedID, 1590034649862246402)
	q := mustPost(t, rec, 1590034649862246402)
	check(t, "quoted favorites", q.FavoriteCount, 12)
	rep, ok := rec.reposts[[2]int64{1590090211215568896, 1306626901432324097}]
	if !ok {
		t.Fatalf("repost row missing")
	}
	check(t, "repost time", rep.CreatedAt, time.Date(2022, 11, 8, 21, 15, 58, 0, time.UTC))
	check(t, "reposted author", rec.users[orig.AuthorID].ScreenName, "cvidonne")

	// extended_entities gives the media type.
	v := mustPost(t, rec, 1562609631402176512)
	if len(v.Entities.Media) != 1 || v.Entities.Media[0].Type != social.MediaVideo ||
		v.Entities.Media[0].Start != 259 || v.Entities.Media[0].ID != 1562609596249800704 {
		t.Errorf("media = %+v", v.Entities.Media)
	}
}

func TestV2Facts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "v2/cashtags.jsonl"))
	p := mustPost(t, rec, 1611077073803841538)
	check(t, "author", p.AuthorID, 1291963157271863297)
	check(t, "created", p.CreatedAt, time.Date(2023, 1, 5, 19, 8, 1, 0, time.UTC))
	check(t, "conversation", p.ConversationID, 1611077073803841538)
	check(t, "favorites", p.FavoriteCount, 1)
	if p.Views == nil || *p.Views != 52 {
		t.Errorf("views = %v, want 52", p.Views)
	}
	if len(p.Entities.Symbols) != 11 || p.Entities.Symbols[0] != (social.Tag{Text: "AMD", Start: 176, End: 180}) {
		t.Errorf("symbols = %+v", p.Entities.Symbols)
	}
	if len(p.Entities.Hashtags) != 4 || p.Entities.Hashtags[0] != (social.Tag{Text: "business", Start: 145, End: 154}) {
		t.Errorf("hashtags = %+v", p.Entities.Hashtags)
	}
	// The link to the attached photo is media, not a URL.
	if len(p.Entities.URLs) != 1 || p.Entities.URLs[0].Start != 119 {
		t.Errorf("urls = %+v", p.Entities.URLs)
	}
	if len(p.Entities.Media) != 1 || p.Entities.Media[0].Type != social.MediaPhoto ||
		p.Entities.Media[0].Start != 250 || p.Entities.Media[0].ID != 1611076914248286208 {
		t.Errorf("media = %+v", p.Entities.Media)
	}
	u := mustUser(t, rec, 1291963157271863297)
	check(t, "stub", u.Stub, false)

	rec = newRecorder()
	importInto(t, rec, Options{}, shared(t, "v2/brexit.jsonl"))
	rt := mustPost(t, rec, 1440716856763977732)
	check(t, "repost of", rt.RepostOfID, 1440713161355583489)
	check(t, "source", rt.Source, "Twitter Web App")
	if len(rt.Entities.Mentions) != 1 || rt.Entities.Mentions[0].ScreenName != "carolJhedges" || rt.Entities.Mentions[0].Start != 3 {
		t.Errorf("mentions = %+v", rt.Entities.Mentions)
	}
	if _, ok := rec.reposts[[2]int64{1440713161355583489, 4100727022}]; !ok {
		t.Errorf("repost row missing")
	}
	orig := mustPost(t, rec, 1440713161355583489) // from includes.tweets
	check(t, "original author screen name", rec.users[orig.AuthorID].ScreenName, "carolJhedges")
	u = mustUser(t, rec, 4203239195)
	check(t, "screen name", u.ScreenName, "WarmongerHodges")
	check(t, "followers", u.FollowersCount, 34920)
	check(t, "pinned", u.PinnedPostID, 1440708780543541255)
}

func TestGraphQLSearchFacts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "graphql/raw_search.json"))
	p := mustPost(t, rec, 2074976613713031490)
	check(t, "author", p.AuthorID, 20472409)
	check(t, "bookmarks", p.BookmarkCount, 7)
	check(t, "quotes", p.QuoteCount, 9)
	check(t, "replies", p.ReplyCount, 11)
	if p.Views == nil || *p.Views != 25900 {
		t.Errorf("views = %v, want 25900 (from a string)", p.Views)
	}
	// The note tweet replaces the cut legacy text.
	if !strings.HasSuffix(p.Text, "(~60% of Tesla sales in Europe)") || !strings.Contains(p.Text, "last five so far") {
		t.Errorf("text not the note's: %q", p.Text)
	}
	n := len([]rune(p.Text))
	if len(p.Entities.Media) != 4 {
		t.Errorf("media = %+v, want the 4 photos", p.Entities.Media)
	}
	for _, m := range p.Entities.Media {
		if m.Start != n || m.End != n {
			t.Errorf("media %d at [%d,%d], want an empty span at %d (the note text lacks the link)", m.ID, m.Start, m.End, n)
		}
	}
	if u := mustUser(t, rec, 20472409); u.Stub || u.ScreenName == "" {
		t.Errorf("author = %+v", u)
	}
}

func TestGraphQLNoteEscaping(t *testing.T) {
	// A note tweet whose raw text has "&" before its entities: the stored
	// text is escaped and the indices still point at the entities.
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "graphql/raw_search.json"), shared(t, "graphql/raw_user_tweets.json"),
		shared(t, "graphql/raw_community_tweets.json"), shared(t, "graphql/raw_list_timeline.json"))
	checked := 0
	for _, p := range rec.posts {
		rs := []rune(p.Text)
		for _, h := range p.Entities.Hashtags {
			if h.End > len(rs) || string(rs[h.Start:h.End]) != "#"+h.Text && string(rs[h.Start:h.End]) != "＃"+h.Text {
				t.Errorf("post %d: hashtag %+v does not match %q", p.ID, h, string(rs[min(h.Start, len(rs)):min(h.End, len(rs))]))
			}
			checked++
		}
		for _, m := range p.Entities.Mentions {
			if m.End > len(rs) || !strings.EqualFold(string(rs[m.Start+1:m.End]), m.ScreenName) {
				t.Errorf("post %d: mention %+v does not match the text", p.ID, m)
			}
			checked++
		}
		if strings.Contains(p.Text, "&") && !strings.Contains(p.Text, "&amp;") && !strings.Contains(p.Text, "&gt;") && !strings.Contains(p.Text, "&lt;") {
			t.Errorf("post %d: text not HTML-escaped: %q", p.ID, p.Text)
		}
	}
	if checked == 0 {
		t.Fatal("no entities checked")
	}
}

func TestGraphQLOldSchemaFacts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "graphql/raw_search_old.json"))
	u := mustUser(t, rec, 784136031641694208)
	check(t, "screen name (core)", u.ScreenName, "Deandawiz")
	check(t, "followers (legacy)", u.FollowersCount, 3760)
	check(t, "statuses (legacy)", u.StatusesCount, 50536)
	check(t, "location", u.Location, "Florida, USA")
	check(t, "blue", u.BlueVerified, true)
	check(t, "professional", u.ProfessionalType, "Creator")
	check(t, "pinned", u.PinnedPostID, 2043465327447539922)
	check(t, "created", u.CreatedAt, time.Date(2016, 10, 6, 20, 59, 33, 0, time.UTC))
}

func TestGraphQLThreadFacts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "graphql/raw_tweet_details.json"))
	const root = 1649191520250245121
	r := mustPost(t, rec, root)
	check(t, "root author", rec.users[r.AuthorID].ScreenName, "XDevelopers")
	check(t, "root favorites", r.FavoriteCount, 426)
	if r.Views == nil || *r.Views != 979440 {
		t.Errorf("views = %v", r.Views)
	}
	// Walk the self-thread from the root by reply links.
	children := map[int64][]int64{}
	inThread := 0
	for _, p := range rec.posts {
		if p.ConversationID == root {
			inThread++
		}
		if p.InReplyToID != 0 {
			children[p.InReplyToID] = append(children[p.InReplyToID], p.ID)
		}
	}
	check(t, "posts in the conversation", inThread, 37)
	chain := []int64{root}
	for {
		var next int64
		for _, c := range children[chain[len(chain)-1]] {
			if rec.posts[c].AuthorID == r.AuthorID {
				next = c
			}
		}
		if next == 0 {
			break
		}
		chain = append(chain, next)
	}
	if len(chain) < 4 || chain[1] != 1649191521323995138 || chain[2] != 1649191522485817345 || chain[3] != 1649191523697979392 {
		t.Errorf("self-thread = %v", chain)
	}
}

func TestGraphQLFollowersFacts(t *testing.T) {
	p := shared(t, "graphql/raw_followers.json")
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, p)
	check(t, "users", len(rec.users), 69)
	check(t, "follows without a subject", len(rec.follows), 0)
	if len(sum.Notes) == 0 {
		t.Errorf("summary does not say the follow edges were left out")
	}
	u := mustUser(t, rec, 236209129)
	check(t, "screen name", u.ScreenName, "leslieberland")
	check(t, "followers", u.FollowersCount, 127315)
	check(t, "following", u.FriendsCount, 3814)
	check(t, "statuses", u.StatusesCount, 11683)
	check(t, "blue", u.BlueVerified, true)
	check(t, "can dm", u.CanDM, false)
	check(t, "image", u.ImageURL, "https://pbs.twimg.com/profile_images/1106274854683074560/x7rrvxaD_normal.jpg")

	rec = newRecorder()
	importInto(t, rec, Options{FollowersOf: 42}, p)
	check(t, "follow edges", len(rec.follows), 69)
	if _, ok := rec.follows[[2]int64{236209129, 42}]; !ok {
		t.Errorf("leslieberland → 42 missing")
	}
}

func TestGraphQLCommunityFacts(t *testing.T) {
	rec := newRecorder()
	importInto(t, rec, Options{}, shared(t, "graphql/raw_community_tweets.json"))
	n := 0
	for _, p := range rec.posts {
		if p.CommunityID == 1501272736215322629 {
			n++
		}
	}
	if n < 20 {
		t.Errorf("%d posts carry the community id, want the 20 timeline posts at least", n)
	}
}

func TestArchiveFacts(t *testing.T) {
	rec := newRecorder()
	sum := importInto(t, rec, Options{}, shared(t, "archive/tweets.js"))
	const owner = 1964312974236991488
	check(t, "posts", len(rec.posts), 2045)
	u := mustUser(t, rec, owner)
	check(t, "owner screen name (recognised)", u.ScreenName, "milahu104")
	check(t, "owner is a stub", u.Stub, true)
	if len(sum.Notes) == 0 {
		t.Errorf("summary does not say how the owner was found")
	}
	p := mustPost(t, rec, 2029905358261502168)
	check(t, "author", p.AuthorID, owner)
	check(t, "text", p.Text, "@SamaHoole https://t.co/2UHqruPk7w")
	check(t, "reply to", p.InReplyToID, 2029903943413772741)
	check(t, "reply to user", p.InReplyToUserID, owner)
	check(t, "lang", p.Lang, "qme")
	check(t, "created", p.CreatedAt, time.Date(2026, 3, 6, 13, 2, 5, 0, time.UTC))
	if len(p.Entities.Mentions) != 1 || p.Entities.Mentions[0] != (social.Mention{UserID: 2253756806, ScreenName: "SamaHoole", Name: "Sama Hoole", Start: 0, End: 10}) {
		t.Errorf("mentions = %+v", p.Entities.Mentions)
	}
	if len(p.Entities.URLs) != 1 || p.Entities.URLs[0].Start != 11 || p.Entities.URLs[0].End != 34 {
		t.Errorf("urls = %+v", p.Entities.URLs)
	}
	for _, p := range rec.posts {
		if p.AuthorID != owner {
			t.Fatalf("post %d by %d, want the owner", p.ID, p.AuthorID)
		}
	}
	// Escaped text is kept escaped.
	found := false
	for _, p := range rec.posts {
		if strings.HasPrefix(p.Text, "@KimDotcom &gt; X is censored") {
			found = true
		}
	}
	if !found {
		t.Errorf("escaped text not kept as written")
	}
}
