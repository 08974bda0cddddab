package postgres

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// pairSpec is a relation table keyed by a pair of ids with a time.
func pairSpec(table, a, b, at string) *upsertSpec {
	return &upsertSpec{
		stage:  "stage_" + table,
		table:  table,
		cols:   cols("bigint", a, b, at),
		target: []string{a, b},
		set:    at + " = excluded." + at,
		key:    2,
	}
}

var (
	upsertFollow         = pairSpec("follows", "follower_id", "followee_id", "created_at")
	upsertRepost         = pairSpec("reposts", "post_id", "user_id", "created_at")
	upsertAffiliation    = pairSpec("affiliations", "org_id", "user_id", "created_at")
	upsertHighlight      = pairSpec("highlights", "user_id", "post_id", "created_at")
	upsertLike           = pairSpec("likes", "post_id", "user_id", "created_at")
	upsertListMember     = pairSpec("list_members", "list_id", "user_id", "created_at")
	upsertListSubscriber = pairSpec("list_subscribers", "list_id", "user_id", "created_at")
)

var upsertList = &upsertSpec{
	stage: "stage_lists", table: "lists",
	cols: concat(cols("bigint", "id", "owner_id"), cols("text", "name", "description", "mode"),
		cols("bigint", "created_at", "member_count", "subscriber_count"), cols("text", "banner_url")),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded("owner_id", "name", "description", "mode",
		"created_at", "member_count", "subscriber_count", "banner_url"),
}

var upsertCommunity = &upsertSpec{
	stage: "stage_communities", table: "communities",
	cols: concat(cols("bigint", "id"), cols("text", "name", "description"),
		cols("bigint", "creator_id", "created_at", "pinned_post_id", "member_count")),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded("name", "description", "creator_id",
		"created_at", "pinned_post_id", "member_count"),
}

var upsertCommunityMember = &upsertSpec{
	stage: "stage_community_members", table: "community_members",
	cols: concat(cols("bigint", "community_id", "user_id"), cols("text", "role"),
		cols("bigint", "joined_at", "sort_key")),
	conflict: "ON CONFLICT (community_id, user_id) DO UPDATE SET " + setExcluded("role", "joined_at", "sort_key"),
}

// lastWins keeps, for each key, the last row with it, in the order keys
// first appear: applying the rows one by one would leave the same state.
func lastWins[K comparable](n int, key func(i int) K, row func(i int) []any) [][]any {
	at := make(map[K]int, n)
	var order []K
	for i := 0; i < n; i++ {
		k := key(i)
		if _, ok := at[k]; !ok {
			order = append(order, k)
		}
		at[k] = i
	}
	out := make([][]any, len(order))
	for j, k := range order {
		out[j] = row(at[k])
	}
	return out
}

type pair struct{ a, b int64 }

// copyFirst is what a bulk load learnt about copying rows blind, straight
// into their tables: a table is tried until one copy finds a row that
// exists already, then its rows are upserted (posts: looked up first, see
// write) for the rest of the load. A nil *copyFirst tries nothing.
type copyFirst struct {
	log    *slog.Logger
	mu     sync.Mutex
	failed map[string]bool
}

func (c *copyFirst) try(table string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.failed[table]
}

func (c *copyFirst) fail(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed == nil {
		c.failed = map[string]bool{}
	}
	if !c.failed[table] && c.log != nil {
		c.log.Info("bulk load: rows exist already: no more blind copies into this table for the rest of the load", "table", table)
	}
	c.failed[table] = true
}

// writeRows writes rows with spec: when first tries the table, a copy
// straight into it under a savepoint (no staging table, no conflict
// checks), and upserts only if one of the rows exists already; else
// upserts. Both leave the same rows: the rows of a batch are unique by key.
// parted says the post tables are partitioned (see upsertSpec.upsert).
func writeRows(ctx context.Context, tx pgx.Tx, spec *upsertSpec, rows [][]any, first *copyFirst, parted bool) error {
	if len(rows) < copyThreshold || !first.try(spec.table) {
		return spec.upsert(ctx, tx, rows, parted)
	}
	err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error { return copyInto(ctx, sp, spec, rows) })
	if !errors.Is(err, errCopyConflict) {
		return err
	}
	first.fail(spec.table)
	return spec.upsert(ctx, tx, rows, parted)
}

