package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"roost/social"
)

var userCols = []string{"id", "screen_name", "name", "location", "url", "description", "protected", "verified",
	"blue_verified", "shadow_banned", "can_dm", "followers_count", "friends_count", "listed_count",
	"favourites_count", "statuses_count", "media_count", "created_at", "banner_url", "image_url",
	"pinned_post_id", "professional_type"}

var upsertUser = &upsertSpec{
	stage: "stage_users",
	table: "users",
	cols: concat(cols("bigint", "id"), cols("text", "screen_name", "name", "location", "url", "description"),
		cols("boolean", "protected", "verified", "blue_verified", "shadow_banned", "can_dm"),
		cols("bigint", "followers_count", "friends_count", "listed_count", "favourites_count", "statuses_count",
			"media_count", "created_at"), cols("text", "banner_url", "image_url"), cols("bigint", "pinned_post_id"),
		cols("text", "professional_type"), []column{{name: "stub", typ: "boolean"}}),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded(userCols[1:]...) + ", stub = false",
}

var insertStubUser = &upsertSpec{
	stage: "stage_stub_users",
	table: "users",
	cols:  concat(cols("bigint", "id"), cols("text", "screen_name", "name"), cols("boolean", "stub")),
	conflict: `ON CONFLICT (id) DO UPDATE SET screen_name = excluded.screen_name, name = excluded.name
		WHERE users.stub AND users.screen_name = '' AND excluded.screen_name <> ''`,
}

var postUpdateCols = []string{"author_id", "created_at", "text", "source", "truncated", "lang", "reply_to_id",
	"reply_to_user_id", "reply_to_screen_name", "quoted_id", "repost_of_id", "conversation_id", "community_id",
	"quote_count", "reply_count", "retweet_count", "favorite_count", "bookmark_count", "score", "flags",
	"entities", "tsv", "urls", "url_tsv"}

var upsertPost = &upsertSpec{
	stage: "stage_posts",
	table: "posts",
	cols: concat(cols("bigint", "id", "author_id", "created_at"), cols("text", "text", "source"),
		cols("boolean", "truncated"), cols("text", "lang"), cols("bigint", "reply_to_id", "reply_to_user_id"),
		cols("text", "reply_to_screen_name"),
		cols("bigint", "quoted_id", "repost_of_id", "conversation_id", "community_id", "quote_count", "reply_count",
			"retweet_count", "favorite_count", "bookmark_count", "views", "score", "flags"),
		cols("text", "entities"),
		[]column{{name: "tsv", typ: "text", expr: "to_tsvector('simple', %s)"}, {name: "urls", typ: "text"},
			{name: "url_tsv", typ: "text", expr: "to_tsvector('simple', %s)"}}),
	conflict: "ON CONFLICT (id) DO UPDATE SET " + setExcluded(postUpdateCols...) +
		", views = coalesce(excluded.views, posts.views)",
}

var insertMention = &upsertSpec{
	stage: "stage_post_mentions", table: "post_mentions",
	cols:     concat(cols("text", "name"), cols("bigint", "post_id")),
	conflict: "ON CONFLICT DO NOTHING",
}

var insertTag = &upsertSpec{
	stage: "stage_post_tags", table: "post_tags",
	cols:     concat(cols("text", "tag"), cols("bigint", "post_id")),
	conflict: "ON CONFLICT DO NOTHING",
}

// Write stores a batch in one transaction (see social.Writer).
func (s *Store) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return s.write(ctx, b, false)
}

// write stores a batch in one transaction; bulk commits it without waiting
// for the log to reach the disk (see Bulk).
func (s *Store) write(ctx context.Context, b *social.Batch, bulk bool) (social.WriteStats, error) {
	var st social.WriteStats
	if err := validate(b); err != nil {
		return st, err
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		st = social.WriteStats{}
		if bulk {
			if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
				return fmt.Errorf("synchronous_commit: %w", err)
			}
		}
		if err := writeUsers(ctx, tx, b.Users, &st); err != nil {
			return err
		}
		if err := writePosts(ctx, tx, b.Posts, &st); err != nil {
			return err
		}
		return writeRelations(ctx, tx, b)
	})
	if err != nil {
		return social.WriteStats{}, fmt.Errorf("postgres: write: %w", err)
	}
	return st, nil
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
		if _, err := social.RoleRank(m.Role); err != nil {
			return err
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
// applying the batch one user at a time.
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
				u.ListedCount, u.FavouritesCount, u.StatusesCount, u.MediaCount, social.Micros(u.CreatedAt), u.BannerURL,
				u.ImageURL, u.PinnedPostID, u.ProfessionalType, false})
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

// writePosts upserts posts: the last copy of a post in the batch wins, but
// known views are never erased by a copy without them.
func writePosts(ctx context.Context, tx pgx.Tx, ps []social.Post, st *social.WriteStats) error {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]int64, len(ps))
	for i := range ps {
		ids[i] = ps[i].ID
	}
	had, err := existingIDs(ctx, tx, "posts", ids)
	if err != nil {
		return err
	}
	var stored []int64 // posts that existed before: their index rows are replaced
	for id := range had {
		stored = append(stored, id)
	}
	last := map[int64]int{}
	views := map[int64]*int64{}
	var order []int64
	for i := range ps {
		p := &ps[i]
		if had[p.ID] {
			st.PostsUpdated++
		} else {
			st.PostsInserted++
			had[p.ID] = true
		}
		if _, seen := last[p.ID]; !seen {
			order = append(order, p.ID)
		}
		last[p.ID] = i
		if p.Views != nil {
			views[p.ID] = p.Views
		}
	}
	rows := make([][]any, 0, len(order))
	var mentions, tags [][]any
	for _, id := range order {
		p := &ps[last[id]]
		ent, err := json.Marshal(&p.Entities)
		if err != nil {
			return fmt.Errorf("post %d entities: %w", p.ID, err)
		}
		var v any
		if views[id] != nil {
			v = *views[id]
		}
		conv := p.ConversationID
		if conv == 0 {
			conv = p.ID
		}
		rows = append(rows, []any{p.ID, p.AuthorID, social.Micros(p.CreatedAt), p.Text, p.Source, p.Truncated, p.Lang,
			p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName, p.QuotedID, p.RepostOfID, conv, p.CommunityID,
			p.QuoteCount, p.ReplyCount, p.RetweetCount, p.FavoriteCount, p.BookmarkCount, v, social.Score(p),
			social.Flags(p), string(ent), tokens(p.Text), urlLines(&p.Entities), urlTokens(&p.Entities)})
		for _, n := range social.MentionKeys(&p.Entities) {
			mentions = append(mentions, []any{n, p.ID})
		}
		for _, t := range social.TagKeys(&p.Entities) {
			tags = append(tags, []any{t, p.ID})
		}
	}
	if len(stored) > 0 {
		for _, t := range []string{"post_mentions", "post_tags"} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+t+" WHERE post_id = ANY($1)", stored); err != nil {
				return fmt.Errorf("unindex posts: %w", err)
			}
		}
	}
	if err := upsertPost.run(ctx, tx, rows); err != nil {
		return err
	}
	if err := insertMention.run(ctx, tx, mentions); err != nil {
		return err
	}
	return insertTag.run(ctx, tx, tags)
}
