package sqlite

import (
	"fmt"

	"roost/social"
)

// roleRank orders community roles: admins first.
func roleRank(role string) (int64, error) {
	switch role {
	case social.RoleAdmin:
		return 0, nil
	case social.RoleModerator:
		return 1, nil
	case social.RoleMember:
		return 2, nil
	}
	return 0, fmt.Errorf("sqlite: write: community role %q: %w", role, social.ErrInvalid)
}

// memberSortKey is community_members.sort_key (see the schema).
func memberSortKey(rank, joinedMicros int64) int64 { return (2-rank)<<52 | joinedMicros }

// relations writes every relation and the lists and communities of a batch.
func (w *batchWriter) relations(b *social.Batch) error {
	for _, f := range b.Follows {
		if err := w.exec(`INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, f.FollowerID, f.FolloweeID, micros(f.CreatedAt)); err != nil {
			return err
		}
	}
	for _, r := range b.Reposts {
		if err := w.exec(`INSERT INTO reposts (post_id, user_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, r.PostID, r.UserID, micros(r.CreatedAt)); err != nil {
			return err
		}
	}
	for _, a := range b.Affiliations {
		if err := w.exec(`INSERT INTO affiliations (org_id, user_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, a.OrgID, a.UserID, micros(a.CreatedAt)); err != nil {
			return err
		}
	}
	for _, h := range b.Highlights {
		if err := w.exec(`INSERT INTO highlights (user_id, post_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, h.UserID, h.PostID, micros(h.CreatedAt)); err != nil {
			return err
		}
	}
	for _, l := range b.Lists {
		mode := l.Mode
		if mode == "" {
			mode = "Public"
		}
		if err := w.exec(`INSERT INTO lists (id, owner_id, name, description, mode, created_at, member_count,
			subscriber_count, banner_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, name = excluded.name,
			description = excluded.description, mode = excluded.mode, created_at = excluded.created_at,
			member_count = excluded.member_count, subscriber_count = excluded.subscriber_count,
			banner_url = excluded.banner_url`,
			l.ID, l.OwnerID, l.Name, l.Description, mode, micros(l.CreatedAt), l.MemberCount, l.SubscriberCount, l.BannerURL); err != nil {
			return err
		}
	}
	for _, m := range b.ListMembers {
		if err := w.exec(`INSERT INTO list_members (list_id, user_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, m.ListID, m.UserID, micros(m.CreatedAt)); err != nil {
			return err
		}
	}
	for _, m := range b.ListSubscribers {
		if err := w.exec(`INSERT INTO list_subscribers (list_id, user_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, m.ListID, m.UserID, micros(m.CreatedAt)); err != nil {
			return err
		}
	}
	for _, c := range b.Communities {
		if err := w.exec(`INSERT INTO communities (id, name, description, creator_id, created_at, pinned_post_id,
			member_count) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
			creator_id = excluded.creator_id, created_at = excluded.created_at,
			pinned_post_id = excluded.pinned_post_id, member_count = excluded.member_count`,
			c.ID, c.Name, c.Description, c.CreatorID, micros(c.CreatedAt), c.PinnedPostID, c.MemberCount); err != nil {
			return err
		}
	}
	for _, m := range b.CommunityMembers {
		rank, err := roleRank(m.Role)
		if err != nil {
			return err
		}
		joined := micros(m.JoinedAt)
		if err := w.exec(`INSERT INTO community_members (community_id, user_id, role, joined_at, sort_key)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET role = excluded.role,
			joined_at = excluded.joined_at, sort_key = excluded.sort_key`,
			m.CommunityID, m.UserID, m.Role, joined, memberSortKey(rank, joined)); err != nil {
			return err
		}
	}
	return nil
}
