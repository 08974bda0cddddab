package sqlstore

import (
	"fmt"

	"github.com/roostapi/roost/internal/monitor"
)

// user deletes a user: its posts (and their native reposts), its follows
// both ways, likes, reposts, affiliations, highlights, the lists it owns,
// its list memberships and subscriptions, community memberships and the
// spaces it created, then its row.
func (x *deletion) user(u int64) error {
	for after := int64(0); ; {
		ps, err := all(x.ctx, x.tx, delPostsBy, []any{u, after, int64(IDChunk)}, scanDelPost)
		if err != nil {
			return fmt.Errorf("delete user %d: posts: %w", u, err)
		}
		if len(ps) == 0 {
			break
		}
		q := make([]queued, len(ps))
		for i, p := range ps {
			q[i] = queued{p: p}
		}
		if err := x.posts(q); err != nil {
			return err
		}
		after = ps[len(ps)-1].id
	}
	err := x.tx.Query(x.ctx, delUserLikes, []any{u}, func(r Rows) error {
		var post int64
		err := r.Scan(&post)
		x.likes[post]++
		return err
	})
	if err != nil {
		return fmt.Errorf("delete user %d: likes: %w", u, err)
	}
	err = x.tx.Query(x.ctx, delUserReposts, []any{u}, func(r Rows) error {
		var post int64
		err := r.Scan(&post)
		x.reposts[[2]int64{post, u}] = true
		return err
	})
	if err != nil {
		return fmt.Errorf("delete user %d: reposts: %w", u, err)
	}
	for _, q := range []string{delFollowing, delFollowers, delAffiliates, delAffiliations, delHighlights,
		delMemberships, delSubscriptions, delGroupMembers} {
		if err := x.exec(q, u); err != nil {
			return fmt.Errorf("delete user %d: %w", u, err)
		}
	}
	lists, err := all(x.ctx, x.tx, delOwnedLists, []any{u}, scanID)
	if err != nil {
		return fmt.Errorf("delete user %d: lists: %w", u, err)
	}
	for _, l := range lists {
		for _, q := range []string{delListMembers, delListSubs, delList} {
			if err := x.exec(q, l); err != nil {
				return fmt.Errorf("delete user %d: list %d: %w", u, l, err)
			}
		}
	}
	spaces, err := all(x.ctx, x.tx, delOwnedSpaces, []any{u}, func(r Rows) (string, error) {
		var id string
		return id, r.Scan(&id)
	})
	if err != nil {
		return fmt.Errorf("delete user %d: spaces: %w", u, err)
	}
	for _, sp := range spaces {
		for _, q := range []string{delSpacePeople, delSpace} {
			if err := x.exec(q, sp); err != nil {
				return fmt.Errorf("delete user %d: space %s: %w", u, sp, err)
			}
		}
	}
	gone := false
	if err := x.tx.Query(x.ctx, delUser, []any{u}, func(Rows) error { gone = true; return nil }); err != nil {
		return fmt.Errorf("delete user %d: %w", u, err)
	}
	if gone {
		x.stats.UsersDeleted++
		x.changes = append(x.changes, monitor.Change{Kind: monitor.ChangeUserDeleted, Subject: u, At: x.now})
	}
	return nil
}
