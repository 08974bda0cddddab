package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// DeleteRelations deletes the likes, list members, list subscribers and
// community members a batch removes (social.Batch.Unlikes, ListRemovals,
// ListUnsubscribes, CommunityLeaves) through tx, a DB on the batch's
// write transaction, before its new relations are written. Both engines
// run the same statements: one per pair, for the few pairs a world change
// removes (RETURNING, so that a driver that steps a statement only while
// its rows are read runs it).
func DeleteRelations(ctx context.Context, tx DB, b *social.Batch) error {
	type removal struct {
		table, a, b string
		pairs       [][2]int64
	}
	rs := []removal{
		{"likes", "post_id", "user_id", pairsOf(b.Unlikes, func(l social.Like) [2]int64 { return [2]int64{l.PostID, l.UserID} })},
		{"list_members", "list_id", "user_id", pairsOf(b.ListRemovals, func(m social.ListMember) [2]int64 { return [2]int64{m.ListID, m.UserID} })},
		{"list_subscribers", "list_id", "user_id", pairsOf(b.ListUnsubscribes, func(m social.ListSubscriber) [2]int64 { return [2]int64{m.ListID, m.UserID} })},
		{"community_members", "community_id", "user_id", pairsOf(b.CommunityLeaves, func(m social.CommunityMember) [2]int64 { return [2]int64{m.CommunityID, m.UserID} })},
	}
	for _, r := range rs {
		q := `DELETE FROM ` + r.table + ` WHERE ` + r.a + ` = ? AND ` + r.b + ` = ? RETURNING ` + r.a
		for _, p := range r.pairs {
			if err := tx.Query(ctx, q, []any{p[0], p[1]}, func(Rows) error { return nil }); err != nil {
				return fmt.Errorf("delete from %s %d, %d: %w", r.table, p[0], p[1], err)
			}
		}
	}
	return nil
}

func pairsOf[T any](rows []T, key func(T) [2]int64) [][2]int64 {
	out := make([][2]int64, len(rows))
	for i, r := range rows {
		out[i] = key(r)
	}
	return out
}
