package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// compiler turns a search AST into one SQL condition over alias p. Every
// value is a bind parameter: text terms reach the full-text index only
// through phraseto_tsquery('simple', $n) of tokens folded in Go, so no query
// text is ever parsed as tsquery syntax. Screen names of from: are resolved
// to ids first.
type compiler struct {
	s    *Store
	pool *pgxpool.Pool // where the search runs: the primary or a replica
	ctx  context.Context
	args []any
}

// arg binds a value and returns its placeholder.
func (c *compiler) arg(v any) string {
	c.args = append(c.args, v)
	return "$" + strconv.Itoa(len(c.args))
}

// where compiles a query: the repost rule and the condition tree.
func (c *compiler) where(q *search.Query) (string, error) {
	conds := []string{}
	if q.Reposts == search.RepostsExcluded {
		conds = append(conds, "p.repost_of_id = 0")
	}
	if q.Root != nil {
		s, err := c.cond(q.Root)
		if err != nil {
			return "", err
		}
		conds = append(conds, s)
		ids, err := c.timeIDs(q.Root)
		if err != nil {
			return "", err
		}
		conds = append(conds, ids...)
	}
	if len(conds) == 0 {
		return "true", nil
	}
	return strings.Join(conds, " AND "), nil
}

// timeIDs turns the since:/until: bounds at the top level of the query into
// id bounds (social.SinceID, social.UntilID), which the primary key serves,
// while every stored post's id agrees with its time (migration 0004).
func (c *compiler) timeIDs(root search.Node) ([]string, error) {
	kids := []search.Node{root}
	if a, ok := root.(search.And); ok {
		kids = a.Children
	}
	var conds []string
	for _, k := range kids {
		t, ok := k.(search.TimeBound)
		if !ok {
			continue
		}
		if conds == nil {
			var outliers bool
			if err := c.pool.QueryRow(c.ctx, `SELECT EXISTS (SELECT 1 FROM search_time_outliers)`).Scan(&outliers); err != nil {
				return nil, fmt.Errorf("postgres: search: time bounds: %w", err)
			}
			if outliers {
				return nil, nil
			}
			conds = []string{}
		}
		if t.Since {
			conds = append(conds, "p.id > "+c.arg(social.SinceID(t.T)))
		} else {
			conds = append(conds, "p.id <= "+c.arg(social.UntilID(t.T)))
		}
	}
	return conds, nil
}

// phrase is the tsquery of a token string.
func (c *compiler) phrase(toks string) string {
	return "phraseto_tsquery('simple', " + c.arg(toks) + "::text)"
}

// cond compiles any node into an SQL condition over alias p.
func (c *compiler) cond(n search.Node) (string, error) {
	switch n := n.(type) {
	case search.And, search.Or:
		kids, op := children(n)
		parts := make([]string, 0, len(kids))
		for _, k := range kids {
			s, err := c.cond(k)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		if len(parts) == 0 {
			return "true", nil
		}
		return "(" + strings.Join(parts, op) + ")", nil
	case search.Not:
		s, err := c.cond(n.Child)
		if err != nil {
			return "", err
		}
		return "NOT (" + s + ")", nil
	case search.Word:
		t := queryTokens(n.Text)
		if t == "" {
			return "false", nil
		}
		return "p.tsv @@ " + c.phrase(t), nil
	case search.Phrase:
		return c.phraseCond(n.Words), nil
	case search.URL:
		pat, ok := urlPattern(n.Sub)
		if !ok {
			return "false", nil
		}
		cond := fmt.Sprintf("((p.flags & %d) <> 0 AND p.urls ~ %s", sqlstore.FlagLinks, c.arg(pat))
		if t := urlIndexTokens(n.Sub); t != "" {
			cond += " AND p.url_tsv <> ''::tsvector AND p.url_tsv @@ plainto_tsquery('simple', " + c.arg(t) + "::text)"
		}
		return cond + ")", nil
	case search.Hashtag:
		return "EXISTS (SELECT 1 FROM post_tags t WHERE t.tag = " + c.arg("#"+strings.ToLower(n.Tag)) + " AND t.post_id = p.id)", nil
	case search.Cashtag:
		return "EXISTS (SELECT 1 FROM post_tags t WHERE t.tag = " + c.arg("$"+strings.ToLower(n.Tag)) + " AND t.post_id = p.id)", nil
	case search.Mention:
		return "EXISTS (SELECT 1 FROM post_mentions m WHERE m.name = " + c.arg(strings.ToLower(n.User)) + " AND m.post_id = p.id)", nil
	case search.From:
		return c.authorIn(n.User)
	case search.To:
		return "(p.reply_to_id <> 0 AND lower(p.reply_to_screen_name) = " + c.arg(strings.ToLower(n.User)) + ")", nil
	case search.Lang:
		return "p.lang = " + c.arg(n.Code), nil
	case search.ListMembers:
		return "p.author_id IN (SELECT user_id FROM list_members WHERE list_id = " + c.arg(n.ListID) + ")", nil
	case search.IDBound:
		if n.Max {
			return "p.id <= " + c.arg(n.ID), nil
		}
		return "p.id > " + c.arg(n.ID), nil
	case search.TimeBound:
		if n.Since {
			return "p.created_at >= " + c.arg(n.T.UnixMicro()), nil
		}
		return "p.created_at < " + c.arg(n.T.UnixMicro()), nil
	case search.Ref:
		switch n.Kind {
		case search.RefConversation:
			return "p.conversation_id = " + c.arg(n.ID), nil
		case search.RefQuotedTweet:
			return "p.quoted_id = " + c.arg(n.ID), nil
		case search.RefQuotedUser:
			return "(p.quoted_id <> 0 AND EXISTS (SELECT 1 FROM posts q WHERE q.id = p.quoted_id AND q.author_id = " +
				c.arg(n.ID) + "))", nil
		case search.RefInReplyTo:
			return "p.reply_to_id = " + c.arg(n.ID), nil
		}
	case search.MinCount:
		col := map[search.CountKind]string{search.Faves: "p.favorite_count", search.Retweets: "p.retweet_count",
			search.Replies: "p.reply_count"}[n.Kind]
		if col != "" {
			return col + " >= " + c.arg(n.N), nil
		}
	case search.Filter:
		return c.filterCond(n.Kind)
	}
	return "", fmt.Errorf("postgres: search: unsupported condition %T: %w", n, social.ErrInvalid)
}

// phraseCond compiles a phrase. Each "*" stands for exactly one arbitrary
// token: the parts around k stars are joined by tsquery_phrase at distance
// k+1. Stars before the first part or after the last one are dropped, as
// words without tokens are.
func (c *compiler) phraseCond(words []string) string {
	q := ""
	gap := 0
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		t := queryTokens(cur...)
		cur = nil
		if t == "" {
			return
		}
		if q == "" {
			q = c.phrase(t)
		} else {
			q = "tsquery_phrase(" + q + ", " + c.phrase(t) + ", " + strconv.Itoa(gap+1) + ")"
		}
		gap = 0
	}
	for _, w := range words {
		if w == "*" {
			flush()
			if q != "" {
				gap++
			}
			continue
		}
		cur = append(cur, w)
	}
	flush()
	if q == "" {
		return "false"
	}
	return "p.tsv @@ " + q
}

