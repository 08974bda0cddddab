package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"roost/social"
)

// postColumns are the columns scanPost reads, qualified by the alias p.
const postColumns = `p.id, p.author_id, p.created_at, p.text, p.source, p.truncated, p.lang, p.reply_to_id,
	p.reply_to_user_id, p.reply_to_screen_name, p.quoted_id, p.repost_of_id, p.conversation_id, p.community_id,
	p.quote_count, p.reply_count, p.retweet_count, p.favorite_count, p.bookmark_count, p.views, p.entities`

func scanPost(rows scanner, extra ...any) (social.Post, error) {
	var p social.Post
	var created int64
	var truncated int
	var views sql.NullInt64
	var ent []byte
	dest := []any{&p.ID, &p.AuthorID, &created, &p.Text, &p.Source, &truncated, &p.Lang, &p.InReplyToID,
		&p.InReplyToUserID, &p.InReplyToScreenName, &p.QuotedID, &p.RepostOfID, &p.ConversationID, &p.CommunityID,
		&p.QuoteCount, &p.ReplyCount, &p.RetweetCount, &p.FavoriteCount, &p.BookmarkCount, &views, &ent}
	if err := rows.Scan(append(dest, extra...)...); err != nil {
		return p, fmt.Errorf("sqlite: scan post: %w", err)
	}
	p.CreatedAt = social.FromMicros(created)
	p.Truncated = truncated != 0
	if views.Valid {
		v := views.Int64
		p.Views = &v
	}
	if len(ent) > 2 {
		if err := json.Unmarshal(ent, &p.Entities); err != nil {
			return p, fmt.Errorf("sqlite: post %d entities: %w", p.ID, err)
		}
	}
	return p, nil
}

// postPage runs a query selecting postColumns plus the two key columns
// (sort, id) and makes a page of at most limit posts from it. The query
// must fetch limit+1 rows.
func (s *Store) postPage(ctx context.Context, limit int, query string, args ...any) (social.Page[social.Post], error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	return collectPage(rows, limit, func(r *sql.Rows, k *social.Key) (social.Post, error) {
		return scanPost(r, &k.Sort, &k.ID)
	})
}

// after returns the keyset bound of a request: the key to continue after,
// or a start value that lies beyond every real key.
func after(p social.PageReq, start int64) (int64, int64) {
	if p.After == nil {
		return start, start
	}
	return p.After.Sort, p.After.ID
}

const maxInt64 = int64(^uint64(0) >> 1)

// Posts returns the posts found among ids.
func (s *Store) Posts(ctx context.Context, ids []int64) ([]social.Post, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var out []social.Post
	const chunk = 200
	for len(ids) > 0 {
		n := min(chunk, len(ids))
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		rows, err := s.query(ctx, `SELECT `+postColumns+` FROM posts p WHERE p.id IN (`+placeholders(n)+`)`, args...)
		if err != nil {
			return nil, err
		}
		if out, err = appendRows(out, rows, func(r scanner) (social.Post, error) { return scanPost(r) }); err != nil {
			return nil, fmt.Errorf("sqlite: posts: %w", err)
		}
	}
	return out, nil
}

// placeholders is "?,?,…" with n marks. Statement texts vary only with n,
// so the statement cache stays small (n ≤ the chunk sizes used here).
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// UserPosts is a user's timeline, newest first.
func (s *Store) UserPosts(ctx context.Context, userID int64, withReplies bool, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	q := `SELECT ` + postColumns + `, p.id, p.id FROM posts p WHERE p.author_id = ? AND p.id < ?`
	if !withReplies {
		q += ` AND p.reply_to_id = 0`
	}
	q += ` ORDER BY p.id DESC LIMIT ?`
	return s.postPage(ctx, p.Limit, q, userID, id, p.Limit+1)
}

// Highlights lists a user's highlighted posts, most recently highlighted first.
func (s *Store) Highlights(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.Post], error) {
	t, id := after(p, maxInt64)
	return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, h.created_at, h.post_id
		FROM highlights h JOIN posts p ON p.id = h.post_id
		WHERE h.user_id = ? AND (h.created_at, h.post_id) < (?, ?)
		ORDER BY h.created_at DESC, h.post_id DESC LIMIT ?`, userID, t, id, p.Limit+1)
}

// Mentions lists posts mentioning a screen name, newest first.
func (s *Store) Mentions(ctx context.Context, screenName string, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, p.id, p.id
		FROM post_mentions m JOIN posts p ON p.id = m.post_id
		WHERE m.name = ? AND m.post_id < ? AND p.repost_of_id = 0
		ORDER BY m.post_id DESC LIMIT ?`, strings.ToLower(screenName), id, p.Limit+1)
}

// Thread lists a conversation from its root, oldest first.
func (s *Store) Thread(ctx context.Context, rootID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, 0)
	return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.conversation_id = ? AND p.id > ? AND p.repost_of_id = 0
		ORDER BY p.id ASC LIMIT ?`, rootID, id, p.Limit+1)
}

// CommunityPosts lists a community's posts, newest or top first.
func (s *Store) CommunityPosts(ctx context.Context, communityID int64, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	if order == social.Top {
		sc, id := after(p, maxInt64)
		return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, p.score, p.id FROM posts p
			WHERE p.community_id = ? AND p.community_id != 0 AND (p.score, p.id) < (?, ?)
			ORDER BY p.score DESC, p.id DESC LIMIT ?`, communityID, sc, id, p.Limit+1)
	}
	_, id := after(p, maxInt64)
	return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.community_id = ? AND p.community_id != 0 AND p.id < ?
		ORDER BY p.id DESC LIMIT ?`, communityID, id, p.Limit+1)
}

// ListPosts lists posts by a list's members, newest first.
func (s *Store) ListPosts(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	return s.postPage(ctx, p.Limit, `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.author_id IN (SELECT user_id FROM list_members WHERE list_id = ?) AND p.id < ?
		ORDER BY p.id DESC LIMIT ?`, listID, id, p.Limit+1)
}
