// Deletions: posts and users deleted in a write's transaction
// (social.Batch.DeletePosts, DeleteUsers), physically, with everything
// keyed by them, and the counts of the posts they replied to, quoted,
// reposted and liked moved; docs/api.md, "Deleted posts and accounts".

package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// Deleter runs the deletions of a batch and leaves out of it what names a
// tombstoned post or user (Apply), through a DB on the write's
// transaction. Every statement finds its rows by an index (the plans are
// read by the engines' tests through DeleteStatements).
type Deleter struct {
	// Lock runs first in a transaction that deletes. Probe, when set,
	// replaces the query of whether any tombstone exists, which a write
	// runs before it reads them. PostgreSQL's Lock takes an advisory lock
	// exclusively and its Probe takes it shared first, so that a write
	// that found no tombstone for a post cannot commit it after the
	// post's deletion committed. SQLite has one writer: neither.
	Lock, Probe string
	// Unindex deletes the engine's own index rows of deleted posts
	// (SQLite: the full-text rows and post_hashtags); ids are padded (see
	// Padded). Nil: none.
	Unindex func(ctx context.Context, tx DB, ids []any) error
}

// IDChunk is how many ids one statement of a deletion takes: lists are
// padded to it (Padded), so that each statement has one text.
const IDChunk = 50

// InList is the "(?,…)" of IDChunk ids.
var InList = "(" + Placeholders(IDChunk) + ")"

// Padded is ids (1 to IDChunk of them) as the arguments of an InList,
// padded with the first.
func Padded(ids []int64) []any {
	out := make([]any, IDChunk)
	for i := range out {
		out[i] = ids[0]
		if i < len(ids) {
			out[i] = ids[i]
		}
	}
	return out
}

// Tombstone kinds.
const (
	TombstonePost = "post"
	TombstoneUser = "user"
)

// delColumns are what a deletion reads of a post.
const delColumns = `p.id, p.author_id, p.reply_to_id, p.quoted_id, p.repost_of_id, p.community_id, p.entities`

// The statements of a deletion; DeleteStatements lists them.
var (
	delPostsByID   = `SELECT ` + delColumns + ` FROM posts p WHERE p.id IN ` + InList
	delRepostsOf   = `SELECT ` + delColumns + ` FROM posts p WHERE p.repost_of_id IN ` + InList + ` AND p.repost_of_id <> 0`
	delPostsBy     = `SELECT ` + delColumns + ` FROM posts p WHERE p.author_id = ? AND p.id > ? ORDER BY p.id LIMIT ?`
	delPosts       = `DELETE FROM posts WHERE id IN ` + InList
	delPostLikes   = `DELETE FROM likes WHERE post_id IN ` + InList
	delPostReposts = `DELETE FROM reposts WHERE post_id IN ` + InList
	delHighlighted = `DELETE FROM highlights WHERE post_id IN ` + InList
	delMention     = `DELETE FROM post_mentions WHERE name = ? AND post_id = ?`
	delTag         = `DELETE FROM post_tags WHERE tag = ? AND post_id = ?`
	delRepostRow   = `DELETE FROM reposts WHERE post_id = ? AND user_id = ?`
	delUserPin     = `UPDATE users SET pinned_post_id = 0 WHERE id = ? AND pinned_post_id = ?`
	delGroupPin    = `UPDATE communities SET pinned_post_id = 0 WHERE id = ? AND pinned_post_id = ?`

	delFollowing     = `DELETE FROM follows WHERE follower_id = ?`
	delFollowers     = `DELETE FROM follows WHERE followee_id = ?`
	delUserLikes     = `DELETE FROM likes WHERE user_id = ? RETURNING post_id`
	delUserReposts   = `DELETE FROM reposts WHERE user_id = ? RETURNING post_id`
	delAffiliates    = `DELETE FROM affiliations WHERE org_id = ?`
	delAffiliations  = `DELETE FROM affiliations WHERE user_id = ?`
	delHighlights    = `DELETE FROM highlights WHERE user_id = ?`
	delOwnedLists    = `SELECT id FROM lists WHERE owner_id = ?`
	delListMembers   = `DELETE FROM list_members WHERE list_id = ?`
	delListSubs      = `DELETE FROM list_subscribers WHERE list_id = ?`
	delList          = `DELETE FROM lists WHERE id = ?`
	delMemberships   = `DELETE FROM list_members WHERE user_id = ?`
	delSubscriptions = `DELETE FROM list_subscribers WHERE user_id = ?`
	delGroupMembers  = `DELETE FROM community_members WHERE user_id = ?`
	delOwnedSpaces   = `SELECT id FROM spaces WHERE creator_id = ?`
	delSpacePeople   = `DELETE FROM space_participants WHERE space_id = ?`
	delSpace         = `DELETE FROM spaces WHERE id = ?`
	delUser          = `DELETE FROM users WHERE id = ? RETURNING id`

	delCounted = `SELECT id, created_at, quote_count, reply_count, retweet_count, favorite_count, views, flags
		FROM posts WHERE id IN ` + InList
	delRecount = `UPDATE posts SET quote_count = ?, reply_count = ?, retweet_count = ?, favorite_count = ?,
		score = ?, flags = ? WHERE id = ?`
	delTombstones = `INSERT INTO tombstones (kind, id, deleted_at) VALUES ` + rowsOf(IDChunk, 3) + ` ON CONFLICT DO NOTHING`
	delPages      = `DELETE FROM gateway_pages`
)

