// Whole-database export: every stored value in keyset-paged batches, in an
// order that a Writer can apply as it comes (the source side of roost copy).

package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/roostapi/roost/internal/social"
)

// Chunk is how many rows one exported batch holds.
const Chunk = 2000

// The keys before every id, of one and of two columns.
var (
	first1 = []any{int64(-1 << 63)}
	first2 = []any{int64(-1 << 63), int64(-1 << 63)}
)

// Batches streams every stored value to fn in batches, each of one kind, in
// an order that a Writer can apply as it comes: the tombstones (as
// deletions, first, so that the copy keeps none of what they name),
// users (stubs as stubs), posts, relations, lists, communities. Each
// batch is new: fn may keep it.
func Batches(ctx context.Context, e DB, fn func(*social.Batch) error) error {
	steps := []func() error{
		func() error {
			type stone struct {
				kind string
				id   int64
			}
			return pages(ctx, e, `SELECT kind, id FROM tombstones WHERE (kind, id) > (?, ?) ORDER BY kind, id LIMIT ?`,
				[]any{"", int64(-1 << 63)}, func(r Rows) (stone, error) {
					var s stone
					return s, r.Scan(&s.kind, &s.id)
				}, func(s stone) []any { return []any{s.kind, s.id} },
				func(ss []stone) error {
					b := &social.Batch{}
					for _, s := range ss {
						if s.kind == TombstoneUser {
							b.DeleteUsers = append(b.DeleteUsers, s.id)
						} else {
							b.DeletePosts = append(b.DeletePosts, s.id)
						}
					}
					return fn(b)
				})
		},
		func() error {
			return pages(ctx, e, `SELECT `+UserColumns+` FROM users u WHERE u.id > ? ORDER BY u.id LIMIT ?`, first1,
				scanUser, func(u social.User) []any { return []any{u.ID} },
				func(us []social.User) error { return fn(&social.Batch{Users: us}) })
		},
		func() error {
			return pages(ctx, e, `SELECT `+PostColumns+` FROM posts p WHERE p.id > ? ORDER BY p.id LIMIT ?`, first1,
				scanPost, func(p social.Post) []any { return []any{p.ID} },
				func(ps []social.Post) error { return fn(&social.Batch{Posts: ps}) })
		},
		pairs(ctx, e, "follows", "follower_id", "followee_id", func(a, b, t int64) social.Follow {
			return social.Follow{FollowerID: a, FolloweeID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.Follow) error { return fn(&social.Batch{Follows: v}) }),
		pairs(ctx, e, "reposts", "post_id", "user_id", func(a, b, t int64) social.Repost {
			return social.Repost{PostID: a, UserID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.Repost) error { return fn(&social.Batch{Reposts: v}) }),
		pairs(ctx, e, "affiliations", "org_id", "user_id", func(a, b, t int64) social.Affiliation {
			return social.Affiliation{OrgID: a, UserID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.Affiliation) error { return fn(&social.Batch{Affiliations: v}) }),
		pairs(ctx, e, "highlights", "user_id", "post_id", func(a, b, t int64) social.Highlight {
			return social.Highlight{UserID: a, PostID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.Highlight) error { return fn(&social.Batch{Highlights: v}) }),
		pairs(ctx, e, "likes", "post_id", "user_id", func(a, b, t int64) social.Like {
			return social.Like{PostID: a, UserID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.Like) error { return fn(&social.Batch{Likes: v}) }),
		func() error {
			return pages(ctx, e, `SELECT `+ListColumns+` FROM lists l WHERE l.id > ? ORDER BY l.id LIMIT ?`, first1,
				scanList, func(l social.List) []any { return []any{l.ID} },
				func(ls []social.List) error { return fn(&social.Batch{Lists: ls}) })
		},
		pairs(ctx, e, "list_members", "list_id", "user_id", func(a, b, t int64) social.ListMember {
			return social.ListMember{ListID: a, UserID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.ListMember) error { return fn(&social.Batch{ListMembers: v}) }),
		pairs(ctx, e, "list_subscribers", "list_id", "user_id", func(a, b, t int64) social.ListSubscriber {
			return social.ListSubscriber{ListID: a, UserID: b, CreatedAt: FromMicros(t)}
		}, func(v []social.ListSubscriber) error { return fn(&social.Batch{ListSubscribers: v}) }),
		func() error {
			return pages(ctx, e, `SELECT `+CommunityColumns+` FROM communities WHERE id > ? ORDER BY id LIMIT ?`, first1,
				ScanCommunity,
				func(c social.Community) []any { return []any{c.ID} },
				func(cs []social.Community) error { return fn(&social.Batch{Communities: cs}) })
		},
		func() error {
			return pages(ctx, e, `SELECT community_id, user_id, role, joined_at FROM community_members
				WHERE (community_id, user_id) > (?, ?) ORDER BY community_id, user_id LIMIT ?`, first2,
				func(r Rows) (social.CommunityMember, error) {
					var m social.CommunityMember
					var t int64
					err := r.Scan(&m.CommunityID, &m.UserID, &m.Role, &t)
					m.JoinedAt = FromMicros(t)
					return m, err
				},
				func(m social.CommunityMember) []any { return []any{m.CommunityID, m.UserID} },
				func(ms []social.CommunityMember) error { return fn(&social.Batch{CommunityMembers: ms}) })
		},
		func() error {
			return pages(ctx, e, `SELECT `+SpaceColumns+` FROM spaces WHERE id > ? ORDER BY id LIMIT ?`, []any{""},
				ScanSpace, func(s social.Space) []any { return []any{s.ID} },
				func(ss []social.Space) error {
					if err := participants(ctx, e, ss); err != nil {
						return err
					}
					return fn(&social.Batch{Spaces: ss})
				})
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// Ledger streams every ledger row, by id, to fn in chunks.
func Ledger(ctx context.Context, e DB, fn func([]social.LedgerEntry) error) error {
	return pages(ctx, e, `SELECT `+LedgerColumns+` FROM ledger WHERE id > ? ORDER BY id LIMIT ?`, first1,
		ScanLedgerEntry, func(l social.LedgerEntry) []any { return []any{l.ID} }, fn)
}

// pairs is the step that exports a relation table keyed by (a, b) with a
// time, created_at.
func pairs[T any](ctx context.Context, e DB, table, a, b string, build func(a, b, t int64) T,
	emit func([]T) error) func() error {
	return func() error {
		type row struct {
			a, b int64
			v    T
		}
		return pages(ctx, e, `SELECT `+a+`, `+b+`, created_at FROM `+table+` WHERE (`+a+`, `+b+`) > (?, ?)
			ORDER BY `+a+`, `+b+` LIMIT ?`, first2,
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
// which to start, start at first, and the chunk size) and hands each
// chunk, a new slice, to emit.
func pages[T any](ctx context.Context, e DB, query string, start []any, scan func(Rows) (T, error),
	key func(T) []any, emit func([]T) error) error {
	cursor := slices.Clone(start)
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
