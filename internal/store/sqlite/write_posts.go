package sqlite

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

const postColumnsWritten = `INSERT INTO posts (id, author_id, created_at, text, source, truncated, lang, reply_to_id,
	reply_to_user_id, reply_to_screen_name, quoted_id, repost_of_id, conversation_id, community_id,
	quote_count, reply_count, retweet_count, favorite_count, bookmark_count, views, score, flags, entities)
VALUES `

// postStructural are the posts columns that place a post in the indexes
// of the network's shape (its author, thread, quote, community), which
// never change once the network made the post; postCounted are the
// others, which a reply, quote, repost, like or view of it moves.
var (
	postStructural = []string{"author_id", "reply_to_id", "reply_to_user_id", "reply_to_screen_name",
		"quoted_id", "repost_of_id", "conversation_id", "community_id"}
	postCounted = []string{"created_at", "text", "source", "truncated", "lang", "quote_count", "reply_count",
		"retweet_count", "favorite_count", "bookmark_count", "views", "score", "flags", "entities"}
)

// postUpsertTail replaces every column of a stored post; postRefreshTail
// only postCounted, for a stored post whose postStructural columns stay
// as they are: SQLite rewrites the index rows of every column a SET
// names, changed or not, and a like would otherwise rewrite the post's
// rows in posts_author, posts_conversation and the others.
var (
	postUpsertTail  = postUpsert(append(slices.Clone(postStructural), postCounted...))
	postRefreshTail = postUpsert(postCounted)
)

// postUpsert is the ON CONFLICT clause that sets cols (views only to a
// known count).
func postUpsert(cols []string) string {
	set := strings.Replace(setExcluded(cols), "views = excluded.views", "views = coalesce(excluded.views, posts.views)", 1)
	return "\nON CONFLICT (id) DO UPDATE SET " + set
}

// structuralColumns is the SQL of a stored post's postStructural columns
// as structureOf gives them for a post to write.
const structuralColumns = "printf('%d,%d,%d,%d,%d,%d,%d,', author_id, reply_to_id, reply_to_user_id, quoted_id, " +
	"repost_of_id, conversation_id, community_id) || reply_to_screen_name"

func structureOf(p *social.Post, conv int64) string {
	return fmt.Sprintf("%d,%d,%d,%d,%d,%d,%d,%s", p.AuthorID, p.InReplyToID, p.InReplyToUserID, p.QuotedID,
		p.RepostOfID, conv, p.CommunityID, p.InReplyToScreenName)
}

// postArgs is the number of values of one posts row.
const postArgs = 23

// Rows per multi-row statement: fewer statements, the same work per row.
const (
	postChunk  = 64   // 23 values each
	entryChunk = 500  // mention and tag rows, 2 values each
	ftsChunk   = 2000 // full-text rows, 3 values each
	prepChunk  = 256  // posts prepared per hand-over
)

// preparedPost is everything a post's rows need that is computed in Go,
// worked out on another goroutine while earlier posts are written.
type preparedPost struct {
	args      []any // the posts row
	ent       string
	text, url string // the full-text row
	indexed   string // what the index rows are made of (indexedOf)
	structure string // its postStructural columns (structureOf)
	mentions  []string
	tags      []string
	hashtags  string // the post_hashtags row (hashtagsRow), "" without one
	err       error
}

func preparePost(p *social.Post) preparedPost {
	if p.ID <= 0 || p.AuthorID <= 0 {
		return preparedPost{err: fmt.Errorf("sqlite: write: post %d by %d: %w", p.ID, p.AuthorID, social.ErrInvalid)}
	}
	ent, err := json.Marshal(&p.Entities)
	if err != nil {
		return preparedPost{err: fmt.Errorf("sqlite: write: post %d entities: %w", p.ID, err)}
	}
	var views any
	if p.Views != nil {
		views = *p.Views
	}
	conv := p.ConversationID
	if conv == 0 {
		conv = p.ID
	}
	e := string(ent)
	text := search.IndexText(p.Text)
	flags := sqlstore.Flags(p)
	if !ftsFaithful(text) {
		flags |= flagFTSInexact
	}
	created := sqlstore.Micros(p.CreatedAt)
	tags := sqlstore.TagKeys(&p.Entities)
	return preparedPost{
		args: []any{p.ID, p.AuthorID, created, p.Text, p.Source, b2i(p.Truncated),
			p.Lang, p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName, p.QuotedID, p.RepostOfID,
			conv, p.CommunityID, p.QuoteCount, p.ReplyCount, p.RetweetCount, p.FavoriteCount,
			p.BookmarkCount, views, social.Score(p), flags, e},
		ent: e, text: ftsText(text, p.ID, created, flags), url: urlText(&p.Entities),
		indexed: indexedOf(e, p.Text, created, p.RepostOfID), structure: structureOf(p, conv),
		mentions: sqlstore.MentionKeys(&p.Entities), tags: tags, hashtags: hashtagsRow(tags),
	}
}

