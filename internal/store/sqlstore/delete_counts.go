package sqlstore

import (
	"fmt"
	"slices"

	"github.com/roostapi/roost/internal/social"
)

// recount moves the counts of the posts that stay by the replies, quotes,
// reposts and likes deleted (never below 0), with their score and
// engagement flag.
func (x *deletion) recount() error {
	retweets := map[int64]int64{}
	for k := range x.reposts {
		retweets[k[0]]++
	}
	var ids []int64
	for _, m := range []map[int64]int64{x.replies, x.quotes, x.likes, retweets} {
		for id := range m {
			if !x.seen[id] {
				ids = append(ids, id)
			}
		}
	}
	ids = unique64(ids)
	slices.Sort(ids)
	for lo := 0; lo < len(ids); lo += IDChunk {
		type counted struct {
			p     social.Post
			flags int64
		}
		rows, err := all(x.ctx, x.tx, delCounted, Padded(ids[lo:min(lo+IDChunk, len(ids))]), func(r Rows) (counted, error) {
			var c counted
			var created int64
			err := r.Scan(&c.p.ID, &created, &c.p.QuoteCount, &c.p.ReplyCount, &c.p.RetweetCount, &c.p.FavoriteCount,
				&c.p.Views, &c.flags)
			c.p.CreatedAt = FromMicros(created)
			return c, err
		})
		if err != nil {
			return fmt.Errorf("delete: counts: %w", err)
		}
		for _, c := range rows {
			p := &c.p
			p.QuoteCount = max(p.QuoteCount-x.quotes[p.ID], 0)
			p.ReplyCount = max(p.ReplyCount-x.replies[p.ID], 0)
			p.RetweetCount = max(p.RetweetCount-retweets[p.ID], 0)
			p.FavoriteCount = max(p.FavoriteCount-x.likes[p.ID], 0)
			flags := c.flags &^ FlagEngagement
			if p.FavoriteCount+p.RetweetCount+p.ReplyCount+p.QuoteCount > 0 {
				flags |= FlagEngagement
			}
			if err := x.exec(delRecount, p.QuoteCount, p.ReplyCount, p.RetweetCount, p.FavoriteCount, social.Score(p),
				flags, p.ID); err != nil {
				return fmt.Errorf("delete: counts of post %d: %w", p.ID, err)
			}
		}
	}
	return nil
}

// tombstones records the deletion of ids of kind (stored or not).
func (x *deletion) tombstones(kind string, ids []int64) error {
	at := x.now.UnixMicro()
	for lo := 0; lo < len(ids); lo += IDChunk {
		part := ids[lo:min(lo+IDChunk, len(ids))]
		args := make([]any, 0, 3*IDChunk)
		for _, id := range Padded(part) {
			args = append(args, kind, id, at)
		}
		if err := x.exec(delTombstones, args...); err != nil {
			return fmt.Errorf("delete: tombstones: %w", err)
		}
	}
	return nil
}

// unique64 is ids without repeats, in first-seen order.
func unique64(ids []int64) []int64 {
	seen := make(map[int64]bool, len(ids))
	out := make([]int64, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// uniq is keys without repeats.
func uniq(keys []string) []string {
	slices.Sort(keys)
	return slices.Compact(keys)
}
