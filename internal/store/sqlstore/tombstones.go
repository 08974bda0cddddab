package sqlstore

import (
	"cmp"
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// tombstonesExist is true once anything was deleted: while it is false (a
// database without deletions, nearly always) a write reads no tombstone.
const tombstonesExist = `SELECT EXISTS (SELECT 1 FROM tombstones)`

// tombstoneLookup finds which of IDChunk ids of a kind are tombstoned.
var tombstoneLookup = `SELECT id FROM tombstones WHERE kind = ? AND id IN ` + InList

// Apply runs the batch's deletions (DeletePosts, DeleteUsers), then
// returns the batch without the values that name a tombstoned post or
// user, the counts of both, and the change-log entries of the deletions.
// It runs first in the write's transaction, through tx; the batch
// returned (b itself when nothing is left out) is what the write stores.
func (d Deleter) Apply(ctx context.Context, tx DB, b *social.Batch) (*social.Batch, social.WriteStats, []monitor.Change, error) {
	var st social.WriteStats
	var changes []monitor.Change
	if len(b.DeletePosts)+len(b.DeleteUsers) > 0 {
		if d.Lock != "" {
			if err := tx.Query(ctx, d.Lock, nil, func(Rows) error { return nil }); err != nil {
				return nil, st, nil, fmt.Errorf("deletions: lock: %w", err)
			}
		}
		x, err := d.deleteAll(ctx, tx, b)
		if err != nil {
			return nil, st, nil, err
		}
		st, changes = x.stats, x.changes
	}
	if b.Len() == len(b.DeletePosts)+len(b.DeleteUsers) {
		return b, st, changes, nil
	}
	found := false
	if err := tx.Query(ctx, cmp.Or(d.Probe, tombstonesExist), nil, func(r Rows) error { return r.Scan(&found) }); err != nil {
		return nil, st, nil, fmt.Errorf("deletions: tombstones: %w", err)
	}
	if !found {
		return b, st, changes, nil
	}
	kept, err := leaveOut(ctx, tx, b, &st)
	return kept, st, changes, err
}

// tombstoned reads which of ids of kind are tombstoned.
func tombstoned(ctx context.Context, tx DB, kind string, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	ids = unique64(ids)
	for lo := 0; lo < len(ids); lo += IDChunk {
		args := append([]any{kind}, Padded(ids[lo:min(lo+IDChunk, len(ids))])...)
		err := tx.Query(ctx, tombstoneLookup, args, func(r Rows) error {
			var id int64
			err := r.Scan(&id)
			out[id] = true
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("deletions: tombstones: %w", err)
		}
	}
	return out, nil
}

// leaveOut is b without the values that name a tombstoned post or user,
// counted in st: users with a deleted id; posts with a deleted id,
// author or reposted post (or reposting a post of the batch left out);
// relations, lists and spaces naming a deleted post or user.
func leaveOut(ctx context.Context, tx DB, b *social.Batch, st *social.WriteStats) (*social.Batch, error) {
	var users, posts []int64
	for _, u := range b.Users {
		users = append(users, u.ID)
	}
	for _, p := range b.Posts {
		users = append(users, p.AuthorID)
		posts = append(posts, p.ID)
		if p.RepostOfID != 0 {
			posts = append(posts, p.RepostOfID)
		}
	}
	for _, f := range b.Follows {
		users = append(users, f.FollowerID, f.FolloweeID)
	}
	for _, r := range b.Reposts {
		users, posts = append(users, r.UserID), append(posts, r.PostID)
	}
	for _, a := range b.Affiliations {
		users = append(users, a.OrgID, a.UserID)
	}
	for _, h := range b.Highlights {
		users, posts = append(users, h.UserID), append(posts, h.PostID)
	}
	for _, l := range b.Likes {
		users, posts = append(users, l.UserID), append(posts, l.PostID)
	}
	for _, l := range b.Lists {
		users = append(users, l.OwnerID)
	}
	for _, m := range b.ListMembers {
		users = append(users, m.UserID)
	}
	for _, m := range b.ListSubscribers {
		users = append(users, m.UserID)
	}
	for _, m := range b.CommunityMembers {
		users = append(users, m.UserID)
	}
	for _, s := range b.Spaces {
		users = append(users, s.CreatorID)
	}
	du, err := tombstoned(ctx, tx, TombstoneUser, users)
	if err != nil {
		return nil, err
	}
	dp, err := tombstoned(ctx, tx, TombstonePost, posts)
	if err != nil {
		return nil, err
	}
	if len(du) == 0 && len(dp) == 0 {
		return b, nil
	}
	out := *b
	out.Users = keep(b.Users, &st.UsersSkipped, func(u social.User) bool { return !du[u.ID] })
	// A post whose author is deleted is left out, and so are the native
	// reposts of it in the batch.
	gone := map[int64]bool{}
	for _, p := range b.Posts {
		if dp[p.ID] || du[p.AuthorID] {
			gone[p.ID] = true
		}
	}
	out.Posts = keep(b.Posts, &st.PostsSkipped, func(p social.Post) bool {
		return !gone[p.ID] && !dp[p.RepostOfID] && !gone[p.RepostOfID]
	})
	r := &st.RelationsSkipped
	out.Follows = keep(b.Follows, r, func(f social.Follow) bool { return !du[f.FollowerID] && !du[f.FolloweeID] })
	out.Reposts = keep(b.Reposts, r, func(x social.Repost) bool { return !du[x.UserID] && !dp[x.PostID] && !gone[x.PostID] })
	out.Affiliations = keep(b.Affiliations, r, func(a social.Affiliation) bool { return !du[a.OrgID] && !du[a.UserID] })
	out.Highlights = keep(b.Highlights, r, func(h social.Highlight) bool { return !du[h.UserID] && !dp[h.PostID] && !gone[h.PostID] })
	out.Likes = keep(b.Likes, r, func(l social.Like) bool { return !du[l.UserID] && !dp[l.PostID] && !gone[l.PostID] })
	// A list whose owner is deleted is left out with its members and
	// subscribers in the batch.
	lists := map[int64]bool{}
	out.Lists = keep(b.Lists, r, func(l social.List) bool {
		lists[l.ID] = lists[l.ID] || du[l.OwnerID]
		return !du[l.OwnerID]
	})
	out.ListMembers = keep(b.ListMembers, r, func(m social.ListMember) bool { return !du[m.UserID] && !lists[m.ListID] })
	out.ListSubscribers = keep(b.ListSubscribers, r, func(m social.ListSubscriber) bool { return !du[m.UserID] && !lists[m.ListID] })
	out.CommunityMembers = keep(b.CommunityMembers, r, func(m social.CommunityMember) bool { return !du[m.UserID] })
	out.Spaces = keep(b.Spaces, r, func(s social.Space) bool { return !du[s.CreatorID] })
	return &out, nil
}

// keep is the values of vs that ok keeps (vs itself when it keeps all),
// counting the others in skipped.
func keep[T any](vs []T, skipped *int, ok func(T) bool) []T {
	for i, v := range vs {
		if ok(v) {
			continue
		}
		out := append(make([]T, 0, len(vs)-1), vs[:i]...)
		*skipped++
		for _, v := range vs[i+1:] {
			if ok(v) {
				out = append(out, v)
			} else {
				*skipped++
			}
		}
		return out
	}
	return vs
}

// DeletedUsers is every tombstoned user: the research readers leave out
// what a post says of a deleted account (a reply to it, a mention of it).
// Nil when nothing was ever deleted.
func DeletedUsers(ctx context.Context, db DB) (map[int64]bool, error) {
	found := false
	if err := db.Query(ctx, tombstonesExist, nil, func(r Rows) error { return r.Scan(&found) }); err != nil {
		return nil, fmt.Errorf("deleted users: %w", err)
	}
	if !found {
		return nil, nil
	}
	out := map[int64]bool{}
	err := db.Query(ctx, `SELECT id FROM tombstones WHERE kind = ?`, []any{TombstoneUser}, func(r Rows) error {
		var id int64
		err := r.Scan(&id)
		out[id] = true
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("deleted users: %w", err)
	}
	return out, nil
}