// posts upserts a batch's posts. A goroutine prepares them in order while
// this one writes those already prepared.
func (w *batchWriter) posts(ps []social.Post, st *social.WriteStats) error {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]int64, len(ps))
	for i := range ps {
		ids[i] = ps[i].ID
	}
	old, err := w.existing("posts", ids, indexedColumns, structuralColumns)
	if err != nil {
		return err
	}
	prep := make([]preparedPost, len(ps))
	ready := make(chan int, len(ps)/prepChunk+1)
	go func() {
		defer close(ready)
		for lo := 0; lo < len(ps); lo += prepChunk {
			hi := min(lo+prepChunk, len(ps))
			for i := lo; i < hi; i++ {
				prep[i] = preparePost(&ps[i])
			}
			ready <- hi
		}
	}()
	defer func() {
		for range ready { // let the preparer finish on an early return
		}
	}()
	up := newUpserts(postColumnsWritten, postRow, postArgs, postChunk, postUpsertTail, postRefreshTail)
	i := 0
	for hi := range ready {
		for ; i < hi; i++ {
			p, pp := &ps[i], &prep[i]
			if pp.err != nil {
				return pp.err
			}
			indexed := pp.indexed
			stored, had := old[p.ID]
			switch {
			case !had:
				st.PostsInserted++
			case stored[0] == indexed:
				// Only counts or other columns changed (a reply, quote,
				// repost or like of it): the index rows stay as they are,
				// and the full-text index gets no delete to merge away.
				st.PostsUpdated++
			default:
				oldEnt, _, _ := strings.Cut(stored[0], "\x00")
				if err := w.unindex(p.ID, oldEnt); err != nil {
					return err
				}
				st.PostsUpdated++
			}
			if !had || stored[0] != indexed {
				w.ix.add(p.ID, pp)
			}
			// A later copy in the same batch compares with this one.
			old[p.ID] = []string{indexed, pp.structure}
			if err := up.add(w, p.ID, pp.args, had && stored[1] == pp.structure); err != nil {
				return err
			}
		}
	}
	return up.flush(w)
}

// postRow is the placeholders of one posts row.
var postRow = "(" + strings.TrimSuffix(strings.Repeat("?,", postArgs), ",") + ")"

