package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// UserColumns are the columns ScanUser reads, qualified by the alias u.
const UserColumns = `u.id, u.screen_name, u.name, u.location, u.url, u.description, u.protected, u.verified,
	u.blue_verified, u.shadow_banned, u.can_dm, u.followers_count, u.friends_count, u.listed_count,
	u.favourites_count, u.statuses_count, u.media_count, u.created_at, u.banner_url, u.image_url,
	u.pinned_post_id, u.professional_type, u.stub, u.extended_bio`

// ScanUser reads a row of UserColumns, then extra.
func ScanUser(row Rows, extra ...any) (social.User, error) {
	var u social.User
	var created int64
	dest := []any{&u.ID, &u.ScreenName, &u.Name, &u.Location, &u.URL, &u.Description, &u.Protected, &u.Verified,
		&u.BlueVerified, &u.ShadowBanned, &u.CanDM, &u.FollowersCount, &u.FriendsCount, &u.ListedCount,
		&u.FavouritesCount, &u.StatusesCount, &u.MediaCount, &created, &u.BannerURL, &u.ImageURL, &u.PinnedPostID,
		&u.ProfessionalType, &u.Stub, &u.ExtendedBio}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return u, fmt.Errorf("scan user: %w", err)
	}
	u.CreatedAt = FromMicros(created)
	return u, nil
}

func scanUser(r Rows) (social.User, error) { return ScanUser(r) }

// Reader is the read side of the API (social.Reader but Search) on one
// engine. Stores embed it.
type Reader struct {
	DB      DB
	Dialect Dialect
}

// User returns the user with this id.
func (r Reader) User(ctx context.Context, id int64) (social.User, error) {
	return one(ctx, r.DB, "user", `SELECT `+UserColumns+` FROM users u WHERE u.id = ?`, []any{id}, scanUser)
}

// UserByScreenName finds a user by screen name, case-insensitively. If
// several stored users had the name, a full profile wins over a stub, then
// the most recently created.
func (r Reader) UserByScreenName(ctx context.Context, screenName string) (social.User, error) {
	return one(ctx, r.DB, "user", `SELECT `+UserColumns+` FROM users u WHERE `+r.Dialect.Fold("u.screen_name")+` = ?
		ORDER BY u.stub, u.created_at DESC LIMIT 1`, []any{strings.ToLower(screenName)}, scanUser)
}

// UsersByIDs returns the users found among ids.
func (r Reader) UsersByIDs(ctx context.Context, ids []int64) ([]social.User, error) {
	return in(ctx, r.DB, `SELECT `+UserColumns+` FROM users u WHERE u.id IN (%s)`, anys(ids), scanUser)
}

// UsersByScreenNames returns the users found among names.
func (r Reader) UsersByScreenNames(ctx context.Context, names []string) ([]social.User, error) {
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = strings.ToLower(n)
	}
	return in(ctx, r.DB, `SELECT `+UserColumns+` FROM users u WHERE `+r.Dialect.Fold("u.screen_name")+` IN (%s)`, args, scanUser)
}

// anys is ids as query arguments.
func anys(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// relation is a table of (parent, child, created_at) rows paged by time.
type relation struct {
	table, parent, child string
	// where adds a condition on the joined user u, if any.
	where string
}

// users pages the users that a relation joins to parent, most recent
// relation first.
func (r Reader) users(ctx context.Context, rel relation, parent int64, p social.PageReq) (social.Page[social.User], error) {
	t, id := After(p, MaxInt64)
	cond := ""
	if rel.where != "" {
		cond = " AND " + rel.where
	}
	return page(ctx, r.DB, Limit(p), `SELECT `+UserColumns+`, x.created_at, x.`+rel.child+`
		FROM `+rel.table+` x JOIN users u ON u.id = x.`+rel.child+`
		WHERE x.`+rel.parent+` = ? AND (x.created_at, x.`+rel.child+`) < (?, ?)`+cond+`
		ORDER BY x.created_at DESC, x.`+rel.child+` DESC LIMIT ?`, []any{parent, t, id, Limit(p) + 1},
		func(row Rows, k *social.Key) (social.User, error) { return ScanUser(row, &k.Sort, &k.ID) })
}

// The relations the API pages users through.
var (
	reposters         = relation{table: "reposts", parent: "post_id", child: "user_id"}
	affiliates        = relation{table: "affiliations", parent: "org_id", child: "user_id"}
	followers         = relation{table: "follows", parent: "followee_id", child: "follower_id"}
	verifiedFollowers = relation{table: "follows", parent: "followee_id", child: "follower_id",
		where: "(u.verified OR u.blue_verified)"}
	following   = relation{table: "follows", parent: "follower_id", child: "followee_id"}
	listMembers = relation{table: "list_members", parent: "list_id", child: "user_id"}
	likers      = relation{table: "likes", parent: "post_id", child: "user_id"}
)

// LikingUsers lists the users who liked a post, most recent first.
func (r Reader) LikingUsers(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, likers, postID, p)
}

