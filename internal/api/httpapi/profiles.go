package httpapi

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// serveUser is GET /user/{user_id} and GET /user/{username}: one profile.
// A path of digits is a user id first, then a screen name.
func serveUser(ctx context.Context, s *server, a *args) (any, int, error) {
	u, err := s.userByIDOrName(ctx, a.id, a.name)
	if err != nil {
		return nil, 0, err
	}
	return newProfile(&u, true), 1, nil
}

// userByIDOrName finds the user with id (when not 0), else the one named
// name.
func (s *server) userByIDOrName(ctx context.Context, id int64, name string) (social.User, error) {
	if id != 0 {
		u, err := s.store.User(ctx, id)
		if !errors.Is(err, social.ErrNotFound) {
			return u, err
		}
	}
	u, err := s.store.UserByScreenName(ctx, name)
	if err != nil {
		return u, fmt.Errorf("user %q: %w", name, err)
	}
	return u, nil
}

// serveUsersByIDs is POST /users-by-ids: found users in the order asked,
// each once, as users-by-usernames.
func serveUsersByIDs(ctx context.Context, s *server, a *args) (any, int, error) {
	found, err := s.store.UsersByIDs(ctx, a.ids)
	if err != nil {
		return nil, 0, fmt.Errorf("users by ids: %w", err)
	}
	byID := make(map[int64]*social.User, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	out := make([]wire.Profile, 0, len(found))
	for _, id := range a.ids {
		if u := byID[id]; u != nil && !u.Stub { // ids are distinct
			out = append(out, newProfile(u, false))
		}
	}
	if len(out) == 0 {
		return nil, 0, fmt.Errorf("users %v: %w", a.ids, social.ErrNotFound)
	}
	return wire.UsersBody{Users: out}, len(out), nil
}

// serveExtendedBio is GET /user/{username}/extended-bio: one paragraph a
// block. A user without one gets {} (free, like an empty page).
func serveExtendedBio(ctx context.Context, s *server, a *args) (any, int, error) {
	u, err := s.store.UserByScreenName(ctx, a.name)
	if err != nil {
		return nil, 0, fmt.Errorf("user @%s: %w", a.name, err)
	}
	if u.ExtendedBio == "" {
		return wire.ExtendedBio{}, 0, nil
	}
	paras := strings.Split(u.ExtendedBio, "\n")
	out := wire.ExtendedBio{Blocks: make([]wire.BioBlock, len(paras))}
	for i, p := range paras {
		out.Blocks[i] = wire.BioBlock{Text: p, Type: "unstyled", InlineStyleRanges: []any{}, EntityRanges: []any{},
			Key: blockKey(u.ID, i)}
	}
	return out, 1, nil
}

// blockKey is a stable five-character key of a bio block, as Draft.js
// keys look.
func blockKey(userID int64, i int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", userID, i)
	k := strconv.FormatUint(h.Sum64()%(36*36*36*36*36), 36)
	return strings.Repeat("0", 5-len(k)) + k
}

// serveSearchUsers is GET /search-users?query=: users whose screen name or
// name contains the text, best match first.
func serveSearchUsers(ctx context.Context, s *server, a *args) (any, int, error) {
	page, err := s.store.SearchUsers(ctx, a.name, a.req())
	if err != nil {
		return nil, 0, fmt.Errorf("search users %q: %w", a.name, err)
	}
	return wire.UsersPage[wire.Profile]{NextCursor: a.next(page.Next), Users: newProfiles(page.Items)}, len(page.Items), nil
}
