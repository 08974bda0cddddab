package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"roost/social"
)

const listColumns = `l.id, l.owner_id, l.name, l.description, l.mode, l.created_at, l.member_count,
	l.subscriber_count, l.banner_url`

func scanList(row scanner, extra ...any) (social.List, error) {
	var l social.List
	var created int64
	dest := []any{&l.ID, &l.OwnerID, &l.Name, &l.Description, &l.Mode, &created, &l.MemberCount,
		&l.SubscriberCount, &l.BannerURL}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return l, fmt.Errorf("list: %w", social.ErrNotFound)
		}
		return l, fmt.Errorf("sqlite: scan list: %w", err)
	}
	l.CreatedAt = social.FromMicros(created)
	return l, nil
}

// List returns the list with this id.
func (s *Store) List(ctx context.Context, id int64) (social.List, error) {
	st, err := s.stmt(ctx, `SELECT `+listColumns+` FROM lists l WHERE l.id = ?`)
	if err != nil {
		return social.List{}, err
	}
	return scanList(st.QueryRowContext(ctx, id))
}

// UserLists lists the lists a user owns (keyed by creation time) or
// subscribes to (keyed by subscription time), most recent first.
func (s *Store) UserLists(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.List], error) {
	t, id := after(p, maxInt64)
	rows, err := s.query(ctx, `SELECT `+listColumns+`, x.t, x.list_id FROM (
			SELECT id AS list_id, created_at AS t FROM lists WHERE owner_id = ?
			UNION ALL
			SELECT s.list_id, s.created_at FROM list_subscribers s JOIN lists o ON o.id = s.list_id
			WHERE s.user_id = ? AND o.owner_id != ?
		) x JOIN lists l ON l.id = x.list_id
		WHERE (x.t, x.list_id) < (?, ?)
		ORDER BY x.t DESC, x.list_id DESC LIMIT ?`, userID, userID, userID, t, id, p.Limit+1)
	if err != nil {
		return social.Page[social.List]{}, err
	}
	return collectPage(rows, p.Limit, func(r *sql.Rows, k *social.Key) (social.List, error) {
		return scanList(r, &k.Sort, &k.ID)
	})
}

// Community returns the community with this id.
func (s *Store) Community(ctx context.Context, id int64) (social.Community, error) {
	var c social.Community
	var created int64
	st, err := s.stmt(ctx, `SELECT id, name, description, creator_id, created_at, pinned_post_id, member_count
		FROM communities WHERE id = ?`)
	if err != nil {
		return c, err
	}
	err = st.QueryRowContext(ctx, id).Scan(&c.ID, &c.Name, &c.Description, &c.CreatorID, &created, &c.PinnedPostID, &c.MemberCount)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("community %d: %w", id, social.ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("sqlite: community: %w", err)
	}
	c.CreatedAt = social.FromMicros(created)
	return c, nil
}

// CommunityMembers lists admins, then moderators, then members, each
// newest first.
func (s *Store) CommunityMembers(ctx context.Context, communityID int64, p social.PageReq) (social.Page[social.Member], error) {
	sk, id := after(p, maxInt64)
	rows, err := s.query(ctx, `SELECT `+userColumns+`, m.role, m.sort_key, m.user_id
		FROM community_members m JOIN users u ON u.id = m.user_id
		WHERE m.community_id = ? AND (m.sort_key, m.user_id) < (?, ?)
		ORDER BY m.sort_key DESC, m.user_id DESC LIMIT ?`, communityID, sk, id, p.Limit+1)
	if err != nil {
		return social.Page[social.Member]{}, err
	}
	return collectPage(rows, p.Limit, func(r *sql.Rows, k *social.Key) (social.Member, error) {
		var m social.Member
		var err error
		m.User, err = scanUser(r, &m.Role, &k.Sort, &k.ID)
		return m, err
	})
}
