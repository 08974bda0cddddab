package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

var userCols = []string{"id", "screen_name", "name", "location", "url", "description", "protected", "verified",
	"blue_verified", "shadow_banned", "can_dm", "followers_count", "friends_count", "listed_count",
	"favourites_count", "statuses_count", "media_count", "created_at", "banner_url", "image_url",
	"pinned_post_id", "professional_type", "extended_bio"}

var upsertUser = &upsertSpec{
	stage: "stage_users",
	table: "users",
	cols: concat(cols("bigint", "id"), cols("text", "screen_name", "name", "location", "url", "description"),
		cols("boolean", "protected", "verified", "blue_verified", "shadow_banned", "can_dm"),
		cols("bigint", "followers_count", "friends_count", "listed_count", "favourites_count", "statuses_count",
			"media_count", "created_at"), cols("text", "banner_url", "image_url"), cols("bigint", "pinned_post_id"),
		cols("text", "professional_type", "extended_bio"), []column{{name: "stub", typ: "boolean"}}),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded(userCols[1:]...) + ", stub = false",
}

var insertStubUser = &upsertSpec{
	stage: "stage_stub_users",
	table: "users",
	cols:  concat(cols("bigint", "id"), cols("text", "screen_name", "name"), cols("boolean", "stub")),
	conflict: `ON CONFLICT (id) DO UPDATE SET screen_name = excluded.screen_name, name = excluded.name
		WHERE users.stub AND users.screen_name = '' AND excluded.screen_name <> ''`,
}

// Write stores a batch in one transaction (see social.Writer).
func (s *Store) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	st, err := s.write(ctx, b, false, nil)
	return st, unavailable(err)
}

// write stores a batch in one transaction; bulk commits it without waiting
// for the log to reach the disk (see Bulk), and first is the load's state
// of copies (see writeRows), nil outside loads. New posts are copied
// straight into their tables (see writePosts); when another writer stored
// one of them meanwhile, or a mention or tag row of one exists, the copy
// fails on a primary key and the batch is written again, as upserts (the
// stats counted again with it). In a load, until such a failure, the posts
// are copied without looking for stored ones first ("blind"): a load of new
// posts then saves a primary-key probe per post.
func (s *Store) write(ctx context.Context, b *social.Batch, bulk bool, first *copyFirst) (social.WriteStats, error) {
	var st social.WriteStats
	if err := validate(b); err != nil {
		return st, err
	}
	if s.parts != nil {
		if err := s.parts.ensureIDs(ctx, postIDsOf(b)); err != nil {
			return st, err
		}
	}
	parted := s.parts != nil
	direct, blind := true, first.try(postsTable)
	for {
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			st = social.WriteStats{}
			if bulk {
				if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
					return fmt.Errorf("synchronous_commit: %w", err)
				}
			}
			kept, del, deleted, err := deleter.Apply(ctx, txDB{tx}, b)
			if err != nil {
				return err
			}
			st = del
			changes, err := changeLog.Begin(ctx, txDB{tx}, kept)
			if err != nil {
				return err
			}
			changes.Deleted(deleted)
			if err := writeUsers(ctx, tx, kept.Users, &st); err != nil {
				return err
			}
			if err := writePosts(ctx, tx, kept.Posts, &st, &s.runes, direct, blind, parted); err != nil {
				return err
			}
			if err := writeRelations(ctx, tx, kept, first, changes, parted); err != nil {
				return err
			}
			if b.LiveTick != 0 {
				if err := sqlstore.AdvanceTick(ctx, txDB{tx}, b.LiveTick); err != nil {
					return err
				}
			}
			if err := changeLog.Commit(ctx, txDB{tx}, changes); err != nil {
				return err
			}
			// Last: the version's row stays locked until the commit.
			return sqlstore.BumpVersion(ctx, txDB{tx}, sqlstore.VersionContent)
		})
		if direct && errors.Is(err, errCopyConflict) {
			s.log.Debug("write: a new post was stored meanwhile: writing the batch again as upserts", "db", s.name, "err", err)
			if blind {
				first.fail(postsTable)
			}
			direct, blind = false, false
			continue
		}
		if err != nil {
			return social.WriteStats{}, fmt.Errorf("postgres: write: %w", err)
		}
		return st, nil
	}
}