// unindex takes a post out of the indexes: the stored one (with its
// stored entities), or the copy staged earlier in this batch.
func (w *batchWriter) unindex(id int64, entities string) error {
	if w.ix.drop(id) {
		return nil
	}
	w.ix.ftsDel = append(w.ix.ftsDel, id)
	var e social.Entities
	if err := json.Unmarshal([]byte(entities), &e); err != nil {
		return fmt.Errorf("sqlite: write: stored entities of post %d: %w", id, err)
	}
	for _, name := range sqlstore.MentionKeys(&e) {
		if err := w.exec(`DELETE FROM post_mentions WHERE name = ? AND post_id = ?`, name, id); err != nil {
			return err
		}
	}
	tags := sqlstore.TagKeys(&e)
	for _, tag := range tags {
		if err := w.exec(`DELETE FROM post_tags WHERE tag = ? AND post_id = ?`, tag, id); err != nil {
			return err
		}
	}
	if hashtagsRow(tags) != "" {
		if err := w.exec(`DELETE FROM post_hashtags WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// hashtagsRow is the tags column of a post's post_hashtags row (migration
// 0036): each distinct hashtag key of tags (sqlstore.TagKeys), "byte
// length:key", concatenated; "" when the post has none.
func hashtagsRow(tags []string) string {
	var b strings.Builder
	for i, t := range tags {
		if !strings.HasPrefix(t, "#") || slices.Contains(tags[:i], t) {
			continue
		}
		b.WriteString(strconv.Itoa(len(t)))
		b.WriteByte(':')
		b.WriteString(t)
	}
	return b.String()
}

// postIndex gathers a batch's full-text, mention and tag rows, written at
// the end of the transaction, many rows per statement (flush).
type postIndex struct {
	fts      []ftsRow
	mentions []entryRow
	tags     []entryRow
	hashtags []entryRow // post_hashtags rows: key is the tags column
	staged   map[int64]stagedRows
	ftsDel   []int64 // stored posts to take out of the full-text index
}

type ftsRow struct {
	id        int64
	text, url string
	dropped   bool
}

// entryRow is a row of post_mentions, post_tags or post_hashtags.
type entryRow struct {
	key     string
	id      int64
	dropped bool
}

// stagedRows locates one post's rows in a postIndex.
type stagedRows struct{ fts, m0, m1, t0, t1, h int }

func (x *postIndex) add(id int64, pp *preparedPost) {
	if x.staged == nil {
		x.staged = make(map[int64]stagedRows)
	}
	r := stagedRows{fts: len(x.fts), m0: len(x.mentions), t0: len(x.tags), h: -1}
	if pp.hashtags != "" {
		r.h = len(x.hashtags)
		x.hashtags = append(x.hashtags, entryRow{key: pp.hashtags, id: id})
	}
	x.fts = append(x.fts, ftsRow{id: id, text: pp.text, url: pp.url})
	for _, m := range pp.mentions {
		x.mentions = append(x.mentions, entryRow{key: m, id: id})
	}
	for _, t := range pp.tags {
		x.tags = append(x.tags, entryRow{key: t, id: id})
	}
	r.m1, r.t1 = len(x.mentions), len(x.tags)
	x.staged[id] = r
}

// drop forgets the rows staged for id, if any.
func (x *postIndex) drop(id int64) bool {
	r, ok := x.staged[id]
	if !ok {
		return false
	}
	x.fts[r.fts].dropped = true
	for i := r.m0; i < r.m1; i++ {
		x.mentions[i].dropped = true
	}
	for i := r.t0; i < r.t1; i++ {
		x.tags[i].dropped = true
	}
	if r.h >= 0 {
		x.hashtags[r.h].dropped = true
	}
	delete(x.staged, id)
	return true
}

// flush writes the staged rows. It runs after every other statement of
// the transaction.
//
// FTS5 writes the terms it holds in memory to a new segment whenever a
// later statement of the transaction opens a statement savepoint, as every
// write to posts does (it has triggers). Interleaved with the posts rows,
// the full-text rows made one tiny segment per post, and the index spent
// most of a write merging them. Written last, a batch makes one segment.
func (x *postIndex) flush(w *batchWriter) error {
	if err := x.flushEntries(w, x.mentions, "post_mentions (name, post_id)"); err != nil {
		return err
	}
	if err := x.flushEntries(w, x.tags, "post_tags (tag, post_id)"); err != nil {
		return err
	}
	if err := x.flushEntries(w, x.hashtags, "post_hashtags (tags, id)"); err != nil {
		return err
	}
	del := x.ftsDel
	for _, n := range rowChunks(len(del), ftsChunk) {
		args := make([]any, n)
		for i, id := range del[:n] {
			args[i] = id
		}
		del = del[n:]
		for _, table := range []string{"posts_fts", "post_urls"} {
			if err := w.exec(`DELETE FROM `+table+` WHERE rowid IN (`+valuesList(n, "?")+`)`, args...); err != nil {
				return err
			}
		}
	}
	// FTS5 writes its pending terms out as a new segment whenever a row
	// comes with a rowid below the last one (sqlite3Fts5IndexBeginWrite):
	// rows in falling order (a Latest page, a newest-first archive) made a
	// segment each, and the index spent most of a write merging them.
	slices.SortFunc(x.fts, func(a, b ftsRow) int { return cmp.Compare(a.id, b.id) })
	var text, urls []any
	for _, r := range x.fts {
		if r.dropped {
			continue
		}
		text = append(text, r.id, r.text, r.url)
		if r.url != "" {
			urls = append(urls, r.id, strings.ToLower(r.url))
		}
	}
	// Each statement into a full-text index ends a segment of it, so its
	// rows go in as few statements as can hold them, prepared for this
	// transaction (their texts come in too many sizes to keep).
	if err := w.execFullText(`INSERT INTO posts_fts (rowid, text, urls) VALUES `, "(?,?,?)", 3, text); err != nil {
		return err
	}
	// The trigram index of url: (migration 0005) holds posts with URLs.
	if err := w.execFullText(`INSERT INTO post_urls (rowid, urls) VALUES `, "(?,?)", 2, urls); err != nil {
		return err
	}
	*x = postIndex{}
	return nil
}

// execFullText inserts args (width values a row) into a full-text
// index, ftsChunk rows a statement.
func (w *batchWriter) execFullText(head, row string, width int, args []any) error {
	for len(args) > 0 {
		n := min(len(args)/width, ftsChunk)
		if err := w.execKept(head+valuesList(n, row), false, args[:n*width]...); err != nil {
			return err
		}
		args = args[n*width:]
	}
	return nil
}

// flushEntries inserts mention or tag rows in key order (neighbouring
// rows land on the same pages).
func (x *postIndex) flushEntries(w *batchWriter, rows []entryRow, into string) error {
	rows = slices.DeleteFunc(rows, func(r entryRow) bool { return r.dropped })
	slices.SortFunc(rows, func(a, b entryRow) int {
		return cmp.Or(strings.Compare(a.key, b.key), cmp.Compare(a.id, b.id))
	})
	for _, n := range rowChunks(len(rows), entryChunk) {
		args := make([]any, 0, 2*n)
		for _, r := range rows[:n] {
			args = append(args, r.key, r.id)
		}
		rows = rows[n:]
		if err := w.exec(`INSERT OR IGNORE INTO `+into+` VALUES `+valuesList(n, "(?,?)"), args...); err != nil {
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

// valuesList is n copies of one, comma-separated.
func valuesList(n int, one string) string {
	var b strings.Builder
	b.Grow(n * (len(one) + 1))
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}

// indexedColumns is the SQL of what a stored post's index rows are made
// of, as indexedOf gives it for a post to write: its entities (JSON, never
// a NUL byte), its text, and the columns its full-text markers come from
// besides those (created_at, repost_of_id).
const indexedColumns = "entities || char(0) || text || char(0) || created_at || char(0) || repost_of_id"

func indexedOf(entities, text string, created, repostOf int64) string {
	return entities + "\x00" + text + "\x00" + strconv.FormatInt(created, 10) + "\x00" + strconv.FormatInt(repostOf, 10)
}
