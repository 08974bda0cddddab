package sqlite

import (
	"fmt"
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Query planning. A search is one SQL statement: a driver enumerates
// candidate rows in id order (a superset of the matches), and the exact
// condition of the whole query (search_compile.go) filters them.
//
// Drivers, from the conditions at the top level of the query (children of
// the root And, outside any Not or Or):
//   - fts: the FTS5 expression of every full-text condition (words,
//     phrases, url: within groups, and And/Or groups of them), rowid =
//     post id;
//   - url: a top-level url: by the trigram index post_urls (search_url.go);
//   - author (from:), to (to:), tag (#tag, $tag), mention (@user), conversation
//     (conversation_id:), quoted (quoted_tweet_id:), reply
//     (in_reply_to_tweet_id:): B-tree ranges ordered by post id;
//   - faves (min_faves:N): index posts_faves, not in id order, so taken
//     only when counted small;
//   - list (list:ID): the posts_author ranges of the list's members, not
//     in id order either;
//   - scan: posts by id, or for Top posts by score within buckets of ids
//     (index posts_bucket_score, search_top.go).
//
// Every driver is bounded by the query's id range: since_id:/max_id:, the
// page cursor, and since:/until: turned into snowflake id bounds while the
// database holds no post whose id disagrees with its time (table
// search_time_outliers, kept by triggers of migration 0002).
//
// Choice, by capped counts of the candidate drivers' rows (each count reads
// at most estimateCap index entries, or sortedCap for a driver not in id
// order, and never the posts table):
//   - Latest: the driver with the fewest rows; ordered by id it stops after
//     limit+1 matches, so its cost is at most its row count and, when the
//     other conditions are common, about limit+1 rows; when every driver
//     is common, a sorted one of fewer than sortedCap rows, else the first
//     in id order (commonDriver);
//   - both orders, when the driver chosen has fewer than estimateCap (Top:
//     topSetCap) rows but at least estimateStop: the other drivers of
//     fewer than filterRatio times its rows narrow it (narrowing), their
//     ids required before a post is read;
//   - Top: when some driver (or the id range) has fewer than topSetCap
//     rows, all its matches are sorted by score; otherwise posts are read
//     bucket by bucket (search_top.go): a driver's candidates sorted
//     within each bucket when the driver is sparse there, else
//     posts by score, until no bucket can improve the page.
const (
	estimateCap  = 2000
	sortedCap    = 20000 // a sorted driver with fewer rows may drive a common query (commonDriver)
	topSetCap    = 2000
	estimateStop = 100 // a driver this small is taken without counting others
)

// access is one driver: how to enumerate candidate rows in id order.
type access struct {
	name string
	from string // FROM clause binding posts as p
	key  string // column equal to p.id, in whose order rows come
	// cond is the driver's own condition (over the tables of from); its
	// arguments bind the placeholders of from, then those of cond.SQL.
	cond sqlstore.Cond
	est  string // FROM clause of the driver without posts
	ekey string // key column in est
	cnt  string // FROM clause counting the driver's rows, if not est
	// sorted marks a driver whose rows do not come in id order (a range
	// of another column, or the union of several ranges): it is used
	// only when counted small, and its rows are sorted.
	sorted bool
	// unranged marks a driver whose rows of an id range are not found by
	// seeking (the range applies after its own index range): Top never
	// drives it bucket by bucket.
	unranged bool
}

var (
	scanAccess = access{name: "scan", from: "posts p", key: "p.id", cond: sqlstore.CondTrue, est: "posts p", ekey: "p.id"}
	// rangeAccess is the scan of an id range, a Top candidate when the
	// query bounds ids or times.
	rangeAccess = access{name: "range", from: "posts p", key: "p.id", cond: sqlstore.CondTrue, est: "posts p", ekey: "p.id"}
)

// plan is a compiled query.
type plan struct {
	where   sqlstore.Cond // exact condition over p
	drivers []access      // candidate drivers (scan excluded)
	lo, hi  int64         // id bounds: lo < id <= hi
	never   bool          // some top-level condition can never hold
	// minEngagement is the least engagement (social.Score) of a match,
	// from the top-level min_faves:, min_retweets: and min_replies:
	// conditions, when no count is negative (search_floor.go).
	minEngagement float64
	// conds are the conditions where joins: conds[i] is the condition of
	// kids[i] for the top-level conditions, after those of the query as a
	// whole (the repost rule).
	conds []sqlstore.Cond
	kids  []search.Cond
	// counted marks a plan whose counts may be kept in the store's
	// count cache under content version version (search_counts.go): a
	// Top page's, whose counts do not depend on its cursor.
	counted bool
	version int64
}

func (c *compiler) plan(q *search.Query) (plan, error) {
	lq := search.Lower(q)
	pl := plan{lo: lq.Lo, hi: lq.Hi, never: lq.Never}
	conds, err := c.shared().Conds(c.ctx, lq)
	if err != nil {
		return pl, fmt.Errorf("sqlite: %w", err)
	}
	base := len(conds) - len(lq.Kids)
	var fts []string
	for i, k := range lq.Kids {
		x := conds[base+i]
		if x.SQL == sqlstore.CondFalse.SQL {
			pl.never = true
		}
		if u, ok := k.(search.CondURL); ok {
			if d, ok := urlDriver(u); ok {
				pl.drivers = append(pl.drivers, d)
				continue
			}
		}
		if m, ok := ftsExpr(k); ok {
			fts = append(fts, m)
			continue
		}
		if m, ok := k.(search.CondCount); ok {
			pl.minEngagement = max(pl.minEngagement, leastEngagement(m))
		}
		if d, ok := indexDriver(k, x); ok {
			pl.drivers = append(pl.drivers, d)
		}
	}
	if len(fts) > 0 {
		pl.drivers = append(pl.drivers, access{
			name: "fts", from: "posts_fts f CROSS JOIN posts p ON p.id = f.rowid", key: "f.rowid",
			cond: sqlstore.Cond{SQL: "f.posts_fts MATCH ?", Args: []any{strings.Join(fts, " AND ")}},
			est:  "posts_fts f", ekey: "f.rowid",
		})
	}
	// since: and until: bound the ids while every post's id agrees with
	// its time.
	if lo, hi, ok, err := sqlstore.TimeIDs(c.ctx, sqlDB(c.s.query), lq); err != nil {
		return pl, fmt.Errorf("sqlite: %w", err)
	} else if ok {
		pl.lo, pl.hi = max(pl.lo, lo), min(pl.hi, hi)
	}
	if len(conds) == 0 {
		conds = append(conds, sqlstore.CondTrue)
	}
	pl.conds, pl.kids = conds, lq.Kids
	pl.where = sqlstore.Join(conds, " AND ")
	return pl, nil
}

// indexDriver returns the index driver of a top-level condition, if it has one;
// x is its compiled condition.
func indexDriver(n search.Cond, x sqlstore.Cond) (access, bool) {
	posts := func(name, index, col string) access {
		from := "posts p INDEXED BY " + index
		return access{name: name, from: from, key: "p.id", est: from, ekey: "p.id",
			cond: sqlstore.Cond{SQL: "p." + col + " = ? AND p." + col + " != 0", Args: x.Args[len(x.Args)-1:]}}
	}
	switch n := n.(type) {
	case search.CondAuthor:
		if len(x.Args) == 0 {
			return access{}, false
		}
		from := "posts p INDEXED BY posts_author"
		return access{name: "author", from: from, key: "p.id", est: from, ekey: "p.id", cond: x}, true
	case search.CondTag:
		return access{name: "tag", from: "post_tags t CROSS JOIN posts p ON p.id = t.post_id", key: "t.post_id",
			cond: sqlstore.Cond{SQL: "t.tag = ?", Args: x.Args}, est: "post_tags t", ekey: "t.post_id"}, true
	case search.CondMention:
		return access{name: "mention", from: "post_mentions m CROSS JOIN posts p ON p.id = m.post_id", key: "m.post_id",
			cond: sqlstore.Cond{SQL: "m.name = ?", Args: x.Args}, est: "post_mentions m", ekey: "m.post_id"}, true
	case search.CondCount:
		if n.Kind != search.Faves {
			return access{}, false
		}
		from := "posts p INDEXED BY posts_faves"
		return access{name: "faves", from: from, key: "p.id", est: from, ekey: "p.id", cond: x, sorted: true, unranged: true}, true
	case search.CondReplyTo:
		from := "posts p INDEXED BY posts_to"
		return access{name: "to", from: from, key: "p.id", est: from, ekey: "p.id", cond: x}, true
	case search.CondOr:
		return orDriver(n)
	case search.CondList:
		return listDriver(n), true
	case search.CondRef:
		switch n.Kind {
		case search.RefConversation:
			from := "posts p INDEXED BY posts_conversation"
			return access{name: "conversation", from: from, key: "p.id", est: from, ekey: "p.id", cond: x}, true
		case search.RefQuotedTweet:
			return posts("quoted", "posts_quoted", "quoted_id"), true
		case search.RefInReplyTo:
			return posts("reply", "posts_reply_to", "reply_to_id"), true
		}
	}
	return access{}, false
}

// orDriver drives an OR of hashtags and cashtags, or of mentions: the union
// of their index ranges, without repeats (a post may match several). Its
// rows do not come in id order. The union is a subquery, so the driver's
// arguments bind placeholders of from (cond has none).
func orDriver(n search.CondOr) (access, bool) {
	var table, col, name string
	var args []any
	for _, k := range n.Conds {
		var t, c, v string
		switch k := k.(type) {
		case search.CondTag:
			t, c, v = "post_tags", "tag", k.Key
		case search.CondMention:
			t, c, v = "post_mentions", "name", k.Name
		default:
			return access{}, false
		}
		if table != "" && t != table {
			return access{}, false
		}
		table, col = t, c
		args = append(args, v)
	}
	if len(args) == 0 {
		return access{}, false
	}
	name = "tags"
	if table == "post_mentions" {
		name = "mentions"
	}
	// Counts may count a post twice, sparing the sort of DISTINCT.
	ranges := "(SELECT post_id FROM " + table + " WHERE " + col + " IN (" + sqlstore.Placeholders(len(args)) + ")) u"
	union := strings.Replace(ranges, "SELECT", "SELECT DISTINCT", 1)
	return access{name: name, from: union + " CROSS JOIN posts p ON p.id = u.post_id", key: "u.post_id",
		cond: sqlstore.Cond{SQL: "1", Args: args}, est: union, ekey: "u.post_id", cnt: ranges, sorted: true}, true
}

// listDriver drives list:ID by the posts of the list's members: the union
// of their ranges of posts_author, each post once (a post has one author).
// Its rows do not come in id order; the id range reaches each member's
// range through SQLite's push-down of the outer WHERE into the subquery.
// A list's posts in one bucket of ids are still read member by member,
// so it never drives a Top page bucket by bucket (unranged): measured at
// 10M posts, a list of 2,000 members took 630 ms that way, 93 ms by score
// windows.
func listDriver(n search.CondList) access {
	posts := "(SELECT a.id AS post_id FROM list_members lm CROSS JOIN posts a INDEXED BY posts_author" +
		" ON a.author_id = lm.user_id WHERE lm.list_id = ?) u"
	return access{name: "list", from: posts + " CROSS JOIN posts p ON p.id = u.post_id", key: "u.post_id",
		cond: sqlstore.Cond{SQL: "1", Args: []any{n.ID}}, est: posts, ekey: "u.post_id", sorted: true, unranged: true}
}
