package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"roost/social"
)

// userColumns are the columns scanUser reads, qualified by the alias u.
const userColumns = `u.id, u.screen_name, u.name, u.location, u.url, u.description, u.protected, u.verified,
	u.blue_verified, u.shadow_banned, u.can_dm, u.followers_count, u.friends_count, u.listed_count,
	u.favourites_count, u.statuses_count, u.media_count, u.created_at, u.banner_url, u.image_url,
	u.pinned_post_id, u.professional_type, u.stub`

func scanUser(row pgx.Row, extra ...any) (social.User, error) {
	var u social.User
	var created int64
	dest := []any{&u.ID, &u.ScreenName, &u.Name, &u.Location, &u.URL, &u.Description, &u.Protected, &u.Verified,
		&u.BlueVerified, &u.ShadowBanned, &u.CanDM, &u.FollowersCount, &u.FriendsCount, &u.ListedCount,
		&u.FavouritesCount, &u.StatusesCount, &u.MediaCount, &created, &u.BannerURL, &u.ImageURL, &u.PinnedPostID,
		&u.ProfessionalType, &u.Stub}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return u, notFound(err, "user")
	}
	u.CreatedAt = social.FromMicros(created)
	return u, nil
}

// User returns the user with this id.
func (s *Store) User(ctx context.Context, id int64) (social.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = $1`, id))
}

// UserByScreenName finds a user by screen name, case-insensitively. If
// several stored users had the name, a full profile wins over a stub, then
// the most recently created.
func (s *Store) UserByScreenName(ctx context.Context, screenName string) (social.User, error) {
	return scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users u WHERE lower(u.screen_name) = $1
		ORDER BY u.stub, u.created_at DESC LIMIT 1`, strings.ToLower(screenName)))
}

// UsersByIDs returns the users found among ids.
func (s *Store) UsersByIDs(ctx context.Context, ids []int64) ([]social.User, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return s.users(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ANY($1)`, ids)
}

// UsersByScreenNames returns the users found among names.
func (s *Store) UsersByScreenNames(ctx context.Context, names []string) ([]social.User, error) {
	if len(names) == 0 {
		return nil, nil
	}
	lower := make([]string, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
	}
	return s.users(ctx, `SELECT `+userColumns+` FROM users u WHERE lower(u.screen_name) = ANY($1)`, lower)
}

func (s *Store) users(ctx context.Context, query string, args ...any) ([]social.User, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: users: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (social.User, error) { return scanUser(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: users: %w", err)
	}
	return out, nil
}

// userPage runs a query selecting userColumns plus the key columns
// (sort, id), fetching lim+1 rows.
func (s *Store) userPage(ctx context.Context, lim int, query string, args ...any) (social.Page[social.User], error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return social.Page[social.User]{}, fmt.Errorf("postgres: query: %w", err)
	}
	return collectPage(rows, lim, func(r pgx.Rows, k *social.Key) (social.User, error) {
		return scanUser(r, &k.Sort, &k.ID)
	})
}

// Reposters lists users who reposted a post, most recent first.
func (s *Store) Reposters(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, limit(p), `SELECT `+userColumns+`, r.created_at, r.user_id
		FROM reposts r JOIN users u ON u.id = r.user_id
		WHERE r.post_id = $1 AND (r.created_at, r.user_id) < ($2, $3)
		ORDER BY r.created_at DESC, r.user_id DESC LIMIT $4`, postID, t, id, limit(p)+1)
}

// Affiliates lists an organisation's affiliates, most recent first.
func (s *Store) Affiliates(ctx context.Context, orgID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, limit(p), `SELECT `+userColumns+`, a.created_at, a.user_id
		FROM affiliations a JOIN users u ON u.id = a.user_id
		WHERE a.org_id = $1 AND (a.created_at, a.user_id) < ($2, $3)
		ORDER BY a.created_at DESC, a.user_id DESC LIMIT $4`, orgID, t, id, limit(p)+1)
}

// VerifiedFollowers lists followers with either verification, most recent first.
func (s *Store) VerifiedFollowers(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, limit(p), `SELECT `+userColumns+`, f.created_at, f.follower_id
		FROM follows f JOIN users u ON u.id = f.follower_id
		WHERE f.followee_id = $1 AND (f.created_at, f.follower_id) < ($2, $3) AND (u.verified OR u.blue_verified)
		ORDER BY f.created_at DESC, f.follower_id DESC LIMIT $4`, userID, t, id, limit(p)+1)
}

// Following lists the accounts a user follows, most recent first.
func (s *Store) Following(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, limit(p), `SELECT `+userColumns+`, f.created_at, f.followee_id
		FROM follows f JOIN users u ON u.id = f.followee_id
		WHERE f.follower_id = $1 AND (f.created_at, f.followee_id) < ($2, $3)
		ORDER BY f.created_at DESC, f.followee_id DESC LIMIT $4`, userID, t, id, limit(p)+1)
}

// ListMembers lists a list's members, most recently added first.
func (s *Store) ListMembers(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := after(p, maxInt64)
	return s.userPage(ctx, limit(p), `SELECT `+userColumns+`, m.created_at, m.user_id
		FROM list_members m JOIN users u ON u.id = m.user_id
		WHERE m.list_id = $1 AND (m.created_at, m.user_id) < ($2, $3)
		ORDER BY m.created_at DESC, m.user_id DESC LIMIT $4`, listID, t, id, limit(p)+1)
}
