package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"roost/social"
)

// userColumns are the columns scanUser reads, qualified by the alias u.
const userColumns = `u.id, u.screen_name, u.name, u.location, u.url, u.description, u.protected, u.verified,
	u.blue_verified, u.shadow_banned, u.can_dm, u.followers_count, u.friends_count, u.listed_count,
	u.favourites_count, u.statuses_count, u.media_count, u.created_at, u.banner_url, u.image_url,
	u.pinned_post_id, u.professional_type, u.stub`

type scanner interface{ Scan(...any) error }

func scanUser(row scanner, extra ...any) (social.User, error) {
	var u social.User
	var prot, ver, blue, shadow, dm, stub int
	var created int64
	dest := []any{&u.ID, &u.ScreenName, &u.Name, &u.Location, &u.URL, &u.Description, &prot, &ver, &blue,
		&shadow, &dm, &u.FollowersCount, &u.FriendsCount, &u.ListedCount, &u.FavouritesCount, &u.StatusesCount,
		&u.MediaCount, &created, &u.BannerURL, &u.ImageURL, &u.PinnedPostID, &u.ProfessionalType, &stub}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return u, fmt.Errorf("user: %w", social.ErrNotFound)
		}
		return u, fmt.Errorf("sqlite: scan user: %w", err)
	}
	u.Protected, u.Verified, u.BlueVerified = prot != 0, ver != 0, blue != 0
	u.ShadowBanned, u.CanDM, u.Stub = shadow != 0, dm != 0, stub != 0
	u.CreatedAt = social.FromMicros(created)
	return u, nil
}

// User returns the user with this id.
func (s *Store) User(ctx context.Context, id int64) (social.User, error) {
	st, err := s.stmt(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ?`)
	if err != nil {
		return social.User{}, err
	}
	return scanUser(st.QueryRowContext(ctx, id))
}

// UserByScreenName finds a user by screen name, case-insensitively. If
// several stored users had the name, the most recently created wins.
func (s *Store) UserByScreenName(ctx context.Context, screenName string) (social.User, error) {
	st, err := s.stmt(ctx, `SELECT `+userColumns+` FROM users u WHERE u.screen_name = ? COLLATE NOCASE
		ORDER BY u.stub, u.created_at DESC LIMIT 1`)
	if err != nil {
		return social.User{}, err
	}
	return scanUser(st.QueryRowContext(ctx, screenName))
}

// UsersByIDs returns the users found among ids.
func (s *Store) UsersByIDs(ctx context.Context, ids []int64) ([]social.User, error) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return s.usersIn(ctx, `u.id`, args)
}

// UsersByScreenNames returns the users found among names.
func (s *Store) UsersByScreenNames(ctx context.Context, names []string) ([]social.User, error) {
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = strings.ToLower(n)
	}
	return s.usersIn(ctx, `lower(u.screen_name)`, args)
}

// usersIn selects users whose expr is among args, in chunks.
func (s *Store) usersIn(ctx context.Context, expr string, args []any) ([]social.User, error) {
	var out []social.User
	const chunk = 200
	for len(args) > 0 {
		n := min(chunk, len(args))
		part := args[:n]
		args = args[n:]
		rows, err := s.query(ctx, `SELECT `+userColumns+` FROM users u WHERE `+expr+` IN (`+placeholders(n)+`)`, part...)
		if err != nil {
			return nil, err
		}
		if out, err = appendRows(out, rows, func(r scanner) (social.User, error) { return scanUser(r) }); err != nil {
			return nil, fmt.Errorf("sqlite: users: %w", err)
		}
	}
	return out, nil
}

// userPage runs a query selecting userColumns plus the key columns
// (sort, id), fetching limit+1 rows.
func (s *Store) userPage(ctx context.Context, limit int, query string, args ...any) (social.Page[social.User], error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return social.Page[social.User]{}, err
	}
	return collectPage(rows, limit, func(r *sql.Rows, k *social.Key) (social.User, error) {
		return scanUser(r, &k.Sort, &k.ID)
	})
}

// Reposters lists users who reposted a post, most recent first.
func (s *Store) Reposters(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, p.Limit, `SELECT `+userColumns+`, r.created_at, r.user_id
		FROM reposts r JOIN users u ON u.id = r.user_id
		WHERE r.post_id = ? AND (r.created_at, r.user_id) < (?, ?)
		ORDER BY r.created_at DESC, r.user_id DESC LIMIT ?`, postID, t, id, p.Limit+1)
}

// Affiliates lists an organisation's affiliates, most recent first.
func (s *Store) Affiliates(ctx context.Context, orgID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, p.Limit, `SELECT `+userColumns+`, a.created_at, a.user_id
		FROM affiliations a JOIN users u ON u.id = a.user_id
		WHERE a.org_id = ? AND (a.created_at, a.user_id) < (?, ?)
		ORDER BY a.created_at DESC, a.user_id DESC LIMIT ?`, orgID, t, id, p.Limit+1)
}

// VerifiedFollowers lists followers with either verification, most recent first.
func (s *Store) VerifiedFollowers(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, p.Limit, `SELECT `+userColumns+`, f.created_at, f.follower_id
		FROM follows f JOIN users u ON u.id = f.follower_id
		WHERE f.followee_id = ? AND (f.created_at, f.follower_id) < (?, ?) AND (u.verified OR u.blue_verified)
		ORDER BY f.created_at DESC, f.follower_id DESC LIMIT ?`, userID, t, id, p.Limit+1)
}

// Following lists the accounts a user follows, most recent first.
func (s *Store) Following(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, p.Limit, `SELECT `+userColumns+`, f.created_at, f.followee_id
		FROM follows f JOIN users u ON u.id = f.followee_id
		WHERE f.follower_id = ? AND (f.created_at, f.followee_id) < (?, ?)
		ORDER BY f.created_at DESC, f.followee_id DESC LIMIT ?`, userID, t, id, p.Limit+1)
}

// ListMembers lists a list's members, most recently added first.
func (s *Store) ListMembers(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, p.Limit, `SELECT `+userColumns+`, m.created_at, m.user_id
		FROM list_members m JOIN users u ON u.id = m.user_id
		WHERE m.list_id = ? AND (m.created_at, m.user_id) < (?, ?)
		ORDER BY m.created_at DESC, m.user_id DESC LIMIT ?`, listID, t, id, p.Limit+1)
}
