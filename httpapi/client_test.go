package httpapi

import (
	"context"
	"iter"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"

	"github.com/roostapi/roost/billing"
	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/social"
)

// TestClientWalks drives every paged endpoint through package client over
// a real HTTP server on the generated network: each full walk equals the
// store's own keyset walk, and the key paid exactly what the client
// counted.
func TestClientWalks(t *testing.T) { eachEngine(t, testClientWalks) }

func testClientWalks(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	key, keyID := e.key(t, plenty, 0)
	before := e.balance(t, keyID)
	c, err := client.New(srv.URL, key, client.WithBudget(plenty, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	st := e.store
	q, err := parseQuery("the -filter:replies", testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		viaClient   []string
		viaStore    []string
		leastLength int
	}{
		{"user tweets", ids(c.UserTweetsAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.UserPosts(ctx, x.UserID, false, p)
		}), 21},
		{"tweets and replies", ids(c.UserTweetsAndRepliesAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.UserPosts(ctx, x.UserID, true, p)
		}), 21},
		{"list tweets", ids(c.ListTweetsAll(ctx, x.ListID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.ListPosts(ctx, x.ListID, p)
		}), 21},
		{"thread", ids(c.ThreadAll(ctx, x.ThreadID)), storePosts(t, 30, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Thread(ctx, x.ThreadID, p)
		}), 31},
		{"mentions", ids(c.MentionsAll(ctx, x.Username)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Mentions(ctx, x.Username, p)
		}), 1},
		{"highlights", ids(c.HighlightsAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Highlights(ctx, x.UserID, p)
		}), 0},
		{"comments", ids(c.CommentsAll(ctx, x.PostID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Replies(ctx, x.PostID, p)
		}), 1},
		{"quotes", ids(c.QuotesAll(ctx, x.PostID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Quotes(ctx, x.PostID, p)
		}), 1},
		{"likes", ids(c.LikesAll(ctx, x.UserID)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Likes(ctx, x.UserID, p)
		}), 1},
		{"search", ids(c.SearchAll(ctx, "the -filter:replies", client.Latest)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Search(ctx, q, social.Latest, p)
		}), 21},
		{"search top", ids(c.SearchAll(ctx, "the -filter:replies", client.Top)), storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.Search(ctx, q, social.Top, p)
		}), 21},
		// The pinned post leads every page after the first: the client
		// yields it once, where it first came, so only the sets compare.
		{"community tweets", sorted(ids(c.CommunityTweetsAll(ctx, x.CommunityID, client.Latest))), sorted(storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.CommunityPosts(ctx, x.CommunityID, social.Latest, p)
		})), 21},
		{"community tweets top", sorted(ids(c.CommunityTweetsAll(ctx, x.CommunityID, client.Top))), sorted(storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
			return st.CommunityPosts(ctx, x.CommunityID, social.Top, p)
		})), 21},
		{"retweeters", ids(c.RetweetersAll(ctx, x.PostID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Reposters(ctx, x.PostID, p)
		}), 1},
		{"liking users", ids(c.LikingUsersAll(ctx, x.PostID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.LikingUsers(ctx, x.PostID, p)
		}), 1},
		{"affiliates", ids(c.AffiliatesAll(ctx, x.OrganizationUserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Affiliates(ctx, x.OrganizationUserID, p)
		}), 1},
		{"verified followers", ids(c.VerifiedFollowersAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.VerifiedFollowers(ctx, x.UserID, p)
		}), 0},
		{"following", ids(c.FollowingAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Following(ctx, x.UserID, p)
		}), 1},
		{"followers", ids(c.FollowersAll(ctx, x.UserID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.Followers(ctx, x.UserID, p)
		}), 1},
		{"list members", ids(c.ListMembersAll(ctx, x.ListID)), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.ListMembers(ctx, x.ListID, p)
		}), 1},
		{"search users", ids(c.SearchUsersAll(ctx, x.Username[:2])), storeUsers(t, func(p social.PageReq) (social.Page[social.User], error) {
			return st.SearchUsers(ctx, x.Username[:2], p)
		}), 1},
		{"community members", ids(c.CommunityMembersAll(ctx, x.CommunityID)), storeKeys(t, 20, func(p social.PageReq) (social.Page[social.Member], error) {
			return st.CommunityMembers(ctx, x.CommunityID, p)
		}, func(m social.Member) int64 { return m.User.ID }), 1},
		{"user lists", ids(c.UserListsAll(ctx, x.ListsUserID)), storeKeys(t, 100, func(p social.PageReq) (social.Page[social.List], error) {
			return st.UserLists(ctx, x.ListsUserID, p)
		}, func(l social.List) int64 { return l.ID }), 101},
	} {
		if !slices.Equal(tc.viaClient, tc.viaStore) || len(tc.viaClient) < tc.leastLength {
			t.Errorf("%s: client walked %d items, store %d (want at least %d)", tc.name, len(tc.viaClient),
				len(tc.viaStore), tc.leastLength)
		}
	}
	if paid := before - e.balance(t, keyID); paid != c.Spent() || paid == 0 {
		t.Errorf("the key paid %d, the client counted %d", paid, c.Spent())
	}
}

