package httpapi

import (
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Fixture ids.
const (
	alice, bob, carol, dave, erin, frank = 1, 2, 3, 4, 5, 6 // frank has no posts
	rootPost, replyPost, reply2Post      = 101, 102, 103
	quotePost, repostPost                = 104, 105
	community, pinnedPost                = 7, 310
	list                                 = 9
	digits                               = 8 // screen name "2024"
	space                                = "1AbCdEfGhIjKl"
	aliceRoots                           = 45 // posts 200..244
	communityPosts                       = 25 // posts 300..324
)

var base = time.Date(2024, 5, 1, 12, 0, 0, 123456000, time.UTC)

func at(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }

// fixture is a small network with exact values, for goldens and errors.
func fixture() *social.Batch {
	views := int64(1234)
	u := func(id int64, name string) social.User {
		return social.User{ID: id, ScreenName: name, Name: "The " + name, Location: "Earth",
			Description: "I am " + name, FollowersCount: id * 10, FriendsCount: id, ListedCount: 1,
			FavouritesCount: 2, StatusesCount: 3, CreatedAt: at(-1000 * int(id)),
			BannerURL: "https://pbs.example/banners/" + name, ImageURL: "https://pbs.example/img/" + name + ".jpg", CanDM: id%2 == 1}
	}
	b := &social.Batch{}
	a := u(alice, "alice")
	a.URL, a.Verified, a.PinnedPostID = "https://alice.example", true, rootPost
	a.ExtendedBio = "I write Go.\n\nAnd I \"test\" it & ship it."
	bb := u(bob, "bob")
	bb.Protected = true
	c := u(carol, "carol")
	c.ProfessionalType, c.BlueVerified = "Business", true
	d := u(dave, "dave")
	d.Verified = true
	e := u(erin, "erin")
	e.BlueVerified = true
	b.Users = []social.User{a, bb, c, d, e, u(frank, "frank"), u(digits, "2024")}

	src := `<a href="https://example.com" rel="nofollow">Web App</a>`
	text := "hello @bob #go $GOOG https://t.co/x &amp; more"
	b.Posts = []social.Post{
		{ID: rootPost, AuthorID: alice, CreatedAt: at(1), Text: text, Source: src, Lang: "en", ConversationID: rootPost,
			QuoteCount: 1, ReplyCount: 1, RetweetCount: 2, FavoriteCount: 5, BookmarkCount: 1, Views: &views,
			Entities: social.Entities{
				Mentions: []social.Mention{{UserID: bob, ScreenName: "bob", Name: "The bob", Start: 6, End: 10}},
				Hashtags: []social.Tag{{Text: "go", Start: 11, End: 14}},
				Symbols:  []social.Tag{{Text: "GOOG", Start: 15, End: 20}},
				URLs:     []social.URL{{URL: "https://t.co/x", ExpandedURL: "https://example.com/x", DisplayURL: "example.com/x", Start: 21, End: 35}},
			}},
		{ID: replyPost, AuthorID: bob, CreatedAt: at(2), Text: "@alice hi", Source: src, Lang: "en", ConversationID: rootPost,
			InReplyToID: rootPost, InReplyToUserID: alice, InReplyToScreenName: "alice",
			Entities: social.Entities{Mentions: []social.Mention{{UserID: alice, ScreenName: "alice", Name: "The alice", Start: 0, End: 6}}}},
		{ID: reply2Post, AuthorID: alice, CreatedAt: at(3), Text: "@bob yo", Source: src, Lang: "en", ConversationID: rootPost,
			InReplyToID: replyPost, InReplyToUserID: bob, InReplyToScreenName: "bob",
			Entities: social.Entities{Mentions: []social.Mention{{UserID: bob, ScreenName: "bob", Start: 0, End: 4}}}},
		{ID: quotePost, AuthorID: carol, CreatedAt: at(4), Text: "look at this", Source: src, Lang: "en", ConversationID: quotePost, QuotedID: rootPost},
		{ID: repostPost, AuthorID: dave, CreatedAt: at(5), Text: "RT @carol: look at this", Source: src, Lang: "en", ConversationID: repostPost, RepostOfID: quotePost},
	}
	for i := range aliceRoots {
		id := int64(200 + i)
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: alice, CreatedAt: at(10 + i), Text: fmt.Sprintf("alice post %d", i),
			Source: src, Lang: "en", ConversationID: id, FavoriteCount: int64(i % 7)})
	}
	for i := range communityPosts {
		id := int64(300 + i)
		author := int64(alice)
		if i%2 == 1 {
			author = dave
		}
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: author, CreatedAt: at(100 + i), Text: fmt.Sprintf("community post %d", i),
			Source: src, Lang: "en", ConversationID: id, CommunityID: community, FavoriteCount: int64((i * 5) % 11)})
	}
	b.Communities = []social.Community{{ID: community, Name: "Gophers", Description: "Go people", CreatorID: alice,
		CreatedAt: at(0), PinnedPostID: pinnedPost, MemberCount: 3}}
	b.CommunityMembers = []social.CommunityMember{
		{CommunityID: community, UserID: alice, Role: social.RoleAdmin, JoinedAt: at(0)},
		{CommunityID: community, UserID: dave, Role: social.RoleModerator, JoinedAt: at(1)},
		{CommunityID: community, UserID: erin, Role: social.RoleMember, JoinedAt: at(2)},
	}
	b.Lists = []social.List{{ID: list, OwnerID: alice, Name: "Friends", Description: "my friends", Mode: "Public",
		CreatedAt: at(0), MemberCount: 2, SubscriberCount: 1234, BannerURL: "https://pbs.example/list-banner.png"}}
	b.ListMembers = []social.ListMember{{ListID: list, UserID: dave, CreatedAt: at(1)}, {ListID: list, UserID: erin, CreatedAt: at(2)}}
	b.ListSubscribers = []social.ListSubscriber{{ListID: list, UserID: carol, CreatedAt: at(3)}}
	b.Reposts = []social.Repost{{PostID: rootPost, UserID: dave, CreatedAt: at(6)}, {PostID: rootPost, UserID: erin, CreatedAt: at(7)}}
	b.Affiliations = []social.Affiliation{{OrgID: carol, UserID: dave, CreatedAt: at(1)}, {OrgID: carol, UserID: erin, CreatedAt: at(2)}}
	b.Follows = []social.Follow{
		{FollowerID: dave, FolloweeID: alice, CreatedAt: at(1)}, {FollowerID: erin, FolloweeID: alice, CreatedAt: at(2)},
		{FollowerID: bob, FolloweeID: alice, CreatedAt: at(3)},
		{FollowerID: alice, FolloweeID: dave, CreatedAt: at(4)}, {FollowerID: alice, FolloweeID: carol, CreatedAt: at(5)},
	}
	b.Highlights = []social.Highlight{{UserID: alice, PostID: rootPost, CreatedAt: at(8)}, {UserID: alice, PostID: 200, CreatedAt: at(9)}}
	b.Likes = []social.Like{{PostID: rootPost, UserID: dave, CreatedAt: at(6)}, {PostID: rootPost, UserID: erin, CreatedAt: at(8)},
		{PostID: 200, UserID: dave, CreatedAt: at(20)}}
	b.Spaces = []social.Space{{ID: space, CreatorID: alice, Title: "Go talk", State: social.SpaceEnded, CreatedAt: at(0),
		ScheduledStart: at(10), StartedAt: at(11), EndedAt: at(70), UpdatedAt: at(71), Listeners: 42, ReplayWatched: 7,
		Replay: true, Admins: []int64{alice, carol}, Speakers: []int64{dave}}}
	return b
}