// Statement is one statement of a deletion and arguments of its shape,
// for reading its plan.
type Statement struct {
	SQL  string
	Args []any
}

// DeleteStatements are the statements a deletion runs (the engine's
// Unindex aside), with arguments of their shape: every one must find its
// rows by an index. delPages empties a cache table and is left out.
func DeleteStatements() []Statement {
	ids := Padded([]int64{1})
	one, two := []any{int64(1)}, []any{int64(1), int64(2)}
	out := []Statement{{delPostsByID, ids}, {delRepostsOf, ids}, {delPostsBy, []any{int64(1), int64(0), int64(IDChunk)}},
		{delPosts, ids}, {delPostLikes, ids}, {delPostReposts, ids}, {delHighlighted, ids},
		{delMention, []any{"a", int64(1)}}, {delTag, []any{"#a", int64(1)}}, {delRepostRow, two}, {delUserPin, two},
		{delGroupPin, two}, {delCounted, ids}, {delRecount, []any{0, 0, 0, 0, 0, 0, int64(1)}}}
	for _, q := range []string{delFollowing, delFollowers, delUserLikes, delUserReposts, delAffiliates, delAffiliations,
		delHighlights, delOwnedLists, delListMembers, delListSubs, delList, delMemberships, delSubscriptions,
		delGroupMembers, delOwnedSpaces, delUser} {
		out = append(out, Statement{q, one})
	}
	return append(out, Statement{delSpacePeople, []any{"a"}}, Statement{delSpace, []any{"a"}},
		Statement{tombstoneLookup, append([]any{TombstonePost}, ids...)})
}

// delPost is what a deletion reads of a post.
type delPost struct {
	id, author, replyTo, quoted, repostOf, community int64
	entities                                         []byte
}

func scanDelPost(r Rows) (delPost, error) {
	var p delPost
	err := r.Scan(&p.id, &p.author, &p.replyTo, &p.quoted, &p.repostOf, &p.community, &p.entities)
	return p, err
}

// queued is a post to delete: named (in DeletePosts) or going with one,
// and whether its deletion goes to the change log.
type queued struct {
	p          delPost
	named, log bool
}

// deletion is one batch's deletions under way.
type deletion struct {
	ctx   context.Context
	tx    DB
	d     Deleter
	stats social.WriteStats
	// changes are the change-log entries: a deleted named post (and its
	// native reposts), a deleted user.
	changes []monitor.Change
	now     time.Time
	seen    map[int64]bool // posts deleted
	users   map[int64]bool // users being deleted
	// Count decrements of the posts that stay: replies, quotes and likes
	// gone, by post; reposts gone, each (post, user) once.
	replies, quotes, likes map[int64]int64
	reposts                map[[2]int64]bool
}

// exec runs a statement that returns no rows (or whose rows are not read).
func (x *deletion) exec(q string, args ...any) error {
	return x.tx.Query(x.ctx, q, args, func(Rows) error { return nil })
}

