package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world"
)

// DeleteFollows deletes the follow edges of fs (social.Batch.Unfollows)
// through tx, a DB on a batch's write transaction, and returns the edges
// that were stored, in the order of fs.
func DeleteFollows(ctx context.Context, tx DB, fs []social.Follow) ([]social.Follow, error) {
	var gone []social.Follow
	for _, f := range fs {
		err := tx.Query(ctx, `DELETE FROM follows WHERE follower_id = ? AND followee_id = ? RETURNING created_at`,
			[]any{f.FollowerID, f.FolloweeID}, func(r Rows) error {
				var at int64
				if err := r.Scan(&at); err != nil {
					return err
				}
				gone = append(gone, social.Follow{FollowerID: f.FollowerID, FolloweeID: f.FolloweeID, CreatedAt: FromMicros(at)})
				return nil
			})
		if err != nil {
			return nil, fmt.Errorf("unfollow %d → %d: %w", f.FollowerID, f.FolloweeID, err)
		}
	}
	return gone, nil
}

// AdvanceTick records tick as the living world's last (social.Batch.LiveTick)
// through tx, a DB on a batch's write transaction: social.ErrConflict
// unless the stored last tick is tick-1.
func AdvanceTick(ctx context.Context, tx DB, tick int64) error {
	if tick <= 0 {
		return fmt.Errorf("live tick %d: %w", tick, social.ErrInvalid)
	}
	ok := false
	err := tx.Query(ctx, `UPDATE world SET live_tick = ? WHERE id = 1 AND live_tick = ? RETURNING live_tick`,
		[]any{tick, tick - 1}, func(Rows) error { ok = true; return nil })
	if err != nil {
		return fmt.Errorf("live tick %d: %w", tick, err)
	}
	if !ok {
		return fmt.Errorf("live tick %d: the stored last tick is not %d (another live writer wrote it): %w", tick, tick-1, social.ErrConflict)
	}
	return nil
}

// World is the world row's storage (the world table of migration 0032)
// and the reads a tick of the living world is made from: a world.Store.
// Its Reader reads what is current (a PostgreSQL store's primary, never a
// standby): the same database must give the same ticks.
type World struct {
	Reader
	Write DB
}

var _ world.Store = World{}

// State reads the world row.
func (w World) State(ctx context.Context) (world.State, error) {
	return one(ctx, w.DB, "world", `SELECT seed, live_tick, live_base_ms FROM world WHERE id = 1`, nil,
		func(r Rows) (world.State, error) {
			var st world.State
			var seed, base *int64
			if err := r.Scan(&seed, &st.Tick, &base); err != nil {
				return st, fmt.Errorf("scan world: %w", err)
			}
			if seed != nil {
				st.Seed, st.Seeded = *seed, true
			}
			if base != nil {
				st.BaseMS = *base
			}
			return st, nil
		})
}

// SetSeed records the seed the database's world was generated with.
func (w World) SetSeed(ctx context.Context, seed int64) error {
	if err := w.Write.Query(ctx, `UPDATE world SET seed = ? WHERE id = 1`, []any{seed}, func(Rows) error { return nil }); err != nil {
		return fmt.Errorf("record the world's seed: %w", err)
	}
	return nil
}

// Put replaces the world row with st (roost copy).
func (w World) Put(ctx context.Context, st world.State) error {
	var seed, base any
	if st.Seeded {
		seed = st.Seed
	}
	if st.BaseMS != 0 {
		base = st.BaseMS
	}
	if err := w.Write.Query(ctx, `UPDATE world SET seed = ?, live_tick = ?, live_base_ms = ? WHERE id = 1`,
		[]any{seed, st.Tick, base}, func(Rows) error { return nil }); err != nil {
		return fmt.Errorf("write the world row: %w", err)
	}
	return nil
}

// StartClock sets the live clock's start to baseMS unless it is set, and
// returns the start stored.
func (w World) StartClock(ctx context.Context, baseMS int64) (int64, error) {
	if err := w.Write.Query(ctx, `UPDATE world SET live_base_ms = ? WHERE id = 1 AND live_base_ms IS NULL`,
		[]any{baseMS}, func(Rows) error { return nil }); err != nil {
		return 0, fmt.Errorf("start the live clock: %w", err)
	}
	st, err := w.State(ctx)
	return st.BaseMS, err
}

// UserIDs are the ids of every full profile (stubs left out), ascending.
func (w World) UserIDs(ctx context.Context) ([]int64, error) {
	return all(ctx, w.DB, `SELECT id FROM users WHERE NOT stub ORDER BY id`, nil, scanID)
}

// RecentPosts are the n posts of the highest ids, ascending.
func (w World) RecentPosts(ctx context.Context, n int) ([]world.PostRef, error) {
	refs, err := all(ctx, w.DB, `SELECT id, author_id, repost_of_id FROM posts ORDER BY id DESC LIMIT ?`, []any{n},
		func(r Rows) (world.PostRef, error) {
			var p world.PostRef
			err := r.Scan(&p.ID, &p.AuthorID, &p.RepostOfID)
			return p, err
		})
	for i, j := 0, len(refs)-1; i < j; i, j = i+1, j-1 {
		refs[i], refs[j] = refs[j], refs[i]
	}
	return refs, err
}

// Liked reports whether userID likes postID.
func (w World) Liked(ctx context.Context, postID, userID int64) (bool, error) {
	return exists(ctx, w.DB, `SELECT 1 FROM likes WHERE post_id = ? AND user_id = ?`, postID, userID)
}

func scanID(r Rows) (int64, error) {
	var id int64
	err := r.Scan(&id)
	return id, err
}
