package client

import (
	"context"
	"iter"
	"net/url"
)

// usersPage is one page of profiles at path (with query q).
func (c *Client) usersPage(ctx context.Context, path string, q url.Values, cursor string) (Page[User], error) {
	return page[User](ctx, c, path, q, "users", pageSize, cursor)
}

func (c *Client) usersAll(ctx context.Context, path string, q func() url.Values) iter.Seq2[User, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[User], error) { return c.usersPage(ctx, path, q(), cur) })
}

func noQuery() url.Values { return nil }

// Retweeters is one page of the users who reposted a post.
func (c *Client) Retweeters(ctx context.Context, tweetID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/tweets/"+id(tweetID)+"/retweeted_by", nil, cursor)
}

// RetweetersAll iterates over the users who reposted a post.
func (c *Client) RetweetersAll(ctx context.Context, tweetID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/tweets/"+id(tweetID)+"/retweeted_by", noQuery)
}

// LikingUsers is one page of the users who liked a post.
func (c *Client) LikingUsers(ctx context.Context, tweetID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/tweets/"+id(tweetID)+"/liking_users", nil, cursor)
}

// LikingUsersAll iterates over the users who liked a post.
func (c *Client) LikingUsersAll(ctx context.Context, tweetID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/tweets/"+id(tweetID)+"/liking_users", noQuery)
}

// Affiliates is one page of an organisation's affiliated profiles.
func (c *Client) Affiliates(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/user/"+id(userID)+"/affiliates", nil, cursor)
}

// AffiliatesAll iterates over an organisation's affiliated profiles.
func (c *Client) AffiliatesAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/user/"+id(userID)+"/affiliates", noQuery)
}

// VerifiedFollowers is one page of a user's verified followers.
func (c *Client) VerifiedFollowers(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/user/"+id(userID)+"/verified-followers", nil, cursor)
}

// VerifiedFollowersAll iterates over a user's verified followers.
func (c *Client) VerifiedFollowersAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/user/"+id(userID)+"/verified-followers", noQuery)
}

// Following is one page of the accounts a user follows.
func (c *Client) Following(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/user/"+id(userID)+"/following", nil, cursor)
}

// FollowingAll iterates over the accounts a user follows.
func (c *Client) FollowingAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/user/"+id(userID)+"/following", noQuery)
}

// Followers is one page of a user's followers.
func (c *Client) Followers(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/user/"+id(userID)+"/followers", nil, cursor)
}

// FollowersAll iterates over a user's followers.
func (c *Client) FollowersAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/user/"+id(userID)+"/followers", noQuery)
}

// FollowersList is the older path of Followers (/followers/list?user_id=).
func (c *Client) FollowersList(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/followers/list", url.Values{"user_id": {id(userID)}}, cursor)
}

// FollowersListAll iterates over a user's followers by the older path.
func (c *Client) FollowersListAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/followers/list", func() url.Values { return url.Values{"user_id": {id(userID)}} })
}

// FriendsList is the older path of Following (/friends/list?user_id=).
func (c *Client) FriendsList(ctx context.Context, userID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/friends/list", url.Values{"user_id": {id(userID)}}, cursor)
}

// FriendsListAll iterates over the accounts a user follows by the older
// path.
func (c *Client) FriendsListAll(ctx context.Context, userID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/friends/list", func() url.Values { return url.Values{"user_id": {id(userID)}} })
}

// ListMembers is one page of a list's members.
func (c *Client) ListMembers(ctx context.Context, listID int64, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/list/"+id(listID)+"/members", nil, cursor)
}

// ListMembersAll iterates over a list's members.
func (c *Client) ListMembersAll(ctx context.Context, listID int64) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/list/"+id(listID)+"/members", noQuery)
}

// SearchUsers is one page of the users whose name or screen name contains
// text, best match first.
func (c *Client) SearchUsers(ctx context.Context, text, cursor string) (Page[User], error) {
	return c.usersPage(ctx, "/search-users", url.Values{"query": {text}}, cursor)
}

// SearchUsersAll iterates over the users whose name or screen name
// contains text.
func (c *Client) SearchUsersAll(ctx context.Context, text string) iter.Seq2[User, error] {
	return c.usersAll(ctx, "/search-users", func() url.Values { return url.Values{"query": {text}} })
}

// User is one profile by id or by screen name (a string of digits is an
// id first, then a name).
func (c *Client) User(ctx context.Context, idOrName string) (User, error) {
	return object[User](ctx, c, request{method: "GET", path: c.prefix + "/user/" + url.PathEscape(idOrName)}, nil)
}

// UserByID is one profile by id.
func (c *Client) UserByID(ctx context.Context, userID int64) (User, error) {
	return c.User(ctx, id(userID))
}

// ExtendedBio is a user's long bio; without one it has no blocks (and is
// free).
func (c *Client) ExtendedBio(ctx context.Context, username string) (ExtendedBio, error) {
	return object(ctx, c, request{method: "GET", path: c.prefix + "/user/" + url.PathEscape(username) + "/extended-bio"},
		func(b *ExtendedBio) bool { return len(b.Blocks) > 0 })
}

// IsFollowing checks whether sourceID follows targetID.
func (c *Client) IsFollowing(ctx context.Context, sourceID, targetID int64) (Following, error) {
	return object[Following](ctx, c, request{method: "GET", path: c.prefix + "/user/" + id(sourceID) + "/following/" + id(targetID)}, nil)
}
