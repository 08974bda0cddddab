package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"roost/social"
)

// postColumns are the columns scanPost reads, qualified by the alias p.
const postColumns = `p.id, p.author_id, p.created_at, p.text, p.source, p.truncated, p.lang, p.reply_to_id,
	p.reply_to_user_id, p.reply_to_screen_name, p.quoted_id, p.repost_of_id, p.conversation_id, p.community_id,
	p.quote_count, p.reply_count, p.retweet_count, p.favorite_count, p.bookmark_count, p.views, p.entities`

func scanPost(row pgx.Row, extra ...any) (social.Post, error) {
	var p social.Post
	var created int64
	var ent string
	dest := []any{&p.ID, &p.AuthorID, &created, &p.Text, &p.Source, &p.Truncated, &p.Lang, &p.InReplyToID,
		&p.InReplyToUserID, &p.InReplyToScreenName, &p.QuotedID, &p.RepostOfID, &p.ConversationID, &p.CommunityID,
		&p.QuoteCount, &p.ReplyCount, &p.RetweetCount, &p.FavoriteCount, &p.BookmarkCount, &p.Views, &ent}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return p, notFound(err, "post")
	}
	p.CreatedAt = social.FromMicros(created)
	if len(ent) > 2 {
		if err := json.Unmarshal([]byte(ent), &p.Entities); err != nil {
			return p, fmt.Errorf("postgres: post %d entities: %w", p.ID, err)
		}
	}
	return p, nil
}

// postPage runs a query selecting postColumns plus the two key columns
// (sort, id) and makes a page of at most lim posts from it. The query must
// fetch lim+1 rows.
func (s *Store) postPage(ctx context.Context, lim int, query string, args ...any) (social.Page[social.Post], error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return social.Page[social.Post]{}, fmt.Errorf("postgres: query: %w", err)
	}
	return collectPage(rows, lim, func(r pgx.Rows, k *social.Key) (social.Post, error) {
		return scanPost(r, &k.Sort, &k.ID)
	})
}

// Posts returns the posts found among ids.
func (s *Store) Posts(ctx context.Context, ids []int64) ([]social.Post, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+postColumns+` FROM posts p WHERE p.id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: posts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (social.Post, error) { return scanPost(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: posts: %w", err)
	}
	return out, nil
}

// UserPosts is a user's timeline, newest first.
func (s *Store) UserPosts(ctx context.Context, userID int64, withReplies bool, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	q := `SELECT ` + postColumns + `, p.id, p.id FROM posts p WHERE p.author_id = $1 AND p.id < $2`
	if !withReplies {
		q += ` AND p.reply_to_id = 0`
	}
	q += ` ORDER BY p.id DESC LIMIT $3`
	return s.postPage(ctx, limit(p), q, userID, id, limit(p)+1)
}

// Highlights lists a user's highlighted posts, most recently highlighted first.
func (s *Store) Highlights(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.Post], error) {
	t, id := after(p, maxInt64)
	return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, h.created_at, h.post_id
		FROM highlights h JOIN posts p ON p.id = h.post_id
		WHERE h.user_id = $1 AND (h.created_at, h.post_id) < ($2, $3)
		ORDER BY h.created_at DESC, h.post_id DESC LIMIT $4`, userID, t, id, limit(p)+1)
}

// Mentions lists posts mentioning a screen name, newest first.
func (s *Store) Mentions(ctx context.Context, screenName string, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, p.id, p.id
		FROM post_mentions m JOIN posts p ON p.id = m.post_id
		WHERE m.name = $1 AND m.post_id < $2 AND p.repost_of_id = 0
		ORDER BY m.post_id DESC LIMIT $3`, strings.ToLower(screenName), id, limit(p)+1)
}

// Thread lists a conversation from its root, oldest first.
func (s *Store) Thread(ctx context.Context, rootID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, 0)
	return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.conversation_id = $1 AND p.id > $2 AND p.repost_of_id = 0
		ORDER BY p.id ASC LIMIT $3`, rootID, id, limit(p)+1)
}

// CommunityPosts lists a community's posts, newest or top first.
func (s *Store) CommunityPosts(ctx context.Context, communityID int64, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	if order == social.Top {
		sc, id := after(p, maxInt64)
		return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, p.score, p.id FROM posts p
			WHERE p.community_id = $1 AND p.community_id <> 0 AND (p.score, p.id) < ($2, $3)
			ORDER BY p.score DESC, p.id DESC LIMIT $4`, communityID, sc, id, limit(p)+1)
	}
	_, id := after(p, maxInt64)
	return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.community_id = $1 AND p.community_id <> 0 AND p.id < $2
		ORDER BY p.id DESC LIMIT $3`, communityID, id, limit(p)+1)
}

// ListPosts lists posts by a list's members, newest first.
func (s *Store) ListPosts(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := after(p, maxInt64)
	return s.postPage(ctx, limit(p), `SELECT `+postColumns+`, p.id, p.id FROM posts p
		WHERE p.author_id IN (SELECT user_id FROM list_members WHERE list_id = $1) AND p.id < $2
		ORDER BY p.id DESC LIMIT $3`, listID, id, limit(p)+1)
}
