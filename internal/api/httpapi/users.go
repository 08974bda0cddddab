package httpapi

import (
	"context"
	"fmt"
	"strings"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// userPager is a Reader method that pages users related to one id.
type userPager func(r social.Reader, ctx context.Context, id int64, p social.PageReq) (social.Page[social.User], error)

// serveUsers serves a page of profiles: 4.10, 4.11, 4.12, 4.13, 4.15.
func serveUsers(parent exists, pager userPager) func(context.Context, *server, *args) (any, int, error) {
	return func(ctx context.Context, s *server, a *args) (any, int, error) {
		if err := parent(ctx, s, a.id); err != nil {
			return nil, 0, err
		}
		page, err := pager(s.store, ctx, a.id, a.req())
		if err != nil {
			return nil, 0, fmt.Errorf("users of %d: %w", a.id, err)
		}
		return wire.UsersPage[wire.Profile]{NextCursor: a.next(page.Next), Users: newProfiles(page.Items)}, len(page.Items), nil
	}
}

// serveUsersByUsernames is 4.5: found users in the order asked, each once,
// can_dm null.
func serveUsersByUsernames(ctx context.Context, s *server, a *args) (any, int, error) {
	found, err := s.store.UsersByScreenNames(ctx, a.names)
	if err != nil {
		return nil, 0, fmt.Errorf("users by screen names: %w", err)
	}
	byName := make(map[string]*social.User, len(found))
	for i := range found {
		byName[strings.ToLower(found[i].ScreenName)] = &found[i]
	}
	out := make([]wire.Profile, 0, len(found))
	for _, n := range a.names {
		if u := byName[strings.ToLower(n)]; u != nil { // names are distinct
			out = append(out, newProfile(u, false))
		}
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("users %v: %w", a.names, social.ErrNotFound)
	}
	return wire.UsersBody{Users: out}, len(out), nil
}

// serveTweetsByIDs is 4.4: found posts in the order asked, each once, full
// shape, as a bare array.
func serveTweetsByIDs(ctx context.Context, s *server, a *args) (any, int, error) {
	found, err := s.store.Posts(ctx, a.ids)
	if err != nil {
		return nil, 0, fmt.Errorf("posts by ids: %w", err)
	}
	byID := make(map[int64]social.Post, len(found))
	for _, p := range found {
		byID[p.ID] = p
	}
	ordered := make([]social.Post, 0, len(found))
	for _, id := range a.ids {
		if p, ok := byID[id]; ok { // ids are distinct
			ordered = append(ordered, p)
		}
	}
	if len(ordered) == 0 {
		return nil, 0, fmt.Errorf("posts %v: %w", a.ids, social.ErrNotFound)
	}
	views, err := social.Hydrate(ctx, s.store, ordered)
	if err != nil {
		return nil, 0, err
	}
	return fullPosts(views), len(views), nil
}

// serveUserLists is 4.6: lists with their owners.
func serveUserLists(ctx context.Context, s *server, a *args) (any, int, error) {
	if err := userExists(ctx, s, a.id); err != nil {
		return nil, 0, err
	}
	page, err := s.store.UserLists(ctx, a.id, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("lists of user %d: %w", a.id, err)
	}
	ids := make([]int64, 0, len(page.Items))
	for _, l := range page.Items {
		ids = append(ids, l.OwnerID)
	}
	owners := map[int64]*social.User{}
	if len(ids) > 0 {
		us, err := s.store.UsersByIDs(ctx, ids)
		if err != nil {
			return nil, 0, fmt.Errorf("owners of lists: %w", err)
		}
		for i := range us {
			owners[us[i].ID] = &us[i]
		}
	}
	return wire.ListsPage{NextCursor: a.next(page.Next), Lists: newListObjects(page.Items, owners)}, len(page.Items), nil
}
