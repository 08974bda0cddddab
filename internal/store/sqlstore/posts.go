package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// PostColumns are the columns ScanPost reads, qualified by the alias p.
const PostColumns = `p.id, p.author_id, p.created_at, p.text, p.source, p.truncated, p.lang, p.reply_to_id,
	p.reply_to_user_id, p.reply_to_screen_name, p.quoted_id, p.repost_of_id, p.conversation_id, p.community_id,
	p.quote_count, p.reply_count, p.retweet_count, p.favorite_count, p.bookmark_count, p.views, p.entities`

// ScanPost reads a row of PostColumns, then extra.
func ScanPost(row Rows, extra ...any) (social.Post, error) {
	var p social.Post
	var created int64
	var ent []byte
	dest := []any{&p.ID, &p.AuthorID, &created, &p.Text, &p.Source, &p.Truncated, &p.Lang, &p.InReplyToID,
		&p.InReplyToUserID, &p.InReplyToScreenName, &p.QuotedID, &p.RepostOfID, &p.ConversationID, &p.CommunityID,
		&p.QuoteCount, &p.ReplyCount, &p.RetweetCount, &p.FavoriteCount, &p.BookmarkCount, &p.Views, &ent}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return p, fmt.Errorf("scan post: %w", err)
	}
	p.CreatedAt = FromMicros(created)
	if len(ent) > 2 {
		if err := json.Unmarshal(ent, &p.Entities); err != nil {
			return p, fmt.Errorf("post %d entities: %w", p.ID, err)
		}
	}
	return p, nil
}

func scanPost(r Rows) (social.Post, error) { return ScanPost(r) }

// scanKeyedPost reads a post and its key columns (sort, id).
func scanKeyedPost(r Rows, k *social.Key) (social.Post, error) { return ScanPost(r, &k.Sort, &k.ID) }

// posts pages a query selecting PostColumns plus the key columns; its
// last parameter is the row count, which posts adds.
func (r Reader) posts(ctx context.Context, p social.PageReq, query string, args ...any) (social.Page[social.Post], error) {
	return page(ctx, r.DB, Limit(p), query, append(args, Limit(p)+1), scanKeyedPost)
}

// Posts returns the posts found among ids.
func (r Reader) Posts(ctx context.Context, ids []int64) ([]social.Post, error) {
	return in(ctx, r.DB, `SELECT `+PostColumns+` FROM posts p WHERE p.id IN (%s)`, anys(ids), scanPost)
}

// Post returns the post with this id.
func (r Reader) Post(ctx context.Context, id int64) (social.Post, error) {
	return one(ctx, r.DB, "post", `SELECT `+PostColumns+` FROM posts p WHERE p.id = ?`, []any{id}, scanPost)
}

// UserPosts is a user's timeline, newest first.
func (r Reader) UserPosts(ctx context.Context, userID int64, withReplies bool, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, MaxInt64)
	q := `SELECT ` + PostColumns + `, p.id, p.id FROM posts p WHERE p.author_id = ? AND p.id < ?`
	if !withReplies {
		q += ` AND p.reply_to_id = 0`
	}
	return r.posts(ctx, p, q+` ORDER BY p.id DESC LIMIT ?`, userID, id)
}

// Highlights lists a user's highlighted posts, most recently highlighted first.
func (r Reader) Highlights(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.Post], error) {
	t, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, h.created_at, h.post_id
		FROM highlights h JOIN posts p ON p.id = h.post_id
		WHERE h.user_id = ? AND (h.created_at, h.post_id) < (?, ?)
		ORDER BY h.created_at DESC, h.post_id DESC LIMIT ?`, userID, t, id)
}

// Likes lists the posts a user liked, most recently liked first.
func (r Reader) Likes(ctx context.Context, userID int64, p social.PageReq) (social.Page[social.Post], error) {
	t, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, l.created_at, l.post_id
		FROM likes l JOIN posts p ON p.id = l.post_id
		WHERE l.user_id = ? AND (l.created_at, l.post_id) < (?, ?)
		ORDER BY l.created_at DESC, l.post_id DESC LIMIT ?`, userID, t, id)
}

// Mentions lists posts mentioning a screen name, newest first.
func (r Reader) Mentions(ctx context.Context, screenName string, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id
		FROM post_mentions m JOIN posts p ON p.id = m.post_id
		WHERE m.name = ? AND m.post_id < ? AND p.repost_of_id = 0
		ORDER BY m.post_id DESC LIMIT ?`, strings.ToLower(screenName), id)
}

// Thread lists a conversation from its root, oldest first.
func (r Reader) Thread(ctx context.Context, rootID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, 0)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id FROM posts p
		WHERE p.conversation_id = ? AND p.id > ? AND p.repost_of_id = 0
		ORDER BY p.id ASC LIMIT ?`, rootID, id)
}

// Replies lists the direct replies to a post, oldest first.
func (r Reader) Replies(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, 0)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id FROM posts p
		WHERE p.reply_to_id = ? AND p.reply_to_id <> 0 AND p.id > ? AND p.repost_of_id = 0
		ORDER BY p.id ASC LIMIT ?`, postID, id)
}

// ReplyIDs are the ids of userID's direct replies to postID, oldest first.
func (r Reader) ReplyIDs(ctx context.Context, postID, userID int64) ([]int64, error) {
	ids, err := all(ctx, r.DB, `SELECT p.id FROM posts p WHERE p.reply_to_id = ? AND p.reply_to_id <> 0
		AND p.author_id = ? AND p.repost_of_id = 0 ORDER BY p.id`, []any{postID, userID},
		func(row Rows) (int64, error) {
			var id int64
			return id, row.Scan(&id)
		})
	if ids == nil && err == nil {
		ids = []int64{}
	}
	return ids, err
}

// Quotes lists the posts quoting a post, newest first.
func (r Reader) Quotes(ctx context.Context, postID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id FROM posts p
		WHERE p.quoted_id = ? AND p.quoted_id <> 0 AND p.id < ? AND p.repost_of_id = 0
		ORDER BY p.id DESC LIMIT ?`, postID, id)
}

// CommunityPosts lists a community's posts, newest or top first.
func (r Reader) CommunityPosts(ctx context.Context, communityID int64, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	if order == social.Top {
		sc, id := After(p, MaxInt64)
		return r.posts(ctx, p, `SELECT `+PostColumns+`, p.score, p.id FROM posts p
			WHERE p.community_id = ? AND p.community_id <> 0 AND (p.score, p.id) < (?, ?)
			ORDER BY p.score DESC, p.id DESC LIMIT ?`, communityID, sc, id)
	}
	_, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id FROM posts p
		WHERE p.community_id = ? AND p.community_id <> 0 AND p.id < ?
		ORDER BY p.id DESC LIMIT ?`, communityID, id)
}

// ListPosts lists posts by a list's members, newest first.
func (r Reader) ListPosts(ctx context.Context, listID int64, p social.PageReq) (social.Page[social.Post], error) {
	_, id := After(p, MaxInt64)
	return r.posts(ctx, p, `SELECT `+PostColumns+`, p.id, p.id FROM posts p
		WHERE p.author_id IN (SELECT user_id FROM list_members WHERE list_id = ?) AND p.id < ?
		ORDER BY p.id DESC LIMIT ?`, listID, id)
}

// PostPage runs a query selecting PostColumns plus the key columns (sort,
// id) that fetches limit+1 rows, and makes a page of at most limit posts.
func PostPage(ctx context.Context, db DB, limit int, query string, args []any) (social.Page[social.Post], error) {
	return page(ctx, db, limit, query, args, scanKeyedPost)
}
