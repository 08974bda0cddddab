package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"roost/social"
)

const listColumns = `l.id, l.owner_id, l.name, l.description, l.mode, l.created_at, l.member_count,
	l.subscriber_count, l.banner_url`

func scanList(row pgx.Row, extra ...any) (social.List, error) {
	var l social.List
	var created int64
	dest := []any{&l.ID, &l.OwnerID, &l.Name, &l.Description, &l.Mode, &created, &l.MemberCount,
		&l.SubscriberCount, &l.BannerURL}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return l, notFound(err, "list")
	}
	l.CreatedAt = social.FromMicros(created)
	return l, nil
}

// List returns the list with this id.
func (s *Store) List(ctx context.Context, id int64) (social.List, error) {
	return scanList(s.pool.QueryRow(ctx, `SELECT `+listColumns+` FROM lists l WHERE l.id = $1`, id))
}

// UserLists lists the lists a user owns (keyed by creation time) or
// subscribes to (keyed by subscription time), most recent first.
func (s *Store) UserLists(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.List], error) {
	t, id := after(p, maxInt64)
	rows, err := s.pool.Query(ctx, `SELECT `+listColumns+`, x.t, x.list_id FROM (
			SELECT id AS list_id, created_at AS t FROM lists WHERE owner_id = $1
			UNION ALL
			SELECT s.list_id, s.created_at FROM list_subscribers s JOIN lists o ON o.id = s.list_id
			WHERE s.user_id = $1 AND o.owner_id <> $1
		) x JOIN lists l ON l.id = x.list_id
		WHERE (x.t, x.list_id) < ($2, $3)
		ORDER BY x.t DESC, x.list_id DESC LIMIT $4`, userID, t, id, limit(p)+1)
	if err != nil {
		return social.Page[social.List]{}, notFound(err, "user lists")
	}
	return collectPage(rows, limit(p), func(r pgx.Rows, k *social.Key) (social.List, error) {
		return scanList(r, &k.Sort, &k.ID)
	})
}

// Community returns the community with this id.
func (s *Store) Community(ctx context.Context, id int64) (social.Community, error) {
	var c social.Community
	var created int64
	err := s.pool.QueryRow(ctx, `SELECT id, name, description, creator_id, created_at, pinned_post_id, member_count
		FROM communities WHERE id = $1`, id).Scan(&c.ID, &c.Name, &c.Description, &c.CreatorID, &created,
		&c.PinnedPostID, &c.MemberCount)
	if err != nil {
		return c, notFound(err, "community")
	}
	c.CreatedAt = social.FromMicros(created)
	return c, nil
}

// CommunityMembers lists admins, then moderators, then members, each
// newest first.
func (s *Store) CommunityMembers(ctx context.Context, communityID int64, p social.PageReq) (social.Page[social.Member], error) {
	sk, id := after(p, maxInt64)
	rows, err := s.pool.Query(ctx, `SELECT `+userColumns+`, m.role, m.sort_key, m.user_id
		FROM community_members m JOIN users u ON u.id = m.user_id
		WHERE m.community_id = $1 AND (m.sort_key, m.user_id) < ($2, $3)
		ORDER BY m.sort_key DESC, m.user_id DESC LIMIT $4`, communityID, sk, id, limit(p)+1)
	if err != nil {
		return social.Page[social.Member]{}, notFound(err, "community members")
	}
	return collectPage(rows, limit(p), func(r pgx.Rows, k *social.Key) (social.Member, error) {
		var m social.Member
		var err error
		m.User, err = scanUser(r, &m.Role, &k.Sort, &k.ID)
		return m, err
	})
}
