package postgres

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

var postUpdateCols = []string{"author_id", "created_at", "text", "source", "truncated", "lang", "reply_to_id",
	"reply_to_user_id", "reply_to_screen_name", "quoted_id", "repost_of_id", "conversation_id", "community_id",
	"quote_count", "reply_count", "retweet_count", "favorite_count", "bookmark_count", "score", "flags",
	"entities", "tsv", "urls", "url_tsv"}

// upsertPost stores posts. Its columns are those of postValues and
// appendPostRow, in that order.
var upsertPost = &upsertSpec{
	stage: "stage_posts",
	table: "posts",
	cols: concat(cols("bigint", "id", "author_id", "created_at"), cols("text", "text", "source"),
		cols("boolean", "truncated"), cols("text", "lang"), cols("bigint", "reply_to_id", "reply_to_user_id"),
		cols("text", "reply_to_screen_name"),
		cols("bigint", "quoted_id", "repost_of_id", "conversation_id", "community_id", "quote_count", "reply_count",
			"retweet_count", "favorite_count", "bookmark_count", "views", "score", "flags"),
		cols("text", "entities"),
		[]column{{name: "tsv", typ: "tsvector", expr: tsvExpr, src: "tsv_toks"}, {name: "urls", typ: "text"},
			{name: "url_tsv", typ: "tsvector", expr: tsvExpr, src: "url_toks"},
			{name: "tsv_toks", typ: "text", stageOnly: true}, {name: "url_toks", typ: "text", stageOnly: true}}),
	target: []string{"id"},
	set:    setExcluded(postUpdateCols...) + ", views = coalesce(excluded.views, posts.views)",
}

// tsvExpr makes a post's tsvector: the one made in Go, or when Go left it
// to the server (see tsvectorOf), to_tsvector of the tokens.
const tsvExpr = "coalesce(%[1]s, to_tsvector('simple', %[2]s))"

var insertMention = &upsertSpec{
	stage: "stage_post_mentions", table: "post_mentions",
	cols:     concat(cols("text", "name"), cols("bigint", "post_id")),
	conflict: "ON CONFLICT DO NOTHING",
	key:      2,
}

var insertTag = &upsertSpec{
	stage: "stage_post_tags", table: "post_tags",
	cols:     concat(cols("text", "tag"), cols("bigint", "post_id")),
	conflict: "ON CONFLICT DO NOTHING",
	key:      2,
}

// postSet is the posts of a batch as they are stored: the last copy of
// each post, in the order posts first appear, with the views any copy
// knows (a copy without views never erases them).
type postSet struct {
	posts []*social.Post
	views []*int64
}

// postsTable names posts in a load's copyFirst: while it tries posts, the
// load copies them blind (see write).
const postsTable = "posts"

// writePosts upserts posts with the SQLite store's sequential semantics.
// When direct is set and no post of the batch is stored yet, the posts and
// their mention and tag rows are copied straight into their tables (see
// copyNewPosts); such a copy fails with errCopyConflict when a row exists
// after all. blind skips looking for stored posts before a copy: the stats
// count every post as new, which holds when the copy succeeds. parted says
// posts is partitioned (see upsertSpec.upsert).
func writePosts(ctx context.Context, tx pgx.Tx, ps []social.Post, st *social.WriteStats, runes *tsRunes, direct, blind, parted bool) error {
	if len(ps) == 0 {
		return nil
	}
	at := make(map[int64]int, len(ps))
	var set postSet
	for i := range ps {
		p := &ps[i]
		j, seen := at[p.ID]
		if !seen {
			j = len(set.posts)
			at[p.ID] = j
			set.posts = append(set.posts, p)
			set.views = append(set.views, nil)
		}
		set.posts[j] = p
		if p.Views != nil {
			set.views[j] = p.Views
		}
	}
	copyAll := direct && len(set.posts) >= copyThreshold
	had := map[int64]bool{}
	if !copyAll || !blind {
		ids := make([]int64, len(set.posts))
		for i, p := range set.posts {
			ids[i] = p.ID
		}
		var err error
		if had, err = existingIDs(ctx, tx, "posts", ids); err != nil {
			return err
		}
	}
	var stored []int64 // posts that existed before: their index rows are replaced
	for id := range had {
		stored = append(stored, id)
	}
	for i := range ps {
		if had[ps[i].ID] {
			st.PostsUpdated++
		} else {
			st.PostsInserted++
			had[ps[i].ID] = true
		}
	}
	if copyAll && len(stored) == 0 {
		return copyNewPosts(ctx, tx, &set, runes, parted)
	}
	return upsertPosts(ctx, tx, &set, stored, runes, parted)
}

