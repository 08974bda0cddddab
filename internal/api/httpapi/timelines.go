package httpapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// serveUserPosts is 4.1 (withReplies false) and 4.2 (true).
func serveUserPosts(withReplies bool) func(context.Context, *server, *args) (any, int, error) {
	return func(ctx context.Context, s *server, a *args) (any, int, error) {
		if err := s.publicUser(ctx, a.id); err != nil {
			return nil, 0, err
		}
		page, err := s.store.UserPosts(ctx, a.id, withReplies, a.req())
		if err != nil {
			return nil, 0, fmt.Errorf("posts of user %d: %w", a.id, err)
		}
		return s.compactPage(ctx, a, page.Items, page.Next)
	}
}

// serveHighlights is 4.16, in the reduced highlights shape.
func serveHighlights(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := s.publicUser(ctx, a.id); err != nil {
		return nil, 0, err
	}
	page, err := s.store.Highlights(ctx, a.id, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("highlights of user %d: %w", a.id, err)
	}
	views, err := social.Hydrate(ctx, s.store, page.Items)
	if err != nil {
		return nil, 0, err
	}
	return wire.TweetsPage[wire.HighlightPost]{NextCursor: a.next(page.Next), Tweets: highlightPosts(views)}, len(views), nil
}

// serveMentions is 4.9: posts mentioning a user named by screen name.
func serveMentions(ctx context.Context, s *server, a *args) (any, int, error) {
	u, err := s.store.UserByScreenName(ctx, a.name)
	if err != nil {
		return nil, 0, fmt.Errorf("user @%s: %w", a.name, err)
	}
	page, err := s.store.Mentions(ctx, u.ScreenName, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("mentions of @%s: %w", u.ScreenName, err)
	}
	return s.compactPage(ctx, a, page.Items, page.Next)
}

// serveListPosts is 4.7.
func serveListPosts(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := listExists(ctx, s, a.id); err != nil {
		return nil, 0, err
	}
	page, err := s.store.ListPosts(ctx, a.id, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("posts of list %d: %w", a.id, err)
	}
	return s.compactPage(ctx, a, page.Items, page.Next)
}

// serveSearch is 4.17. A page whose search outlasts the search timeout is
// stopped and answered 422 Query too expensive (free, like every error):
// a query whose few matches hide among millions of candidates must not
// hold the server.
func serveSearch(ctx context.Context, s *server, a *args) (any, int, error) {
	sctx, cancel := context.WithTimeout(ctx, s.searchTimeout)
	defer cancel()
	if a.order == social.Latest {
		// The platform stops giving cursors after many pages of Latest
		// (docs/search.md, "Reading past the cursors"); a fault plan makes that
		// happen after N.
		a.cursorPages = a.plan.LatestCursorPages
	}
	page, err := s.store.Search(sctx, a.query, a.order, a.req())
	if err != nil {
		if ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
			return nil, 0, tooExpensive(s.searchTimeout)
		}
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	return s.compactPage(ctx, a, page.Items, page.Next)
}

// serveThread is 4.8: the conversation the post belongs to, from its root,
// in conversation order, full shape. thread_id is normally the root; any
// other post of the conversation gives the same conversation.
func serveThread(ctx context.Context, s *server, a *args) (any, int, error) {
	p, err := s.post(ctx, a.id)
	if err != nil {
		return nil, 0, err
	}
	root := p.ConversationID
	if root == 0 {
		root = p.ID
	}
	page, err := s.store.Thread(ctx, root, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("thread %d: %w", root, err)
	}
	views, err := social.Hydrate(ctx, s.store, page.Items)
	if err != nil {
		return nil, 0, err
	}
	return wire.TweetsPage[wire.FullPost]{NextCursor: a.next(page.Next), Tweets: fullPosts(views)}, len(views), nil
}
