package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"roost/search"
	"roost/social"
)

// micros converts a time to the stored Unix microseconds.
func micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// fromMicros converts stored Unix microseconds to a UTC time.
func fromMicros(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Write stores a batch in one transaction (see social.Writer).
func (s *Store) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	var st social.WriteStats
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("sqlite: write: begin: %w", err)
	}
	defer tx.Rollback()
	w := &batchWriter{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}}
	defer w.close()
	if err := w.users(b.Users, &st); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.posts(b.Posts, &st); err != nil {
		return social.WriteStats{}, err
	}
	if err := w.relations(b); err != nil {
		return social.WriteStats{}, err
	}
	if err := tx.Commit(); err != nil {
		return social.WriteStats{}, fmt.Errorf("sqlite: write: commit: %w", err)
	}
	return st, nil
}

// batchWriter holds one write transaction and its prepared statements.
type batchWriter struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func (w *batchWriter) close() {
	for _, st := range w.stmts {
		st.Close()
	}
}

// exec runs a statement, preparing it once per transaction.
func (w *batchWriter) exec(query string, args ...any) error {
	st, ok := w.stmts[query]
	if !ok {
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, query); err != nil {
			return fmt.Errorf("sqlite: write: prepare: %w", err)
		}
		w.stmts[query] = st
	}
	if _, err := st.ExecContext(w.ctx, args...); err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	return nil
}

// existing returns which of ids are already rows of table, with the
// value of column col (empty col: just presence).
func (w *batchWriter) existing(table, col string, ids []int64) (map[int64]string, error) {
	out := make(map[int64]string)
	const chunk = 500
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		part := ids[:n]
		ids = ids[n:]
		sel := "''"
		if col != "" {
			sel = col
		}
		q := "SELECT id, " + sel + " FROM " + table + " WHERE id IN (" + strings.Repeat("?,", n-1) + "?)"
		args := make([]any, n)
		for i, id := range part {
			args[i] = id
		}
		rows, err := w.tx.QueryContext(w.ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
		}
		for rows.Next() {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
			}
			out[id] = v
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("sqlite: write: look up %s: %w", table, err)
		}
	}
	return out, nil
}

const upsertUser = `INSERT INTO users (id, screen_name, name, location, url, description, protected, verified,
	blue_verified, shadow_banned, can_dm, followers_count, friends_count, listed_count, favourites_count,
	statuses_count, media_count, created_at, banner_url, image_url, pinned_post_id, professional_type, stub)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)
ON CONFLICT (id) DO UPDATE SET screen_name = excluded.screen_name, name = excluded.name,
	location = excluded.location, url = excluded.url, description = excluded.description,
	protected = excluded.protected, verified = excluded.verified, blue_verified = excluded.blue_verified,
	shadow_banned = excluded.shadow_banned, can_dm = excluded.can_dm,
	followers_count = excluded.followers_count, friends_count = excluded.friends_count,
	listed_count = excluded.listed_count, favourites_count = excluded.favourites_count,
	statuses_count = excluded.statuses_count, media_count = excluded.media_count,
	created_at = excluded.created_at, banner_url = excluded.banner_url, image_url = excluded.image_url,
	pinned_post_id = excluded.pinned_post_id, professional_type = excluded.professional_type, stub = 0`

const insertStubUser = `INSERT INTO users (id, screen_name, name, stub) VALUES (?, ?, ?, 1)
ON CONFLICT (id) DO UPDATE SET screen_name = excluded.screen_name, name = excluded.name
WHERE users.stub = 1 AND users.screen_name = '' AND excluded.screen_name != ''`

func (w *batchWriter) users(us []social.User, st *social.WriteStats) error {
	if len(us) == 0 {
		return nil
	}
	ids := make([]int64, len(us))
	for i := range us {
		ids[i] = us[i].ID
	}
	old, err := w.existing("users", "", ids)
	if err != nil {
		return err
	}
	for i := range us {
		u := &us[i]
		if u.ID <= 0 {
			return fmt.Errorf("sqlite: write: user id %d: %w", u.ID, social.ErrInvalid)
		}
		_, had := old[u.ID]
		if u.Stub {
			if err := w.exec(insertStubUser, u.ID, u.ScreenName, u.Name); err != nil {
				return err
			}
			if !had {
				st.UsersInserted++
				old[u.ID] = ""
			}
			continue
		}
		if err := w.exec(upsertUser, u.ID, u.ScreenName, u.Name, u.Location, u.URL, u.Description,
			b2i(u.Protected), b2i(u.Verified), b2i(u.BlueVerified), b2i(u.ShadowBanned), b2i(u.CanDM),
			u.FollowersCount, u.FriendsCount, u.ListedCount, u.FavouritesCount, u.StatusesCount, u.MediaCount,
			micros(u.CreatedAt), u.BannerURL, u.ImageURL, u.PinnedPostID, u.ProfessionalType); err != nil {
			return err
		}
		if had {
			st.UsersUpdated++
		} else {
			st.UsersInserted++
			old[u.ID] = ""
		}
	}
	return nil
}