// upsertPosts stores posts through upsertPost, replacing the mention and
// tag rows of the stored ones.
func upsertPosts(ctx context.Context, tx pgx.Tx, set *postSet, stored []int64, runes *tsRunes, parted bool) error {
	toks := make([]string, 2*len(set.posts))
	for i, p := range set.posts {
		toks[2*i], toks[2*i+1] = tokens(p.Text), urlTokens(&p.Entities)
	}
	if err := runes.learn(ctx, tx, toks); err != nil {
		return err
	}
	rows := make([][]any, len(set.posts))
	var mentions, tags [][]any
	for i, p := range set.posts {
		var err error
		if rows[i], err = postValues(p, set.views[i], toks[2*i], toks[2*i+1], runes); err != nil {
			return err
		}
		mentions, tags = appendKeys(mentions, tags, p)
	}
	if len(stored) > 0 {
		for _, t := range []string{"post_mentions", "post_tags"} {
			if _, err := tx.Exec(ctx, "DELETE FROM "+t+" WHERE post_id = ANY($1)", stored); err != nil {
				return fmt.Errorf("unindex posts: %w", err)
			}
		}
	}
	if err := upsertPost.upsert(ctx, tx, rows, parted); err != nil {
		return err
	}
	if err := insertMention.run(ctx, tx, mentions); err != nil {
		return err
	}
	return insertTag.run(ctx, tx, tags)
}

// copyNewPosts copies posts none of which is stored straight into posts,
// and their mention and tag rows into theirs: no staging tables, no
// conflict checks. The rows of posts are made while the server stores the
// ones before (see postStream). A post whose vectors Go cannot make yet
// waits for the end: then what the server's parser makes of its
// characters is learnt, and it is copied too, or upserted with the server
// making its vectors.
func copyNewPosts(ctx context.Context, tx pgx.Tx, set *postSet, runes *tsRunes, parted bool) error {
	s := &postStream{set: set, runes: runes, buf: []byte(copyHeader)}
	if err := copyStream(ctx, tx, upsertPost, s); err != nil {
		if serr := s.failure(); serr != nil {
			return fmt.Errorf("postgres: write posts: %w", serr)
		}
		return err
	}
	if err := copyInto(ctx, tx, insertMention, s.mentions); err != nil {
		return err
	}
	if err := copyInto(ctx, tx, insertTag, s.tags); err != nil {
		return err
	}
	if len(s.later) == 0 {
		return nil
	}
	toks := make([]string, 0, 2*len(s.later))
	for _, i := range s.later {
		p := set.posts[i]
		toks = append(toks, tokens(p.Text), urlTokens(&p.Entities))
	}
	if err := runes.learn(ctx, tx, toks); err != nil {
		return err
	}
	var copied, upserted [][]any
	for k, i := range s.later {
		r, err := postValues(set.posts[i], set.views[i], toks[2*k], toks[2*k+1], runes)
		if err != nil {
			return err
		}
		if n := upsertPost.targets(); r[n] == nil && r[n+1] == nil { // no tokens left to the server
			copied = append(copied, r[:n])
		} else {
			upserted = append(upserted, r)
		}
	}
	if err := copyInto(ctx, tx, upsertPost, copied); err != nil {
		return err
	}
	return upsertPost.upsert(ctx, tx, upserted, parted)
}

// postStream is an io.Reader of the binary COPY rows of a set of new posts:
// COPY reads it on a goroutine of its own as it sends, so each row is made
// (tokens, vectors, entities JSON) while the server stores the rows sent
// before. It gathers the mention and tag rows of every post, and leaves
// for later the posts whose vectors need the server's verdict on a
// character (see tsRunes).
type postStream struct {
	set   *postSet
	runes *tsRunes
	next  int    // the next post to make a row of; len(posts) once the trailer is made
	buf   []byte // made, from off on not read yet
	off   int
	done  bool
	vb    tsvBuilder

	later          []int // posts left for later
	mentions, tags [][]any

	mu  sync.Mutex
	err error // why making a row failed
}