// SearchUsers lists users whose screen name or name contains text, best
// match first: the screen name itself, then screen names starting with
// it, then the rest; within each, most followers first. Stubs (users known
// only by reference) are left out.
func (r Reader) SearchUsers(ctx context.Context, text string, p social.PageReq) (social.Page[social.User], error) {
	text = strings.ToLower(text)
	like := likeEscaper.Replace(text)
	k, id := After(p, MaxInt64)
	return page(ctx, r.DB, Limit(p), `SELECT `+UserColumns+`, x.k, x.id FROM (
			SELECT id, (CASE WHEN lower(screen_name) = ? THEN 3
				WHEN lower(screen_name) LIKE ? ESCAPE '\' THEN 2 ELSE 1 END) * 1099511627776 +
				(CASE WHEN followers_count > 1099511627775 THEN 1099511627775
				WHEN followers_count < 0 THEN 0 ELSE followers_count END) AS k
			FROM users WHERE NOT stub AND (lower(screen_name) LIKE ? ESCAPE '\' OR lower(name) LIKE ? ESCAPE '\')
		) x JOIN users u ON u.id = x.id
		WHERE (x.k, x.id) < (?, ?)
		ORDER BY x.k DESC, x.id DESC LIMIT ?`,
		[]any{text, like + "%", "%" + like + "%", "%" + like + "%", k, id, Limit(p) + 1},
		func(row Rows, k *social.Key) (social.User, error) { return ScanUser(row, &k.Sort, &k.ID) })
}

// likeEscaper escapes the LIKE wildcards of a literal (ESCAPE '\').
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Follows reports whether followerID follows followeeID.
func (r Reader) Follows(ctx context.Context, followerID, followeeID int64) (bool, error) {
	return exists(ctx, r.DB, `SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?`, followerID, followeeID)
}

// Reposted reports whether userID reposted postID.
func (r Reader) Reposted(ctx context.Context, postID, userID int64) (bool, error) {
	return exists(ctx, r.DB, `SELECT 1 FROM reposts WHERE post_id = ? AND user_id = ?`, postID, userID)
}

// exists reports whether query finds a row.
func exists(ctx context.Context, db DB, query string, args ...any) (bool, error) {
	found := false
	err := db.Query(ctx, query, args, func(Rows) error { found = true; return nil })
	return found, err
}

// Reposters lists users who reposted a post, most recent first.
func (r Reader) Reposters(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, reposters, postID, p)
}

// Affiliates lists an organisation's affiliates, most recent first.
func (r Reader) Affiliates(ctx context.Context, orgID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, affiliates, orgID, p)
}

// VerifiedFollowers lists followers with either verification, most recent first.
func (r Reader) VerifiedFollowers(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, verifiedFollowers, userID, p)
}

// Followers lists a user's followers, most recent first.
func (r Reader) Followers(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, followers, userID, p)
}

// Following lists the accounts a user follows, most recent first.
func (r Reader) Following(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, following, userID, p)
}

// ListMembers lists a list's members, most recently added first.
func (r Reader) ListMembers(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.User], error) {
	return r.users(ctx, listMembers, listID, p)
}
