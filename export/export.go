// Package export reads a whole roost database in batches: the tables, their
// order and the keyset pages through them, shared by both engines' stores.
// An engine gives its way of running a query and of scanning the rows it
// stores its own way (users, posts, lists); the rest is plain columns.
package export

import (
	"context"
	"fmt"

	"roost/social"
)

// Chunk is how many rows one exported batch holds.
const Chunk = 2000

// Rows is a row of a result set, as both engines' drivers give it.
type Rows interface {
	Scan(dest ...any) error
}

// Engine is what export needs of a store.
type Engine struct {
	// Query runs query (with ? placeholders) and calls each for every
	// row, in order.
	Query func(ctx context.Context, query string, args []any, each func(Rows) error) error
	// The columns the engine reads users, posts and lists from (of tables
	// aliased u, p and l), and its scanners of those columns.
	UserColumns, PostColumns, ListColumns string
	ScanUser                              func(Rows) (social.User, error)
	ScanPost                              func(Rows) (social.Post, error)
	ScanList                              func(Rows) (social.List, error)
}

// Batches streams every stored value to fn in batches, each of one kind, in
// an order that a Writer can apply as it comes: users (stubs as stubs),
// posts, relations, lists, communities. Each batch is new: fn may keep it.
func Batches(ctx context.Context, e Engine, fn func(*social.Batch) error) error {
	steps := []func() error{
		func() error {
			return pages(ctx, e, `SELECT `+e.UserColumns+` FROM users u WHERE u.id > ? ORDER BY u.id LIMIT ?`, 1,
				e.ScanUser, func(u social.User) []any { return []any{u.ID} },
				func(us []social.User) error { return fn(&social.Batch{Users: us}) })
		},
		func() error {
			return pages(ctx, e, `SELECT `+e.PostColumns+` FROM posts p WHERE p.id > ? ORDER BY p.id LIMIT ?`, 1,
				e.ScanPost, func(p social.Post) []any { return []any{p.ID} },
				func(ps []social.Post) error { return fn(&social.Batch{Posts: ps}) })
		},
		pairs(ctx, e, "follows", "follower_id", "followee_id", func(a, b, t int64) social.Follow {
			return social.Follow{FollowerID: a, FolloweeID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Follow) error { return fn(&social.Batch{Follows: v}) }),
		pairs(ctx, e, "reposts", "post_id", "user_id", func(a, b, t int64) social.Repost {
			return social.Repost{PostID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Repost) error { return fn(&social.Batch{Reposts: v}) }),
		pairs(ctx, e, "affiliations", "org_id", "user_id", func(a, b, t int64) social.Affiliation {
			return social.Affiliation{OrgID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Affiliation) error { return fn(&social.Batch{Affiliations: v}) }),
		pairs(ctx, e, "highlights", "user_id", "post_id", func(a, b, t int64) social.Highlight {
			return social.Highlight{UserID: a, PostID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Highlight) error { return fn(&social.Batch{Highlights: v}) }),
		func() error {
			return pages(ctx, e, `SELECT `+e.ListColumns+` FROM lists l WHERE l.id > ? ORDER BY l.id LIMIT ?`, 1,
				e.ScanList, func(l social.List) []any { return []any{l.ID} },
				func(ls []social.List) error { return fn(&social.Batch{Lists: ls}) })
		},
		pairs(ctx, e, "list_members", "list_id", "user_id", func(a, b, t int64) social.ListMember {
			return social.ListMember{ListID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.ListMember) error { return fn(&social.Batch{ListMembers: v}) }),
		pairs(ctx, e, "list_subscribers", "list_id", "user_id", func(a, b, t int64) social.ListSubscriber {
			return social.ListSubscriber{ListID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.ListSubscriber) error { return fn(&social.Batch{ListSubscribers: v}) }),
		func() error {
			return pages(ctx, e, `SELECT id, name, description, creator_id, created_at, pinned_post_id, member_count
				FROM communities WHERE id > ? ORDER BY id LIMIT ?`, 1,
				func(r Rows) (social.Community, error) {
					var c social.Community
					var t int64
					err := r.Scan(&c.ID, &c.Name, &c.Description, &c.CreatorID, &t, &c.PinnedPostID, &c.MemberCount)
					c.CreatedAt = social.FromMicros(t)
					return c, err
				},
				func(c social.Community) []any { return []any{c.ID} },
				func(cs []social.Community) error { return fn(&social.Batch{Communities: cs}) })
		},
		func() error {
			return pages(ctx, e, `SELECT community_id, user_id, role, joined_at FROM community_members
				WHERE (community_id, user_id) > (?, ?) ORDER BY community_id, user_id LIMIT ?`, 2,
				func(r Rows) (social.CommunityMember, error) {
					var m social.CommunityMember
					var t int64
					err := r.Scan(&m.CommunityID, &m.UserID, &m.Role, &t)
					m.JoinedAt = social.FromMicros(t)
					return m, err
				},
				func(m social.CommunityMember) []any { return []any{m.CommunityID, m.UserID} },
				func(ms []social.CommunityMember) error { return fn(&social.Batch{CommunityMembers: ms}) })
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// LedgerColumns are the columns of a ledger row that ScanLedgerEntry reads,
// the same on both engines.
const LedgerColumns = `id, key_id, kind, request_id, endpoint, items, amount, balance_after, created_at`

// ScanLedgerEntry reads a row of LedgerColumns.
func ScanLedgerEntry(r Rows) (social.LedgerEntry, error) {
	var l social.LedgerEntry
	var t int64
	err := r.Scan(&l.ID, &l.KeyID, &l.Kind, &l.RequestID, &l.Endpoint, &l.Items, &l.Amount, &l.BalanceAfter, &t)
	l.CreatedAt = social.FromMicros(t)
	return l, err
}

// Ledger streams every ledger row, by id, to fn in chunks.
func Ledger(ctx context.Context, e Engine, fn func([]social.LedgerEntry) error) error {
	return pages(ctx, e, `SELECT `+LedgerColumns+` FROM ledger WHERE id > ? ORDER BY id LIMIT ?`, 1,
		ScanLedgerEntry, func(l social.LedgerEntry) []any { return []any{l.ID} }, fn)
}

// pairs is the step that exports a relation table keyed by (a, b) with a
// time, created_at.
func pairs[T any](ctx context.Context, e Engine, table, a, b string, build func(a, b, t int64) T,
	emit func([]T) error) func() error {
	return func() error {
		type row struct {
			a, b int64
			v    T
		}
		return pages(ctx, e, `SELECT `+a+`, `+b+`, created_at FROM `+table+` WHERE (`+a+`, `+b+`) > (?, ?)
			ORDER BY `+a+`, `+b+` LIMIT ?`, 2,
			func(r Rows) (row, error) {
				var x, y, t int64
				err := r.Scan(&x, &y, &t)
				return row{x, y, build(x, y, t)}, err
			},
			func(r row) []any { return []any{r.a, r.b} },
			func(rs []row) error {
				out := make([]T, len(rs))
				for i, r := range rs {
					out[i] = r.v
				}
				return emit(out)
			})
	}
}

// pages pages through a keyset query (its last parameters are the key after
// which to start, of keyLen values, and the chunk size) and hands each
// chunk, a new slice, to emit.
func pages[T any](ctx context.Context, e Engine, query string, keyLen int, scan func(Rows) (T, error),
	key func(T) []any, emit func([]T) error) error {
	cursor := make([]any, keyLen)
	for i := range cursor {
		cursor[i] = int64(-1 << 63)
	}
	for {
		var chunk []T
		err := e.Query(ctx, query, append(cursor, Chunk), func(r Rows) error {
			v, err := scan(r)
			if err != nil {
				return err
			}
			chunk = append(chunk, v)
			return nil
		})
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if len(chunk) == 0 {
			return nil
		}
		if err := emit(chunk); err != nil {
			return err
		}
		if len(chunk) < Chunk {
			return nil
		}
		cursor = key(chunk[len(chunk)-1])
	}
}
