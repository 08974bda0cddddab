package sqlite

import (
	"fmt"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// relations writes every relation and the lists and communities of a batch.
func (w *batchWriter) relations(b *social.Batch, changes *sqlstore.PendingChanges) error {
	if err := w.unfollow(b.Unfollows, changes); err != nil {
		return err
	}
	if err := sqlstore.DeleteRelations(w.ctx, sqlDB(w.query), b); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	if err := pairs(w, "follows (follower_id, followee_id", b.Follows, func(f social.Follow) []any {
		return []any{f.FollowerID, f.FolloweeID, sqlstore.Micros(f.CreatedAt)}
	}); err != nil {
		return err
	}
	if err := pairs(w, "reposts (post_id, user_id", b.Reposts, func(r social.Repost) []any {
		return []any{r.PostID, r.UserID, sqlstore.Micros(r.CreatedAt)}
	}); err != nil {
		return err
	}
	if err := pairs(w, "affiliations (org_id, user_id", b.Affiliations, func(a social.Affiliation) []any {
		return []any{a.OrgID, a.UserID, sqlstore.Micros(a.CreatedAt)}
	}); err != nil {
		return err
	}
	if err := pairs(w, "highlights (user_id, post_id", b.Highlights, func(h social.Highlight) []any {
		return []any{h.UserID, h.PostID, sqlstore.Micros(h.CreatedAt)}
	}); err != nil {
		return err
	}
	if err := pairs(w, "likes (post_id, user_id", b.Likes, func(l social.Like) []any {
		return []any{l.PostID, l.UserID, sqlstore.Micros(l.CreatedAt)}
	}); err != nil {
		return err
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
			l.ID, l.OwnerID, l.Name, l.Description, mode, sqlstore.Micros(l.CreatedAt), l.MemberCount, l.SubscriberCount, l.BannerURL); err != nil {
			return err
		}
	}
	if err := pairs(w, "list_members (list_id, user_id", b.ListMembers, func(m social.ListMember) []any {
		return []any{m.ListID, m.UserID, sqlstore.Micros(m.CreatedAt)}
	}); err != nil {
		return err
	}
	if err := pairs(w, "list_subscribers (list_id, user_id", b.ListSubscribers, func(m social.ListSubscriber) []any {
		return []any{m.ListID, m.UserID, sqlstore.Micros(m.CreatedAt)}
	}); err != nil {
		return err
	}
	for _, c := range b.Communities {
		if err := w.exec(`INSERT INTO communities (id, name, description, creator_id, created_at, pinned_post_id,
			member_count) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, description = excluded.description,
			creator_id = excluded.creator_id, created_at = excluded.created_at,
			pinned_post_id = excluded.pinned_post_id, member_count = excluded.member_count`,
			c.ID, c.Name, c.Description, c.CreatorID, sqlstore.Micros(c.CreatedAt), c.PinnedPostID, c.MemberCount); err != nil {
			return err
		}
	}
	members := make([]any, 0, 5*len(b.CommunityMembers))
	for _, m := range b.CommunityMembers {
		rank, err := sqlstore.RoleRank(m.Role)
		if err != nil {
			return err
		}
		joined := sqlstore.Micros(m.JoinedAt)
		members = append(members, m.CommunityID, m.UserID, m.Role, joined, sqlstore.MemberSortKey(rank, joined))
	}
	return w.execRows(`INSERT INTO community_members (community_id, user_id, role, joined_at, sort_key) VALUES `,
		"(?,?,?,?,?)", ` ON CONFLICT DO UPDATE SET role = excluded.role,
			joined_at = excluded.joined_at, sort_key = excluded.sort_key`, 5, relationChunk, members)
}

// relationChunk is how many relation rows one statement writes.
const relationChunk = 500

// pairs upserts relation rows (a pair and a time) keyed by their pair,
// many per statement; a later row of the same pair replaces the time.
func pairs[T any](w *batchWriter, into string, rows []T, args func(T) []any) error {
	if len(rows) == 0 {
		return nil
	}
	flat := make([]any, 0, 3*len(rows))
	for _, r := range rows {
		flat = append(flat, args(r)...)
	}
	return w.execRows(`INSERT INTO `+into+`, created_at) VALUES `, "(?,?,?)",
		` ON CONFLICT DO UPDATE SET created_at = excluded.created_at`, 3, relationChunk, flat)
}

// unfollow deletes the batch's unfollowed edges and logs the ones it
// deleted for the monitors.
func (w *batchWriter) unfollow(fs []social.Follow, changes *sqlstore.PendingChanges) error {
	if len(fs) == 0 {
		return nil
	}
	gone, err := sqlstore.DeleteFollows(w.ctx, sqlDB(w.query), fs)
	if err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	changes.Unfollowed(gone)
	return nil
}
