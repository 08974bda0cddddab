package httpapi

import (
	"context"
	"fmt"
	"slices"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// serveCommunityPosts is 4.3. On every page requested with a cursor the
// community's pinned post, if any, comes first (docs/api.md, "Decisions"), unless the page
// holds it already; it is an item like any other.
func serveCommunityPosts(ctx context.Context, s *server, a *args) (any, int, error) {
	c, err := s.store.Community(ctx, a.id)
	if err != nil {
		return nil, 0, fmt.Errorf("community %d: %w", a.id, err)
	}
	page, err := s.store.CommunityPosts(ctx, a.id, a.order, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("posts of community %d: %w", a.id, err)
	}
	posts := page.Items
	if a.after != nil && c.PinnedPostID != 0 &&
		!slices.ContainsFunc(posts, func(p social.Post) bool { return p.ID == c.PinnedPostID }) {
		pinned, err := s.post(ctx, c.PinnedPostID)
		switch {
		case err == nil:
			posts = append([]social.Post{pinned}, posts...)
		case !errorsIsNotFound(err): // a pinned post since deleted is left out
			return nil, 0, fmt.Errorf("pinned post of community %d: %w", a.id, err)
		}
	}
	return s.compactPage(ctx, a, posts, page.Next)
}

// serveCommunityMembers is 4.14.
func serveCommunityMembers(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := communityExists(ctx, s, a.id); err != nil {
		return nil, 0, err
	}
	page, err := s.store.CommunityMembers(ctx, a.id, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("members of community %d: %w", a.id, err)
	}
	return wire.UsersPage[wire.Member]{NextCursor: a.next(page.Next), Users: newMembers(page.Items)}, len(page.Items), nil
}
