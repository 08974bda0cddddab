package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// ListColumns are the columns ScanList reads, qualified by the alias l.
const ListColumns = `l.id, l.owner_id, l.name, l.description, l.mode, l.created_at, l.member_count,
	l.subscriber_count, l.banner_url`

// ScanList reads a row of ListColumns, then extra.
func ScanList(row Rows, extra ...any) (social.List, error) {
	var l social.List
	var created int64
	dest := []any{&l.ID, &l.OwnerID, &l.Name, &l.Description, &l.Mode, &created, &l.MemberCount,
		&l.SubscriberCount, &l.BannerURL}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return l, fmt.Errorf("scan list: %w", err)
	}
	l.CreatedAt = FromMicros(created)
	return l, nil
}

func scanList(r Rows) (social.List, error) { return ScanList(r) }

// CommunityColumns are the columns ScanCommunity reads.
const CommunityColumns = `id, name, description, creator_id, created_at, pinned_post_id, member_count`

// ScanCommunity reads a row of CommunityColumns.
func ScanCommunity(r Rows) (social.Community, error) {
	var c social.Community
	var t int64
	if err := r.Scan(&c.ID, &c.Name, &c.Description, &c.CreatorID, &t, &c.PinnedPostID, &c.MemberCount); err != nil {
		return c, fmt.Errorf("scan community: %w", err)
	}
	c.CreatedAt = FromMicros(t)
	return c, nil
}

// List returns the list with this id.
func (r Reader) List(ctx context.Context, id int64) (social.List, error) {
	return one(ctx, r.DB, "list", `SELECT `+ListColumns+` FROM lists l WHERE l.id = ?`, []any{id}, scanList)
}

// UserLists lists the lists a user owns (keyed by creation time) or
// subscribes to (keyed by subscription time), most recent first.
func (r Reader) UserLists(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.List], error) {
	t, id := After(p, MaxInt64)
	return page(ctx, r.DB, Limit(p), `SELECT `+ListColumns+`, x.t, x.list_id FROM (
			SELECT id AS list_id, created_at AS t FROM lists WHERE owner_id = ?
			UNION ALL
			SELECT s.list_id, s.created_at FROM list_subscribers s JOIN lists o ON o.id = s.list_id
			WHERE s.user_id = ? AND o.owner_id <> ?
		) x JOIN lists l ON l.id = x.list_id
		WHERE (x.t, x.list_id) < (?, ?)
		ORDER BY x.t DESC, x.list_id DESC LIMIT ?`, []any{userID, userID, userID, t, id, Limit(p) + 1},
		func(row Rows, k *social.Key) (social.List, error) { return ScanList(row, &k.Sort, &k.ID) })
}

// Community returns the community with this id.
func (r Reader) Community(ctx context.Context, id int64) (social.Community, error) {
	return one(ctx, r.DB, "community", `SELECT `+CommunityColumns+` FROM communities WHERE id = ?`, []any{id}, ScanCommunity)
}

// CommunityMembers lists admins, then moderators, then members, each
// newest first.
func (r Reader) CommunityMembers(ctx context.Context, communityID int64, p social.PageReq) (social.Page[social.Member], error) {
	sk, id := After(p, MaxInt64)
	return page(ctx, r.DB, Limit(p), `SELECT `+UserColumns+`, m.role, m.sort_key, m.user_id
		FROM community_members m JOIN users u ON u.id = m.user_id
		WHERE m.community_id = ? AND (m.sort_key, m.user_id) < (?, ?)
		ORDER BY m.sort_key DESC, m.user_id DESC LIMIT ?`, []any{communityID, sk, id, Limit(p) + 1},
		func(row Rows, k *social.Key) (social.Member, error) {
			var m social.Member
			var err error
			m.User, err = ScanUser(row, &m.Role, &k.Sort, &k.ID)
			return m, err
		})
}