// sorted is ids in order, for walks whose order differs by design.
func sorted(ids []string) []string {
	slices.Sort(ids)
	return ids
}

// idOf is the id a client value carries as a string.
type idOf interface {
	client.Tweet | client.User | client.Member | client.List
}

func ids[T idOf](seq iter.Seq2[T, error]) []string {
	var out []string
	for v, err := range seq {
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		switch x := any(v).(type) {
		case client.Tweet:
			out = append(out, x.IDStr)
		case client.User:
			out = append(out, x.IDStr)
		case client.Member:
			out = append(out, x.IDStr)
		case client.List:
			out = append(out, x.IDStr)
		}
	}
	return out
}

// storeKeys walks a store pager to its end and lists the items' ids.
func storeKeys[T any](t *testing.T, size int, fetch func(social.PageReq) (social.Page[T], error), key func(T) int64) []string {
	t.Helper()
	var out []string
	req := social.PageReq{Limit: size}
	for {
		p, err := fetch(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			out = append(out, strconv.FormatInt(key(it), 10))
		}
		if p.Next == nil {
			return out
		}
		req.After = p.Next
	}
}

func storePosts(t *testing.T, size int, fetch func(social.PageReq) (social.Page[social.Post], error)) []string {
	return storeKeys(t, size, fetch, func(p social.Post) int64 { return p.ID })
}

func storeUsers(t *testing.T, fetch func(social.PageReq) (social.Page[social.User], error)) []string {
	return storeKeys(t, 20, fetch, func(u social.User) int64 { return u.ID })
}

// TestClientObjects calls every single-object and batch endpoint through
// package client on the generated network, under both prefixes.
func TestClientObjects(t *testing.T) { eachEngine(t, testClientObjects) }

func testClientObjects(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	key, _ := e.key(t, plenty, 0)
	for _, prefix := range prefixes {
		c, err := client.New(srv.URL, key, client.WithPrefix(prefix))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		check := func(what string, ok bool, err error) {
			t.Helper()
			if err != nil || !ok {
				t.Errorf("%s %s: ok %v, err %v", prefix, what, ok, err)
			}
		}
		u, err := c.User(ctx, x.Username)
		check("user by name", u.ID != 0 && u.ScreenName == x.Username, err)
		u2, err := c.UserByID(ctx, u.ID)
		check("user by id", u2.IDStr == u.IDStr && u2.ScreenName == u.ScreenName && u2.FollowersCount == u.FollowersCount, err)
		us, err := c.UsersByIDs(ctx, []int64{u.ID, x.UserID})
		check("users by ids", len(us) >= 1 && us[0].ID == u.ID, err)
		us, err = c.UsersByUsernames(ctx, []string{x.Username})
		check("users by usernames", len(us) == 1 && us[0].IDStr == u.IDStr, err)
		tw, err := c.Tweet(ctx, x.PostID)
		check("tweet", tw.ID == x.PostID && tw.User != nil, err)
		tw2, err := c.StatusesShow(ctx, x.PostID)
		check("statuses/show", tw2.ID == tw.ID && tw2.FullText == tw.FullText, err)
		tws, err := c.TweetsByIDs(ctx, []int64{x.PostID, x.ThreadID})
		check("tweets by ids", len(tws) == 2 && tws[0].ID == x.PostID, err)
		l, err := c.List(ctx, x.ListID)
		check("list", l.IDStr == strconv.FormatInt(x.ListID, 10) && l.OwnerID() != 0, err)
		f, err := c.IsFollowing(ctx, x.UserID, x.UserID)
		check("following check", f.Status == "success" && !f.IsFollowing, err)
		rt, err := c.Retweeted(ctx, x.PostID, x.UserID)
		check("retweeted check", rt.Status == "success" && rt.TargetTweetID == strconv.FormatInt(x.PostID, 10), err)
		cm, err := c.Commented(ctx, x.PostID, x.UserID)
		check("commented check", cm.Status == "success" && cm.IsCommented == (len(cm.CommentIDs) > 0), err)
		fl, err := c.FollowersList(ctx, x.UserID, "")
		check("followers/list", len(fl.Items) > 0, err)
		fr, err := c.FriendsList(ctx, x.UserID, "")
		check("friends/list", len(fr.Items) > 0, err)
		bio, err := c.ExtendedBio(ctx, x.ExtendedBioUsername)
		stored, serr := e.store.UserByScreenName(ctx, x.ExtendedBioUsername)
		check("extended bio", serr == nil && stored.ExtendedBio != "" && bio.Text() == stored.ExtendedBio, err)
		b, err := c.Balance(ctx)
		m, merr := b.Micros()
		check("balance", merr == nil && m > 0, err)
	}
}
