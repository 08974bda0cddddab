package storetest

import (
	"time"

	"github.com/roostapi/roost/internal/social"
)

// base is the fixture's clock: post N of the fixture is created N minutes
// after it, so that id order and time order agree.
var base = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func at(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }

func i64(v int64) *int64 { return &v }

// Fixture users.
const (
	alice = 1 // verified, authors most posts
	bob   = 2 // blue-verified, a list member
	carol = 3 // shadow-banned
	dave  = 4 // known only as a stub
	erin  = 5 // protected
)

// Fixture spaces.
const (
	endedSpace     = "1jMJgLdenVjxL" // ended, with a replay, admins and speakers
	scheduledSpace = "1YpKkgVgevjGj" // scheduled, its host alone
)

// fixture is the small hand-built data set every reader and search test
// reads. Expected results are written by hand against it.
func fixture() *social.Batch {
	b := &social.Batch{
		Users: []social.User{
			{ID: alice, ScreenName: "alice", Name: "Alice", Verified: true, FollowersCount: 10, CreatedAt: at(-1000), ProfessionalType: "Business",
				ExtendedBio: "Building tools for foxes.\nNaïve about cafés, serious about data."},
			{ID: bob, ScreenName: "Bob", Name: "Bob B", BlueVerified: true, CreatedAt: at(-900)},
			{ID: carol, ScreenName: "carol", Name: "Carol", ShadowBanned: true, CreatedAt: at(-800)},
			{ID: dave, ScreenName: "dave", Stub: true},
			{ID: erin, ScreenName: "erin", Name: "Erin", Protected: true, CanDM: true, CreatedAt: at(-700)},
		},
		Posts: []social.Post{
			{ID: 101, AuthorID: alice, CreatedAt: at(101), Text: "Hello world from the café", Lang: "en",
				Entities: social.Entities{Hashtags: []social.Tag{{Text: "Go", Start: 0, End: 3}}}},
			{ID: 102, AuthorID: bob, CreatedAt: at(102), Text: "@alice hello there, world!", Lang: "en",
				InReplyToID: 101, InReplyToUserID: alice, InReplyToScreenName: "alice", ConversationID: 101,
				Entities: social.Entities{Mentions: []social.Mention{{UserID: alice, ScreenName: "alice", Start: 0, End: 6}}}},
			{ID: 103, AuthorID: alice, CreatedAt: at(103), Text: "The quick brown fox jumps", Lang: "en",
				InReplyToID: 101, InReplyToUserID: alice, InReplyToScreenName: "alice", ConversationID: 101},
			{ID: 104, AuthorID: carol, CreatedAt: at(104), Text: "hello from carol", Lang: "en"},
			{ID: 105, AuthorID: bob, CreatedAt: at(105), Text: "RT @alice: Hello world from the café", RepostOfID: 101},
			{ID: 106, AuthorID: alice, CreatedAt: at(106), Text: "quick fox https://t.co/x", Lang: "fr", FavoriteCount: 10, Views: i64(5000),
				Entities: social.Entities{
					URLs:  []social.URL{{URL: "https://t.co/x", ExpandedURL: "https://example.com/some-path", Start: 10, End: 24}},
					Media: []social.Media{{ID: 1, Type: social.MediaPhoto, Start: 10, End: 24}}}},
			{ID: 107, AuthorID: bob, CreatedAt: at(107), Text: "Brown quick fox $ROOST", Lang: "en", QuotedID: 106,
				Entities: social.Entities{
					Symbols: []social.Tag{{Text: "ROOST", Start: 16, End: 22}},
					Media:   []social.Media{{ID: 2, Type: social.MediaVideo}}}},
			{ID: 108, AuthorID: erin, CreatedAt: at(108), Text: "RT @bob old style retweet", Lang: "und"},
			{ID: 109, AuthorID: dave, CreatedAt: at(109), Text: "日本語のテキスト", Lang: "ja"},
			{ID: 110, AuthorID: alice, CreatedAt: at(110), Text: "the quick red fox", Lang: "en", RetweetCount: 5, ReplyCount: 3, CommunityID: 900},
			{ID: 111, AuthorID: bob, CreatedAt: at(111), Text: "naïve résumé @Carol", Lang: "en", CommunityID: 900,
				Entities: social.Entities{Mentions: []social.Mention{{UserID: carol, ScreenName: "Carol", Start: 13, End: 19}}}},
		},
		Follows: []social.Follow{
			{FollowerID: bob, FolloweeID: alice, CreatedAt: at(1)},
			{FollowerID: carol, FolloweeID: alice, CreatedAt: at(2)},
			{FollowerID: erin, FolloweeID: alice, CreatedAt: at(3)},
			{FollowerID: alice, FolloweeID: bob, CreatedAt: at(4)},
			{FollowerID: alice, FolloweeID: erin, CreatedAt: at(5)},
			{FollowerID: alice, FolloweeID: carol, CreatedAt: at(6)},
		},
		Reposts: []social.Repost{
			{PostID: 101, UserID: bob, CreatedAt: at(200)},
			{PostID: 101, UserID: erin, CreatedAt: at(150)},
			{PostID: 101, UserID: carol, CreatedAt: at(250)},
		},
		Affiliations: []social.Affiliation{
			{OrgID: alice, UserID: bob, CreatedAt: at(10)},
			{OrgID: alice, UserID: erin, CreatedAt: at(20)},
		},
		Highlights: []social.Highlight{
			{UserID: alice, PostID: 101, CreatedAt: at(300)},
			{UserID: alice, PostID: 110, CreatedAt: at(290)},
			{UserID: alice, PostID: 106, CreatedAt: at(310)},
		},
		Likes: []social.Like{
			{PostID: 101, UserID: bob, CreatedAt: at(400)},
			{PostID: 101, UserID: erin, CreatedAt: at(410)},
			{PostID: 106, UserID: carol, CreatedAt: at(405)},
			{PostID: 106, UserID: bob, CreatedAt: at(401)},
			{PostID: 102, UserID: alice, CreatedAt: at(420)},
		},
		Lists: []social.List{
			{ID: 700, OwnerID: alice, Name: "Friends", Description: "d", CreatedAt: at(30), MemberCount: 2},
			{ID: 701, OwnerID: bob, Name: "Bobs", Mode: "Private", CreatedAt: at(40)},
			{ID: 702, OwnerID: alice, Name: "Later", CreatedAt: at(50)},
		},
		ListMembers: []social.ListMember{
			{ListID: 700, UserID: bob, CreatedAt: at(31)},
			{ListID: 700, UserID: erin, CreatedAt: at(32)},
		},
		ListSubscribers: []social.ListSubscriber{
			{ListID: 701, UserID: alice, CreatedAt: at(45)},
			{ListID: 700, UserID: alice, CreatedAt: at(46)}, // own list: listed once, as owned
		},
		Communities: []social.Community{
			{ID: 900, Name: "Foxes", Description: "quick ones", CreatorID: alice, CreatedAt: at(60), PinnedPostID: 110, MemberCount: 4},
		},
		CommunityMembers: []social.CommunityMember{
			{CommunityID: 900, UserID: bob, Role: social.RoleMember, JoinedAt: at(63)},
			{CommunityID: 900, UserID: erin, Role: social.RoleMember, JoinedAt: at(64)},
			{CommunityID: 900, UserID: carol, Role: social.RoleModerator, JoinedAt: at(62)},
			{CommunityID: 900, UserID: alice, Role: social.RoleAdmin, JoinedAt: at(61)},
		},
		Spaces: []social.Space{
			{ID: endedSpace, CreatorID: alice, Title: "Foxes, live", State: social.SpaceEnded, CreatedAt: at(500),
				ScheduledStart: at(510), StartedAt: at(512), EndedAt: at(560), UpdatedAt: at(561), Listeners: 42,
				ReplayWatched: 7, Replay: true, Admins: []int64{alice, bob}, Speakers: []int64{carol, erin, dave}},
			{ID: scheduledSpace, CreatorID: bob, Title: "Later", State: social.SpaceScheduled, CreatedAt: at(600),
				ScheduledStart: at(2000), UpdatedAt: at(600), Admins: []int64{bob}},
		},
	}
	return b
}

// Fixture is the suite's data set, for other packages' tests: five users
// (one a stub, one shadow-banned, one with an extended bio), eleven posts
// with replies, a repost, a quote, entities and CJK text, every kind of
// relation, likes, and two audio spaces.
func Fixture() *social.Batch { return fixture() }
