package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"

	"github.com/roostapi/roost/client/wire"
)

// Balance is GET /user/balance (free).
func (c *Client) Balance(ctx context.Context) (Balance, error) {
	var b Balance
	err := c.call(ctx, request{method: "GET", path: "/user/balance"}, func(d []byte) (int, error) {
		return 0, json.Unmarshal(d, &b)
	})
	return b, err
}

// UserTweets is one page of a user's timeline without replies.
func (c *Client) UserTweets(ctx context.Context, userID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/user/"+id(userID)+"/tweets", nil, "tweets", pageSize, cursor)
}

// UserTweetsAll iterates over a user's timeline without replies.
func (c *Client) UserTweetsAll(ctx context.Context, userID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.UserTweets(ctx, userID, cur) })
}

// UserTweetsAndReplies is one page of a user's timeline with replies.
func (c *Client) UserTweetsAndReplies(ctx context.Context, userID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/user/"+id(userID)+"/tweets-and-replies", nil, "tweets", pageSize, cursor)
}

// UserTweetsAndRepliesAll iterates over a user's timeline with replies.
func (c *Client) UserTweetsAndRepliesAll(ctx context.Context, userID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) {
		return c.UserTweetsAndReplies(ctx, userID, cur)
	})
}

// CommunityTweets is one page of a community's posts in order. Every page
// asked for with a cursor starts with the community's pinned post, if it
// has one, as the hosted API serves it (and bills it): one item more than
// other pages.
func (c *Client) CommunityTweets(ctx context.Context, communityID int64, order Order, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/community/"+id(communityID)+"/tweets", orderQuery(order), "tweets", pageSize+1, cursor)
}

// CommunityTweetsAll iterates over a community's posts in order, each
// once: the pinned post the server repeats on later pages is yielded only
// where it first came.
func (c *Client) CommunityTweetsAll(ctx context.Context, communityID int64, order Order) iter.Seq2[Tweet, error] {
	return func(yield func(Tweet, error) bool) {
		seen := map[string]bool{}
		for t, err := range walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) {
			return c.CommunityTweets(ctx, communityID, order, cur)
		}) {
			if err == nil && seen[t.IDStr] {
				continue
			}
			seen[t.IDStr] = true
			if !yield(t, err) {
				return
			}
		}
	}
}

func orderQuery(o Order) url.Values {
	if o == "" {
		return url.Values{}
	}
	return url.Values{"type": {string(o)}}
}

// TweetsByIDs returns the posts found among ids (1 to 100), in the order
// asked, in the full shape.
func (c *Client) TweetsByIDs(ctx context.Context, ids []int64) ([]Tweet, error) {
	var out []Tweet
	err := c.batch(ctx, "/tweets-by-ids", map[string]any{"ids": idStrings(ids)}, len(ids), func(b []byte) (int, error) {
		err := json.Unmarshal(b, &out)
		return len(out), err
	})
	return out, err
}

// UsersByUsernames returns the profiles found among names (1 to 100).
func (c *Client) UsersByUsernames(ctx context.Context, names []string) ([]User, error) {
	return c.users(ctx, "/users-by-usernames", map[string]any{"usernames": names}, len(names))
}

// UsersByIDs returns the profiles found among ids (1 to 100), in the
// order asked.
func (c *Client) UsersByIDs(ctx context.Context, ids []int64) ([]User, error) {
	return c.users(ctx, "/users-by-ids", map[string]any{"ids": idStrings(ids)}, len(ids))
}

func (c *Client) users(ctx context.Context, path string, body any, n int) ([]User, error) {
	var out wire.UsersBody
	err := c.batch(ctx, path, body, n, func(b []byte) (int, error) {
		err := json.Unmarshal(b, &out)
		return len(out.Users), err
	})
	return out.Users, err
}

// batch posts body to a batch endpoint of at most n items.
func (c *Client) batch(ctx context.Context, path string, body any, n int, decode func([]byte) (int, error)) error {
	if n < 1 || n > maxBatch {
		return fmt.Errorf("client: %s takes 1 to %d entries, not %d", path, maxBatch, n)
	}
	return c.call(ctx, request{method: "POST", path: c.prefix + path, body: body, maxItems: int64(n)}, decode)
}

func idStrings(ids []int64) []string {
	out := make([]string, len(ids))
	for i, v := range ids {
		out[i] = id(v)
	}
	return out
}

// UserLists is one page of the lists a user owns or follows.
func (c *Client) UserLists(ctx context.Context, userID int64, cursor string) (Page[List], error) {
	return page[List](ctx, c, "/user/"+id(userID)+"/lists", nil, "lists", listsPageSize, cursor)
}

// UserListsAll iterates over the lists a user owns or follows.
func (c *Client) UserListsAll(ctx context.Context, userID int64) iter.Seq2[List, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[List], error) { return c.UserLists(ctx, userID, cur) })
}

// ListTweets is one page of the posts of a list's members.
func (c *Client) ListTweets(ctx context.Context, listID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/list/"+id(listID)+"/tweets", nil, "tweets", pageSize, cursor)
}

// ListTweetsAll iterates over the posts of a list's members.
func (c *Client) ListTweetsAll(ctx context.Context, listID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.ListTweets(ctx, listID, cur) })
}

// Thread is one page of a conversation, from its root.
func (c *Client) Thread(ctx context.Context, threadID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/thread/"+id(threadID), nil, "tweets", threadPageSize, cursor)
}

// ThreadAll iterates over a conversation, from its root.
func (c *Client) ThreadAll(ctx context.Context, threadID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Thread(ctx, threadID, cur) })
}

// Mentions is one page of the posts mentioning a user.
func (c *Client) Mentions(ctx context.Context, username string, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/user/"+url.PathEscape(username)+"/mentions", nil, "tweets", pageSize, cursor)
}

// MentionsAll iterates over the posts mentioning a user.
func (c *Client) MentionsAll(ctx context.Context, username string) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Mentions(ctx, username, cur) })
}

// Highlights is one page of a user's highlights.
func (c *Client) Highlights(ctx context.Context, userID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/user/"+id(userID)+"/highlights", nil, "tweets", pageSize, cursor)
}

// HighlightsAll iterates over a user's highlights.
func (c *Client) HighlightsAll(ctx context.Context, userID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Highlights(ctx, userID, cur) })
}

// CommunityMembers is one page of a community's members.
func (c *Client) CommunityMembers(ctx context.Context, communityID int64, cursor string) (Page[Member], error) {
	return page[Member](ctx, c, "/community/"+id(communityID)+"/members", nil, "users", pageSize, cursor)
}

// CommunityMembersAll iterates over a community's members.
func (c *Client) CommunityMembersAll(ctx context.Context, communityID int64) iter.Seq2[Member, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Member], error) {
		return c.CommunityMembers(ctx, communityID, cur)
	})
}
