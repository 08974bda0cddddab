package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"roost/social"
)

// exportChunk is how many rows one exported batch holds.
const exportChunk = 2000

// Export streams every stored value to fn in batches, each of one kind, in
// an order that a Writer can apply as it comes: users (stubs as stubs),
// posts, relations, lists, communities. Accounts are exported by Keys and
// ExportLedger. It is the source side of copying a database.
func (s *Store) Export(ctx context.Context, fn func(*social.Batch) error) error {
	steps := []func() error{
		func() error {
			return exportRows(ctx, s, `SELECT `+userColumns+` FROM users u WHERE u.id > ? ORDER BY u.id LIMIT ?`, 1,
				func(r *sql.Rows) (social.User, error) { return scanUser(r) },
				func(u social.User) []any { return []any{u.ID} },
				func(us []social.User) error { return fn(&social.Batch{Users: us}) })
		},
		func() error {
			return exportRows(ctx, s, `SELECT `+postColumns+` FROM posts p WHERE p.id > ? ORDER BY p.id LIMIT ?`, 1,
				func(r *sql.Rows) (social.Post, error) { return scanPost(r) },
				func(p social.Post) []any { return []any{p.ID} },
				func(ps []social.Post) error { return fn(&social.Batch{Posts: ps}) })
		},
		exportPairs(ctx, s, "follows", "follower_id", "followee_id", "created_at", func(a, b, t int64) social.Follow {
			return social.Follow{FollowerID: a, FolloweeID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Follow) error { return fn(&social.Batch{Follows: v}) }),
		exportPairs(ctx, s, "reposts", "post_id", "user_id", "created_at", func(a, b, t int64) social.Repost {
			return social.Repost{PostID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Repost) error { return fn(&social.Batch{Reposts: v}) }),
		exportPairs(ctx, s, "affiliations", "org_id", "user_id", "created_at", func(a, b, t int64) social.Affiliation {
			return social.Affiliation{OrgID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Affiliation) error { return fn(&social.Batch{Affiliations: v}) }),
		exportPairs(ctx, s, "highlights", "user_id", "post_id", "created_at", func(a, b, t int64) social.Highlight {
			return social.Highlight{UserID: a, PostID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.Highlight) error { return fn(&social.Batch{Highlights: v}) }),
		func() error {
			return exportRows(ctx, s, `SELECT `+listColumns+` FROM lists l WHERE l.id > ? ORDER BY l.id LIMIT ?`, 1,
				func(r *sql.Rows) (social.List, error) { return scanList(r) },
				func(l social.List) []any { return []any{l.ID} },
				func(ls []social.List) error { return fn(&social.Batch{Lists: ls}) })
		},
		exportPairs(ctx, s, "list_members", "list_id", "user_id", "created_at", func(a, b, t int64) social.ListMember {
			return social.ListMember{ListID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.ListMember) error { return fn(&social.Batch{ListMembers: v}) }),
		exportPairs(ctx, s, "list_subscribers", "list_id", "user_id", "created_at", func(a, b, t int64) social.ListSubscriber {
			return social.ListSubscriber{ListID: a, UserID: b, CreatedAt: social.FromMicros(t)}
		}, func(v []social.ListSubscriber) error { return fn(&social.Batch{ListSubscribers: v}) }),
		func() error {
			return exportRows(ctx, s, `SELECT id, name, description, creator_id, created_at, pinned_post_id, member_count
				FROM communities WHERE id > ? ORDER BY id LIMIT ?`, 1,
				func(r *sql.Rows) (social.Community, error) {
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
			return exportRows(ctx, s, `SELECT community_id, user_id, role, joined_at FROM community_members
				WHERE (community_id, user_id) > (?, ?) ORDER BY community_id, user_id LIMIT ?`, 2,
				func(r *sql.Rows) (social.CommunityMember, error) {
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

// exportPairs exports a relation table keyed by (a, b) with a time.
func exportPairs[T any](ctx context.Context, s *Store, table, a, b, at string, build func(a, b, t int64) T,
	emit func([]T) error) func() error {
	return func() error {
		type row struct {
			a, b int64
			v    T
		}
		return exportRows(ctx, s, `SELECT `+a+`, `+b+`, `+at+` FROM `+table+` WHERE (`+a+`, `+b+`) > (?, ?)
			ORDER BY `+a+`, `+b+` LIMIT ?`, 2,
			func(r *sql.Rows) (row, error) {
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

// exportRows pages through a keyset query (its last two parameters are the
// key after which to start, of keyLen values, and the chunk size) and
// hands each chunk to emit.
func exportRows[T any](ctx context.Context, s *Store, query string, keyLen int, scan func(*sql.Rows) (T, error),
	key func(T) []any, emit func([]T) error) error {
	cursor := make([]any, keyLen)
	for i := range cursor {
		cursor[i] = int64(-1 << 63)
	}
	for {
		rows, err := s.read.QueryContext(ctx, query, append(cursor, exportChunk)...)
		if err != nil {
			return fmt.Errorf("sqlite: export: %w", err)
		}
		var chunk []T
		for rows.Next() {
			v, err := scan(rows)
			if err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: export: %w", err)
			}
			chunk = append(chunk, v)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("sqlite: export: %w", err)
		}
		if len(chunk) == 0 {
			return nil
		}
		if err := emit(chunk); err != nil {
			return err
		}
		if len(chunk) < exportChunk {
			return nil
		}
		cursor = key(chunk[len(chunk)-1])
	}
}

// ExportLedger streams every ledger row, by id, to fn in chunks.
func (s *Store) ExportLedger(ctx context.Context, fn func([]social.LedgerEntry) error) error {
	return exportRows(ctx, s, `SELECT id, key_id, kind, request_id, endpoint, items, amount, balance_after, created_at
		FROM ledger WHERE id > ? ORDER BY id LIMIT ?`, 1,
		func(r *sql.Rows) (social.LedgerEntry, error) {
			var e social.LedgerEntry
			var t int64
			err := r.Scan(&e.ID, &e.KeyID, &e.Kind, &e.RequestID, &e.Endpoint, &e.Items, &e.Amount, &e.BalanceAfter, &t)
			e.CreatedAt = social.FromMicros(t)
			return e, err
		},
		func(e social.LedgerEntry) []any { return []any{e.ID} }, fn)
}

// RestoreAccounts stores keys and ledger rows verbatim, ids included, in one
// transaction; a row whose id (or key digest) is already stored is left
// as it is, so restoring twice changes nothing.
func (s *Store) RestoreAccounts(ctx context.Context, keys []social.APIKey, ledger []social.LedgerEntry) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: restore accounts: %w", err)
	}
	defer tx.Rollback()
	for _, k := range keys {
		var revoked any
		if k.RevokedAt != nil {
			revoked = social.Micros(*k.RevokedAt)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO api_keys (id, name, prefix, digest, balance, rate_limit,
			created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, k.ID, k.Name, k.Prefix, k.Digest[:], k.Balance,
			k.RateLimit, social.Micros(k.CreatedAt), revoked); err != nil {
			return fmt.Errorf("sqlite: restore key %d: %w", k.ID, err)
		}
	}
	for _, e := range ledger {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO ledger (id, key_id, kind, request_id, endpoint, items,
			amount, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.KeyID, e.Kind, e.RequestID,
			e.Endpoint, e.Items, e.Amount, e.BalanceAfter, social.Micros(e.CreatedAt)); err != nil {
			return fmt.Errorf("sqlite: restore ledger row %d: %w", e.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: restore accounts: %w", err)
	}
	return nil
}