// filterCond compiles filter:KIND.
func (c *compiler) filterCond(k search.FilterKind) (string, error) {
	flags := map[search.FilterKind]int64{
		search.FilterReplies:       sqlstore.FlagReply,
		search.FilterSelfThreads:   sqlstore.FlagSelfThread,
		search.FilterQuote:         sqlstore.FlagQuote,
		search.FilterNativeReposts: sqlstore.FlagRepost,
		search.FilterRetweets:      sqlstore.FlagRepost | sqlstore.FlagOldRetweet,
		search.FilterMedia:         sqlstore.FlagMedia,
		search.FilterImages:        sqlstore.FlagImages,
		search.FilterVideos:        sqlstore.FlagVideos,
		search.FilterLinks:         sqlstore.FlagLinks,
		search.FilterMentions:      sqlstore.FlagMentions,
		search.FilterHashtags:      sqlstore.FlagHashtags,
		search.FilterHasEngagement: sqlstore.FlagEngagement,
	}
	if f, ok := flags[k]; ok {
		return "(p.flags & " + c.arg(f) + ") <> 0", nil
	}
	switch k {
	case search.FilterVerified:
		return "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.verified)", nil
	case search.FilterBlueVerified:
		return "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.blue_verified)", nil
	}
	return "", fmt.Errorf("postgres: search: unsupported filter %d: %w", k, social.ErrInvalid)
}

// authorIn compiles from:NAME to the ids of the users with that screen
// name who are not shadow-banned (their posts never match: docs/search.md,
// "Rules").
func (c *compiler) authorIn(name string) (string, error) {
	rows, err := c.pool.Query(c.ctx, `SELECT id FROM users WHERE lower(screen_name) = $1 AND NOT shadow_banned`,
		strings.ToLower(name))
	if err != nil {
		return "", fmt.Errorf("postgres: search: from: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return "", fmt.Errorf("postgres: search: from: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("postgres: search: from: %w", err)
	}
	if len(ids) == 0 {
		return "false", nil
	}
	return "p.author_id = ANY(" + c.arg(ids) + "::bigint[])", nil
}

// children returns the children of an And or Or node and the SQL operator
// that joins them.
func children(n search.Node) ([]search.Node, string) {
	if o, ok := n.(search.Or); ok {
		return o.Children, " OR "
	}
	if a, ok := n.(search.And); ok {
		return a.Children, " AND "
	}
	return nil, " AND "
}

// indexed reports whether every match of n is found through a GIN
// full-text index: then the set of matches can be gathered from that index
// and sorted, instead of walking all posts in order and testing each.
// (Tags and mentions need not: their b-trees, keyed (tag, post_id), already
// hand the planner matches newest first.)
func indexed(n search.Node) bool {
	switch n := n.(type) {
	case search.Word, search.Phrase:
		return true
	case search.URL:
		return urlIndexTokens(n.Sub) != ""
	case search.And:
		for _, k := range n.Children {
			if indexed(k) {
				return true
			}
		}
	case search.Or:
		for _, k := range n.Children {
			if !indexed(k) {
				return false
			}
		}
		return len(n.Children) > 0
	}
	return false
}
