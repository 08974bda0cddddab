package httpapi

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// serveTweet is GET /tweets/{tweet_id} and GET /statuses/show?id=: one
// post in the full shape.
func serveTweet(ctx context.Context, s *server, a *args) (any, int, error) {
	p, err := s.post(ctx, a.id)
	if err != nil {
		return nil, 0, err
	}
	views, err := social.Hydrate(ctx, s.store, []social.Post{p})
	if err != nil {
		return nil, 0, err
	}
	return newFullPost(&views[0]), 1, nil
}

// postPager is a Reader method that pages posts related to one post.
type postPager func(r social.Reader, ctx context.Context, id int64, p social.PageReq) (social.Page[social.Post], error)

// servePostPosts serves a page of the posts related to a post: its direct
// replies (comments) or the posts quoting it.
func servePostPosts(pager postPager) func(context.Context, *server, *args) (any, int, error) {
	return func(ctx context.Context, s *server, a *args) (any, int, error) {
		if err := postExists(ctx, s, a.id); err != nil {
			return nil, 0, err
		}
		page, err := pager(s.store, ctx, a.id, a.req())
		if err != nil {
			return nil, 0, fmt.Errorf("posts of post %d: %w", a.id, err)
		}
		return s.compactPage(ctx, a, page.Items, page.Next)
	}
}

// serveUserLikes is GET /user/{user_id}/likes: the posts a public user
// liked, most recently liked first.
func serveUserLikes(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := s.publicUser(ctx, a.id); err != nil {
		return nil, 0, err
	}
	page, err := s.store.Likes(ctx, a.id, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("likes of user %d: %w", a.id, err)
	}
	return s.compactPage(ctx, a, page.Items, page.Next)
}

// serveList is GET /list/{list_id}: the list object (docs/api.md, "Objects").
func serveList(ctx context.Context, s *server, a *args) (any, int, error) {
	l, err := s.store.List(ctx, a.id)
	if err != nil {
		return nil, 0, fmt.Errorf("list %d: %w", a.id, err)
	}
	owner, err := s.store.User(ctx, l.OwnerID)
	if errorsIsNotFound(err) {
		owner, err = social.User{ID: l.OwnerID, Stub: true}, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("owner of list %d: %w", a.id, err)
	}
	return newListObject(&l, &owner), 1, nil
}
