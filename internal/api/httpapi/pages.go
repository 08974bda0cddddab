package httpapi

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// req is the store page request for these args.
func (a *args) req() social.PageReq { return social.PageReq{After: a.after, Limit: a.limit} }

// next is the next_cursor of a page envelope (always present, null on the
// last page and on an empty page) for a page's Next key. When the page
// counts (a.cursorPages > 0) the cursor carries this page's number, and
// from page cursorPages on there is none.
func (a *args) next(k *social.Key) *string {
	if k == nil {
		return nil
	}
	if a.cursorPages > 0 {
		this := a.page + 1
		if this >= a.cursorPages {
			return nil
		}
		c := encodePageCursor(a.scope, *k, this)
		return &c
	}
	c := encodeCursor(a.scope, *k)
	return &c
}

// compactPage hydrates a page of posts into the compact shape.
func (s *server) compactPage(ctx context.Context, a *args, posts []social.Post, next *social.Key) (any, int, error) {
	views, err := social.Hydrate(ctx, s.store, posts)
	if err != nil {
		return nil, 0, err
	}
	return wire.TweetsPage[wire.CompactPost]{NextCursor: a.next(next), Tweets: shapePosts(views, newCompactPost)}, len(views), nil
}

// publicUser checks that the user exists (404) and is public (403).
func (s *server) publicUser(ctx context.Context, id int64) error {
	u, err := s.store.User(ctx, id)
	if err != nil {
		return fmt.Errorf("user %d: %w", id, err)
	}
	if u.Protected {
		return errProtected
	}
	return nil
}

// exists checks that the entity a page hangs off exists (ErrNotFound when
// not): the store's pagers answer an empty page for a missing parent.
type exists func(ctx context.Context, s *server, id int64) error

func userExists(ctx context.Context, s *server, id int64) error {
	if _, err := s.store.User(ctx, id); err != nil {
		return fmt.Errorf("user %d: %w", id, err)
	}
	return nil
}

func listExists(ctx context.Context, s *server, id int64) error {
	if _, err := s.store.List(ctx, id); err != nil {
		return fmt.Errorf("list %d: %w", id, err)
	}
	return nil
}

func communityExists(ctx context.Context, s *server, id int64) error {
	if _, err := s.store.Community(ctx, id); err != nil {
		return fmt.Errorf("community %d: %w", id, err)
	}
	return nil
}

func postExists(ctx context.Context, s *server, id int64) error {
	_, err := s.post(ctx, id)
	return err
}

// post reads one post; ErrNotFound when it does not exist.
func (s *server) post(ctx context.Context, id int64) (social.Post, error) {
	found, err := s.store.Posts(ctx, []int64{id})
	if err != nil {
		return social.Post{}, fmt.Errorf("post %d: %w", id, err)
	}
	for _, p := range found {
		if p.ID == id {
			return p, nil
		}
	}
	return social.Post{}, fmt.Errorf("post %d: %w", id, social.ErrNotFound)
}