// failure is why making a row failed, if it did. (When the connection
// breaks, COPY may return while its goroutine still reads.)
func (s *postStream) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *postStream) Read(p []byte) (int, error) {
	if s.off > 0 { // keep the part of a row not read yet, at the start
		s.buf = s.buf[:copy(s.buf, s.buf[s.off:])]
		s.off = 0
	}
	for len(s.buf) < len(p) && !s.done {
		if s.next == len(s.set.posts) {
			s.buf = binary.BigEndian.AppendUint16(s.buf, math.MaxUint16) // -1: the end
			s.done = true
			break
		}
		if err := s.row(s.next); err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return 0, err
		}
		s.next++
	}
	if s.off == len(s.buf) {
		return 0, io.EOF
	}
	n := copy(p, s.buf[s.off:])
	s.off += n
	return n, nil
}

// row makes the row of post i, or leaves the post for later.
func (s *postStream) row(i int) error {
	p := s.set.posts[i]
	s.mentions, s.tags = appendKeys(s.mentions, s.tags, p)
	s.vb.reset()
	tsv, ok := s.runes.vector(&s.vb, tokens(p.Text))
	if !ok {
		s.later = append(s.later, i)
		return nil
	}
	urlTSV, ok := s.runes.vector(&s.vb, urlTokens(&p.Entities))
	if !ok {
		s.later = append(s.later, i)
		return nil
	}
	ent, err := json.Marshal(&p.Entities)
	if err != nil {
		return fmt.Errorf("post %d entities: %w", p.ID, err)
	}
	s.buf, err = appendPostRow(s.buf, p, s.set.views[i], ent, tsv, urlTSV)
	return err
}

// copyStream runs COPY into spec's table (its table columns) from r,
// binary rows after copyHeader, inside tx; see copyInto for errors.
func copyStream(ctx context.Context, tx pgx.Tx, spec *upsertSpec, r io.Reader) error {
	names := spec.names()[:spec.targets()]
	for i, n := range names {
		names[i] = pgx.Identifier{n}.Sanitize()
	}
	_, err := tx.Conn().PgConn().CopyFrom(ctx, r,
		"COPY "+pgx.Identifier{spec.table}.Sanitize()+" ("+strings.Join(names, ", ")+") FROM STDIN (FORMAT binary)")
	if isUniqueViolation(err) {
		return fmt.Errorf("postgres: write %s: %w: %w", spec.table, errCopyConflict, err)
	}
	if err != nil {
		return fmt.Errorf("postgres: write %s: copy: %w", spec.table, err)
	}
	return nil
}

// postValues is the row of upsertPost for p (views as the batch knows
// them), toks and urlToks its token strings: each vector made in Go, or
// when only the server can make it, NULL and the tokens in the last two
// columns.
func postValues(p *social.Post, views *int64, toks, urlToks string, runes *tsRunes) ([]any, error) {
	ent, err := json.Marshal(&p.Entities)
	if err != nil {
		return nil, fmt.Errorf("post %d entities: %w", p.ID, err)
	}
	var vb tsvBuilder
	vector := func(toks string) (vec, text any) {
		if v, ok := runes.vector(&vb, toks); ok {
			return v, nil
		}
		return nil, toks
	}
	var v any
	if views != nil {
		v = *views
	}
	tsv, tsvToks := vector(toks)
	urlTSV, urlToksLeft := vector(urlToks)
	return []any{p.ID, p.AuthorID, sqlstore.Micros(p.CreatedAt), p.Text, p.Source, p.Truncated, p.Lang,
		p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName, p.QuotedID, p.RepostOfID, conversation(p),
		p.CommunityID, p.QuoteCount, p.ReplyCount, p.RetweetCount, p.FavoriteCount, p.BookmarkCount, v,
		social.Score(p), sqlstore.Flags(p), string(ent), tsv, urlLines(&p.Entities), urlTSV, tsvToks, urlToksLeft}, nil
}

// conversation is the conversation id stored for p: its own id for a root
// that names none.
func conversation(p *social.Post) int64 {
	if p.ConversationID == 0 {
		return p.ID
	}
	return p.ConversationID
}

// appendKeys appends the mention and tag rows of p, each key once.
func appendKeys(mentions, tags [][]any, p *social.Post) ([][]any, [][]any) {
	for _, n := range uniqueKeys(sqlstore.MentionKeys(&p.Entities)) {
		mentions = append(mentions, []any{n, p.ID})
	}
	for _, t := range uniqueKeys(sqlstore.TagKeys(&p.Entities)) {
		tags = append(tags, []any{t, p.ID})
	}
	return mentions, tags
}

// uniqueKeys is keys without repeats, in some order.
func uniqueKeys(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