// deleteAll deletes b's posts, then its users, moves the counts of the
// posts that stay, writes the tombstones, drops the gateway's cached pages
// and moves the deletions counter.
func (d Deleter) deleteAll(ctx context.Context, tx DB, b *social.Batch) (*deletion, error) {
	x := &deletion{ctx: ctx, tx: tx, d: d, now: time.Now(), seen: map[int64]bool{}, users: map[int64]bool{},
		replies: map[int64]int64{}, quotes: map[int64]int64{}, likes: map[int64]int64{}, reposts: map[[2]int64]bool{}}
	posts, users := unique64(b.DeletePosts), unique64(b.DeleteUsers)
	for _, u := range users {
		x.users[u] = true
	}
	for lo := 0; lo < len(posts); lo += IDChunk {
		found, err := all(ctx, tx, delPostsByID, Padded(posts[lo:min(lo+IDChunk, len(posts))]), scanDelPost)
		if err != nil {
			return nil, fmt.Errorf("delete posts: %w", err)
		}
		q := make([]queued, len(found))
		for i, p := range found {
			q[i] = queued{p: p, named: true, log: true}
		}
		if err := x.posts(q); err != nil {
			return nil, err
		}
	}
	for _, u := range users {
		if err := x.user(u); err != nil {
			return nil, err
		}
	}
	if err := x.recount(); err != nil {
		return nil, err
	}
	for kind, ids := range map[string][]int64{TombstonePost: posts, TombstoneUser: users} {
		if err := x.tombstones(kind, ids); err != nil {
			return nil, err
		}
	}
	if err := x.exec(delPages); err != nil {
		return nil, fmt.Errorf("delete: the gateway's cached pages: %w", err)
	}
	if err := BumpVersion(ctx, tx, VersionDeletions); err != nil {
		return nil, fmt.Errorf("delete: %w", err)
	}
	return x, nil
}

// posts deletes the queued posts, their native reposts with them, a
// chunk at a time.
func (x *deletion) posts(q []queued) error {
	for len(q) > 0 {
		chunk := make([]queued, 0, IDChunk)
		for len(q) > 0 && len(chunk) < IDChunk {
			if it := q[0]; !x.seen[it.p.id] {
				x.seen[it.p.id] = true
				chunk = append(chunk, it)
			}
			q = q[1:]
		}
		if len(chunk) == 0 {
			continue
		}
		ids := make([]int64, len(chunk))
		for i, it := range chunk {
			ids[i] = it.p.id
		}
		args := Padded(ids)
		reposts, err := all(x.ctx, x.tx, delRepostsOf, args, scanDelPost)
		if err != nil {
			return fmt.Errorf("delete posts: reposts: %w", err)
		}
		logged := map[int64]bool{}
		for _, it := range chunk {
			logged[it.p.id] = it.log
		}
		for _, r := range reposts {
			q = append(q, queued{p: r, log: logged[r.repostOf]})
		}
		for _, it := range chunk {
			if err := x.post(it); err != nil {
				return err
			}
		}
		for _, del := range []string{delPostLikes, delPostReposts, delHighlighted} {
			if err := x.exec(del, args...); err != nil {
				return fmt.Errorf("delete posts: %w", err)
			}
		}
		if x.d.Unindex != nil {
			if err := x.d.Unindex(x.ctx, x.tx, args); err != nil {
				return fmt.Errorf("delete posts: unindex: %w", err)
			}
		}
		if err := x.exec(delPosts, args...); err != nil {
			return fmt.Errorf("delete posts: %w", err)
		}
	}
	return nil
}

// post deletes what is keyed by one post but by its id alone (its
// mention and tag rows, the repost row of a native repost, its place as a
// pinned post) and notes the counts it moves.
func (x *deletion) post(it queued) error {
	p := it.p
	if it.named {
		x.stats.PostsDeleted++
	} else {
		x.stats.PostsDeletedWith++
	}
	if it.log {
		x.changes = append(x.changes, monitor.Change{Kind: monitor.ChangePostDeleted, Subject: p.author, Object: p.id, At: x.now})
	}
	if p.replyTo != 0 {
		x.replies[p.replyTo]++
	}
	if p.quoted != 0 {
		x.quotes[p.quoted]++
	}
	if p.repostOf != 0 {
		x.reposts[[2]int64{p.repostOf, p.author}] = true
		if err := x.exec(delRepostRow, p.repostOf, p.author); err != nil {
			return fmt.Errorf("delete post %d: repost: %w", p.id, err)
		}
	}
	var e social.Entities
	if len(p.entities) > 2 {
		if err := unmarshalEntities(p.entities, &e); err != nil {
			return fmt.Errorf("delete post %d: entities: %w", p.id, err)
		}
	}
	for _, k := range uniq(MentionKeys(&e)) {
		if err := x.exec(delMention, k, p.id); err != nil {
			return fmt.Errorf("delete post %d: mention: %w", p.id, err)
		}
	}
	for _, k := range uniq(TagKeys(&e)) {
		if err := x.exec(delTag, k, p.id); err != nil {
			return fmt.Errorf("delete post %d: tag: %w", p.id, err)
		}
	}
	if !x.users[p.author] {
		if err := x.exec(delUserPin, p.author, p.id); err != nil {
			return fmt.Errorf("delete post %d: pinned: %w", p.id, err)
		}
	}
	if p.community != 0 {
		if err := x.exec(delGroupPin, p.community, p.id); err != nil {
			return fmt.Errorf("delete post %d: pinned in community: %w", p.id, err)
		}
	}
	return nil
}