// validate refuses a batch the SQLite store would refuse, before anything
// is written.
func validate(b *social.Batch) error {
	for i := range b.Users {
		if b.Users[i].ID <= 0 {
			return fmt.Errorf("postgres: write: user id %d: %w", b.Users[i].ID, social.ErrInvalid)
		}
	}
	for i := range b.Posts {
		if p := &b.Posts[i]; p.ID <= 0 || p.AuthorID <= 0 {
			return fmt.Errorf("postgres: write: post %d by %d: %w", p.ID, p.AuthorID, social.ErrInvalid)
		}
	}
	for _, m := range b.CommunityMembers {
		if _, err := sqlstore.RoleRank(m.Role); err != nil {
			return err
		}
	}
	for i := range b.Spaces {
		if err := sqlstore.CheckSpace(&b.Spaces[i]); err != nil {
			return fmt.Errorf("postgres: write: %w", err)
		}
	}
	return nil
}

// existingIDs returns which of ids are rows of table.
func existingIDs(ctx context.Context, tx pgx.Tx, table string, ids []int64) (map[int64]bool, error) {
	rows, err := tx.Query(ctx, "SELECT id FROM "+table+" WHERE id = ANY($1)", ids)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", table, err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", table, err)
	}
	out := make(map[int64]bool, len(got))
	for _, id := range got {
		out[id] = true
	}
	return out, nil
}

// writeUsers upserts users with the SQLite store's sequential semantics: a
// later full profile replaces an earlier one, a stub never replaces a
// stored user (it only names a nameless stub), and the counts are those of
// applying the batch one user at a time. A profile replaces every field,
// the extended bio too: an empty ExtendedBio erases a stored one.
func writeUsers(ctx context.Context, tx pgx.Tx, us []social.User, st *social.WriteStats) error {
	if len(us) == 0 {
		return nil
	}
	ids := make([]int64, len(us))
	for i := range us {
		ids[i] = us[i].ID
	}
	had, err := existingIDs(ctx, tx, "users", ids)
	if err != nil {
		return err
	}
	full := map[int64]int{}
	stub := map[int64]int{}
	var order []int64
	for i := range us {
		u := &us[i]
		if _, seen := full[u.ID]; !seen {
			if _, seen := stub[u.ID]; !seen {
				order = append(order, u.ID)
			}
		}
		if u.Stub {
			if !had[u.ID] {
				st.UsersInserted++
				had[u.ID] = true
			}
			if j, ok := stub[u.ID]; !ok || (us[j].ScreenName == "" && u.ScreenName != "") {
				stub[u.ID] = i
			}
			continue
		}
		if had[u.ID] {
			st.UsersUpdated++
		} else {
			st.UsersInserted++
			had[u.ID] = true
		}
		full[u.ID] = i
	}
	var fullRows, stubRows [][]any
	for _, id := range order {
		if i, ok := full[id]; ok {
			u := &us[i]
			fullRows = append(fullRows, []any{u.ID, u.ScreenName, u.Name, u.Location, u.URL, u.Description,
				u.Protected, u.Verified, u.BlueVerified, u.ShadowBanned, u.CanDM, u.FollowersCount, u.FriendsCount,
				u.ListedCount, u.FavouritesCount, u.StatusesCount, u.MediaCount, sqlstore.Micros(u.CreatedAt), u.BannerURL,
				u.ImageURL, u.PinnedPostID, u.ProfessionalType, u.ExtendedBio, false})
			continue
		}
		u := &us[stub[id]]
		stubRows = append(stubRows, []any{u.ID, u.ScreenName, u.Name, true})
	}
	if err := upsertUser.run(ctx, tx, fullRows); err != nil {
		return err
	}
	return insertStubUser.run(ctx, tx, stubRows)
}
