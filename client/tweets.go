package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
)

// Tweet is one post in the full shape.
func (c *Client) Tweet(ctx context.Context, tweetID int64) (Tweet, error) {
	return object[Tweet](ctx, c, request{method: "GET", path: c.prefix + "/tweets/" + id(tweetID)}, nil)
}

// StatusesShow is the older path of Tweet (/statuses/show?id=).
func (c *Client) StatusesShow(ctx context.Context, tweetID int64) (Tweet, error) {
	return object[Tweet](ctx, c, request{method: "GET", path: c.prefix + "/statuses/show",
		query: url.Values{"id": {id(tweetID)}}}, nil)
}

// Comments is one page of the direct replies to a post, oldest first.
func (c *Client) Comments(ctx context.Context, tweetID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/tweets/"+id(tweetID)+"/comments", nil, "tweets", pageSize, cursor)
}

// CommentsAll iterates over the direct replies to a post.
func (c *Client) CommentsAll(ctx context.Context, tweetID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Comments(ctx, tweetID, cur) })
}

// Quotes is one page of the posts quoting a post, newest first.
func (c *Client) Quotes(ctx context.Context, tweetID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/tweets/"+id(tweetID)+"/quotes", nil, "tweets", pageSize, cursor)
}

// QuotesAll iterates over the posts quoting a post.
func (c *Client) QuotesAll(ctx context.Context, tweetID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Quotes(ctx, tweetID, cur) })
}

// Likes is one page of the posts a user liked, most recently liked first.
func (c *Client) Likes(ctx context.Context, userID int64, cursor string) (Page[Tweet], error) {
	return page[Tweet](ctx, c, "/user/"+id(userID)+"/likes", nil, "tweets", pageSize, cursor)
}

// LikesAll iterates over the posts a user liked.
func (c *Client) LikesAll(ctx context.Context, userID int64) iter.Seq2[Tweet, error] {
	return walk(ctx, func(ctx context.Context, cur string) (Page[Tweet], error) { return c.Likes(ctx, userID, cur) })
}

// Commented checks whether a user replied to a post, with the replies' ids.
func (c *Client) Commented(ctx context.Context, tweetID, userID int64) (Commented, error) {
	return object[Commented](ctx, c, request{method: "GET", path: c.prefix + "/tweets/" + id(tweetID) + "/commented_by/" + id(userID)}, nil)
}

// Retweeted checks whether a user reposted a post.
func (c *Client) Retweeted(ctx context.Context, tweetID, userID int64) (Retweeted, error) {
	return object[Retweeted](ctx, c, request{method: "GET", path: c.prefix + "/tweets/" + id(tweetID) + "/retweeted_by/" + id(userID)}, nil)
}

// List is one list object.
func (c *Client) List(ctx context.Context, listID int64) (List, error) {
	return object[List](ctx, c, request{method: "GET", path: c.prefix + "/list/" + id(listID)}, nil)
}

// Space is one audio space.
func (c *Client) Space(ctx context.Context, spaceID string) (Space, error) {
	return object[Space](ctx, c, request{method: "GET", path: c.prefix + "/space/" + url.PathEscape(spaceID)}, nil)
}

// Search is one page of the posts matching query (the operator language of
// the network's search) in order.
func (c *Client) Search(ctx context.Context, query string, order Order, cursor string) (Page[Tweet], error) {
	q := orderQuery(order)
	q.Set("query", query)
	return page[Tweet](ctx, c, "/search", q, "tweets", pageSize, cursor)
}

// SearchAll iterates over every post matching query. With Latest, when the
// server stops giving cursors before the matches end (as the hosted
// service does), it goes on with max_id: below the lowest id received
// (see NextSearch), so no post comes twice; it ends at an empty page.
func (c *Client) SearchAll(ctx context.Context, query string, order Order) iter.Seq2[Tweet, error] {
	return func(yield func(Tweet, error) bool) {
		q, cursor := query, ""
		for {
			p, err := c.Search(ctx, q, order, cursor)
			if err != nil {
				yield(Tweet{}, err)
				return
			}
			for _, t := range p.Items {
				if !yield(t, nil) {
					return
				}
			}
			var done bool
			if q, cursor, done = NextSearch(query, order, q, p); done {
				return
			}
		}
	}
}

// NextSearch is the request after a search page p of query q (the original
// query, or it continued by max_id:): the page's cursor while it has one;
// for Latest, without a cursor, the original query with max_id: just below
// the lowest id on the page. done is true after an empty page, and after
// the last page of a Top search.
func NextSearch(query string, order Order, q string, p Page[Tweet]) (nextQuery, cursor string, done bool) {
	if len(p.Items) == 0 {
		return "", "", true
	}
	if p.NextCursor != "" {
		return q, p.NextCursor, false
	}
	if order != Latest && order != "" {
		return "", "", true
	}
	lowest := int64(0)
	for _, t := range p.Items {
		if v, err := strconv.ParseInt(t.IDStr, 10, 64); err == nil && (lowest == 0 || v < lowest) {
			lowest = v
		}
	}
	if lowest <= 1 {
		return "", "", true
	}
	return query + " max_id:" + id(lowest-1), "", false
}