// writeRelations writes the relations, lists and communities of a batch;
// see writeRows for first and parted.
func writeRelations(ctx context.Context, tx pgx.Tx, b *social.Batch, first *copyFirst, changes *sqlstore.PendingChanges, parted bool) error {
	type job struct {
		spec *upsertSpec
		rows [][]any
	}
	jobs := []job{
		{upsertFollow, lastWins(len(b.Follows), func(i int) pair { return pair{b.Follows[i].FollowerID, b.Follows[i].FolloweeID} },
			func(i int) []any {
				f := b.Follows[i]
				return []any{f.FollowerID, f.FolloweeID, sqlstore.Micros(f.CreatedAt)}
			})},
		{upsertRepost, lastWins(len(b.Reposts), func(i int) pair { return pair{b.Reposts[i].PostID, b.Reposts[i].UserID} },
			func(i int) []any { r := b.Reposts[i]; return []any{r.PostID, r.UserID, sqlstore.Micros(r.CreatedAt)} })},
		{upsertAffiliation, lastWins(len(b.Affiliations), func(i int) pair { return pair{b.Affiliations[i].OrgID, b.Affiliations[i].UserID} },
			func(i int) []any {
				a := b.Affiliations[i]
				return []any{a.OrgID, a.UserID, sqlstore.Micros(a.CreatedAt)}
			})},
		{upsertHighlight, lastWins(len(b.Highlights), func(i int) pair { return pair{b.Highlights[i].UserID, b.Highlights[i].PostID} },
			func(i int) []any {
				h := b.Highlights[i]
				return []any{h.UserID, h.PostID, sqlstore.Micros(h.CreatedAt)}
			})},
		{upsertLike, lastWins(len(b.Likes), func(i int) pair { return pair{b.Likes[i].PostID, b.Likes[i].UserID} },
			func(i int) []any { l := b.Likes[i]; return []any{l.PostID, l.UserID, sqlstore.Micros(l.CreatedAt)} })},
		{upsertList, lastWins(len(b.Lists), func(i int) int64 { return b.Lists[i].ID },
			func(i int) []any {
				l := b.Lists[i]
				mode := l.Mode
				if mode == "" {
					mode = "Public"
				}
				return []any{l.ID, l.OwnerID, l.Name, l.Description, mode, sqlstore.Micros(l.CreatedAt), l.MemberCount,
					l.SubscriberCount, l.BannerURL}
			})},
		{upsertListMember, lastWins(len(b.ListMembers), func(i int) pair { return pair{b.ListMembers[i].ListID, b.ListMembers[i].UserID} },
			func(i int) []any {
				m := b.ListMembers[i]
				return []any{m.ListID, m.UserID, sqlstore.Micros(m.CreatedAt)}
			})},
		{upsertListSubscriber, lastWins(len(b.ListSubscribers), func(i int) pair { return pair{b.ListSubscribers[i].ListID, b.ListSubscribers[i].UserID} },
			func(i int) []any {
				m := b.ListSubscribers[i]
				return []any{m.ListID, m.UserID, sqlstore.Micros(m.CreatedAt)}
			})},
		{upsertCommunity, lastWins(len(b.Communities), func(i int) int64 { return b.Communities[i].ID },
			func(i int) []any {
				c := b.Communities[i]
				return []any{c.ID, c.Name, c.Description, c.CreatorID, sqlstore.Micros(c.CreatedAt), c.PinnedPostID, c.MemberCount}
			})},
		{upsertCommunityMember, lastWins(len(b.CommunityMembers), func(i int) pair {
			return pair{b.CommunityMembers[i].CommunityID, b.CommunityMembers[i].UserID}
		}, func(i int) []any {
			m := b.CommunityMembers[i]
			rank, _ := sqlstore.RoleRank(m.Role) // validated before the transaction
			joined := sqlstore.Micros(m.JoinedAt)
			return []any{m.CommunityID, m.UserID, m.Role, joined, sqlstore.MemberSortKey(rank, joined)}
		})},
	}
	if len(b.Unfollows) > 0 {
		gone, err := sqlstore.DeleteFollows(ctx, txDB{tx}, b.Unfollows)
		if err != nil {
			return err
		}
		changes.Unfollowed(gone)
	}
	if err := sqlstore.DeleteRelations(ctx, txDB{tx}, b); err != nil {
		return err
	}
	for _, j := range jobs {
		if err := writeRows(ctx, tx, j.spec, j.rows, first, parted); err != nil {
			return err
		}
	}
	return writeSpaces(ctx, tx, b.Spaces)
}