const upsertPost = `INSERT INTO posts (id, author_id, created_at, text, source, truncated, lang, reply_to_id,
	reply_to_user_id, reply_to_screen_name, quoted_id, repost_of_id, conversation_id, community_id,
	quote_count, reply_count, retweet_count, favorite_count, bookmark_count, views, score, flags, entities)
VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT (id) DO UPDATE SET author_id = excluded.author_id, created_at = excluded.created_at,
	text = excluded.text, source = excluded.source, truncated = excluded.truncated, lang = excluded.lang,
	reply_to_id = excluded.reply_to_id, reply_to_user_id = excluded.reply_to_user_id,
	reply_to_screen_name = excluded.reply_to_screen_name, quoted_id = excluded.quoted_id,
	repost_of_id = excluded.repost_of_id, conversation_id = excluded.conversation_id,
	community_id = excluded.community_id, quote_count = excluded.quote_count,
	reply_count = excluded.reply_count, retweet_count = excluded.retweet_count,
	favorite_count = excluded.favorite_count, bookmark_count = excluded.bookmark_count,
	views = coalesce(excluded.views, posts.views), score = excluded.score, flags = excluded.flags,
	entities = excluded.entities`

func (w *batchWriter) posts(ps []social.Post, st *social.WriteStats) error {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]int64, len(ps))
	for i := range ps {
		ids[i] = ps[i].ID
	}
	old, err := w.existing("posts", "entities", ids)
	if err != nil {
		return err
	}
	for i := range ps {
		p := &ps[i]
		if p.ID <= 0 || p.AuthorID <= 0 {
			return fmt.Errorf("sqlite: write: post %d by %d: %w", p.ID, p.AuthorID, social.ErrInvalid)
		}
		ent, err := json.Marshal(&p.Entities)
		if err != nil {
			return fmt.Errorf("sqlite: write: post %d entities: %w", p.ID, err)
		}
		oldEnt, had := old[p.ID]
		if had {
			if err := w.unindex(p.ID, oldEnt); err != nil {
				return err
			}
		}
		var views any
		if p.Views != nil {
			views = *p.Views
		}
		conv := p.ConversationID
		if conv == 0 {
			conv = p.ID
		}
		if err := w.exec(upsertPost, p.ID, p.AuthorID, micros(p.CreatedAt), p.Text, p.Source, b2i(p.Truncated),
			p.Lang, p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName, p.QuotedID, p.RepostOfID,
			conv, p.CommunityID, p.QuoteCount, p.ReplyCount, p.RetweetCount, p.FavoriteCount,
			p.BookmarkCount, views, social.Score(p), social.Flags(p), ent); err != nil {
			return err
		}
		if err := w.index(p); err != nil {
			return err
		}
		if had {
			st.PostsUpdated++
		} else {
			st.PostsInserted++
			old[p.ID] = string(ent)
		}
	}
	return nil
}

// index adds a post to the full-text, mention and tag indexes.
func (w *batchWriter) index(p *social.Post) error {
	if err := w.exec(`INSERT INTO posts_fts (rowid, text, urls) VALUES (?, ?, ?)`,
		p.ID, search.IndexText(p.Text), urlText(&p.Entities)); err != nil {
		return err
	}
	for _, name := range mentionNames(&p.Entities) {
		if err := w.exec(`INSERT OR IGNORE INTO post_mentions (name, post_id) VALUES (?, ?)`, name, p.ID); err != nil {
			return err
		}
	}
	for _, tag := range tagKeys(&p.Entities) {
		if err := w.exec(`INSERT OR IGNORE INTO post_tags (tag, post_id) VALUES (?, ?)`, tag, p.ID); err != nil {
			return err
		}
	}
	return nil
}

// unindex removes a stored post (with its stored entities) from the indexes.
func (w *batchWriter) unindex(id int64, entities string) error {
	if err := w.exec(`DELETE FROM posts_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	var e social.Entities
	if err := json.Unmarshal([]byte(entities), &e); err != nil {
		return fmt.Errorf("sqlite: write: stored entities of post %d: %w", id, err)
	}
	for _, name := range mentionNames(&e) {
		if err := w.exec(`DELETE FROM post_mentions WHERE name = ? AND post_id = ?`, name, id); err != nil {
			return err
		}
	}
	for _, tag := range tagKeys(&e) {
		if err := w.exec(`DELETE FROM post_tags WHERE tag = ? AND post_id = ?`, tag, id); err != nil {
			return err
		}
	}
	return nil
}

// urlText is what the index holds for url: — the expanded URLs.
func urlText(e *social.Entities) string {
	var b strings.Builder
	for _, u := range e.URLs {
		b.WriteString(u.ExpandedURL)
		b.WriteByte(' ')
	}
	return b.String()
}

func mentionNames(e *social.Entities) []string {
	out := make([]string, 0, len(e.Mentions))
	for _, m := range e.Mentions {
		if m.ScreenName != "" {
			out = append(out, strings.ToLower(m.ScreenName))
		}
	}
	return out
}

func tagKeys(e *social.Entities) []string {
	out := make([]string, 0, len(e.Hashtags)+len(e.Symbols))
	for _, h := range e.Hashtags {
		out = append(out, "#"+strings.ToLower(h.Text))
	}
	for _, c := range e.Symbols {
		out = append(out, "$"+strings.ToLower(c.Text))
	}
	return out
}
