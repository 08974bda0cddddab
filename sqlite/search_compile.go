package sqlite

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"roost/search"
	"roost/social"
)

// compiler turns a search AST into SQL. It resolves screen names to ids
// first, so that the database sees plain id lists.
type compiler struct {
	s   *Store
	ctx context.Context
}

// plan is a compiled query: an optional FTS5 expression that drives the
// scan, and SQL conditions (over alias p) with their arguments.
type plan struct {
	match string
	where string
	args  []any
}

func (c *compiler) plan(q *search.Query) (plan, error) {
	var pl plan
	var conds []string
	if q.Reposts == search.RepostsExcluded {
		conds = append(conds, "p.repost_of_id = 0")
	}
	var children []search.Node
	switch n := q.Root.(type) {
	case nil:
	case search.And:
		children = n.Children
	default:
		children = []search.Node{n}
	}
	var pos, neg []string
	var rest []search.Node
	for _, ch := range children {
		if m, ok := ftsExpr(ch); ok {
			pos = append(pos, m)
			continue
		}
		if n, ok := ch.(search.Not); ok {
			if m, ok := ftsExpr(n.Child); ok {
				neg = append(neg, m)
				continue
			}
		}
		rest = append(rest, ch)
	}
	if len(pos) > 0 {
		pl.match = strings.Join(pos, " AND ")
		if len(neg) > 0 {
			pl.match = "(" + pl.match + ") NOT (" + strings.Join(neg, " OR ") + ")"
		}
	} else {
		for _, m := range neg {
			conds = append(conds, "p.id NOT IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)")
			pl.args = append(pl.args, m)
		}
	}
	for _, n := range rest {
		sqlText, args, err := c.cond(n)
		if err != nil {
			return pl, err
		}
		conds = append(conds, sqlText)
		pl.args = append(pl.args, args...)
	}
	if len(conds) == 0 {
		conds = append(conds, "1")
	}
	pl.where = strings.Join(conds, " AND ")
	return pl, nil
}

// ftsQuote makes a string one FTS5 phrase: the string is tokenized by FTS5
// itself, and double quotes inside are doubled, so nothing in it can act
// as FTS5 syntax. ok is false when it holds no token at all.
func ftsQuote(text string) (string, bool) {
	t := search.IndexText(text)
	if !strings.ContainsFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) {
		return "", false
	}
	return `"` + strings.ReplaceAll(t, `"`, `""`) + `"`, true
}

// ftsExpr compiles a subtree made only of full-text conditions into one
// FTS5 expression; ok is false for any other subtree.
func ftsExpr(n search.Node) (string, bool) {
	switch n := n.(type) {
	case search.Word:
		return ftsQuote(n.Text)
	case search.Phrase:
		return ftsPhrase(n.Words)
	case search.URL:
		m, ok := ftsQuote(strings.ReplaceAll(n.Sub, "_", "-"))
		if !ok {
			return "", false
		}
		return "urls : " + m, true
	case search.And, search.Or:
		kids, op := children(n)
		var parts []string
		for _, k := range kids {
			m, ok := ftsExpr(k)
			if !ok {
				return "", false
			}
			parts = append(parts, m)
		}
		if len(parts) == 0 {
			return "", false
		}
		return "(" + strings.Join(parts, op) + ")", true
	}
	return "", false
}

// ftsPhrase compiles a phrase; a "*" word stands for one arbitrary token,
// compiled as NEAR of the parts around it.
func ftsPhrase(words []string) (string, bool) {
	var parts []string
	gap := 0
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			if m, ok := ftsQuote(strings.Join(cur, " ")); ok {
				parts = append(parts, m)
			}
			cur = nil
		}
	}
	for _, w := range words {
		if w == "*" {
			flush()
			gap++
			continue
		}
		cur = append(cur, w)
	}
	flush()
	switch {
	case len(parts) == 0:
		return "", false
	case len(parts) == 1:
		return parts[0], true
	}
	return fmt.Sprintf("NEAR(%s, %d)", strings.Join(parts, " "), gap), true
}

// cond compiles any node into an SQL condition over alias p.
func (c *compiler) cond(n search.Node) (string, []any, error) {
	switch n := n.(type) {
	case search.And, search.Or:
		kids, op := children(n)
		var parts []string
		var args []any
		for _, k := range kids {
			s, a, err := c.cond(k)
			if err != nil {
				return "", nil, err
			}
			parts = append(parts, s)
			args = append(args, a...)
		}
		if len(parts) == 0 {
			return "1", nil, nil
		}
		return "(" + strings.Join(parts, op) + ")", args, nil
	case search.Not:
		s, a, err := c.cond(n.Child)
		if err != nil {
			return "", nil, err
		}
		return "NOT (" + s + ")", a, nil
	case search.Word, search.Phrase, search.URL:
		m, ok := ftsExpr(n)
		if !ok {
			return "0", nil, nil
		}
		return "p.id IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?)", []any{m}, nil
	case search.Hashtag:
		return "p.id IN (SELECT post_id FROM post_tags WHERE tag = ?)", []any{"#" + strings.ToLower(n.Tag)}, nil
	case search.Cashtag:
		return "p.id IN (SELECT post_id FROM post_tags WHERE tag = ?)", []any{"$" + strings.ToLower(n.Tag)}, nil
	case search.Mention:
		return "p.id IN (SELECT post_id FROM post_mentions WHERE name = ?)", []any{strings.ToLower(n.User)}, nil
	case search.From:
		return c.authorIn(n.User)
	case search.To:
		return "p.reply_to_id != 0 AND p.reply_to_screen_name = ? COLLATE NOCASE", []any{n.User}, nil
	case search.Lang:
		return "p.lang = ?", []any{n.Code}, nil
	case search.ListMembers:
		return "p.author_id IN (SELECT user_id FROM list_members WHERE list_id = ?)", []any{n.ListID}, nil
	case search.IDBound:
		if n.Max {
			return "p.id <= ?", []any{n.ID}, nil
		}
		return "p.id > ?", []any{n.ID}, nil
	case search.TimeBound:
		if n.Since {
			return "p.created_at >= ?", []any{n.T.UnixMicro()}, nil
		}
		return "p.created_at < ?", []any{n.T.UnixMicro()}, nil
	case search.Ref:
		switch n.Kind {
		case search.RefConversation:
			return "p.conversation_id = ?", []any{n.ID}, nil
		case search.RefQuotedTweet:
			return "p.quoted_id = ?", []any{n.ID}, nil
		case search.RefQuotedUser:
			return "p.quoted_id != 0 AND EXISTS (SELECT 1 FROM posts q WHERE q.id = p.quoted_id AND q.author_id = ?)", []any{n.ID}, nil
		case search.RefInReplyTo:
			return "p.reply_to_id = ?", []any{n.ID}, nil
		}
	case search.MinCount:
		col := map[search.CountKind]string{search.Faves: "p.favorite_count", search.Retweets: "p.retweet_count", search.Replies: "p.reply_count"}[n.Kind]
		if col != "" {
			return col + " >= ?", []any{n.N}, nil
		}
	case search.Filter:
		return filterCond(n.Kind)
	}
	return "", nil, fmt.Errorf("sqlite: search: unsupported condition %T: %w", n, social.ErrInvalid)
}

// filterCond compiles filter:KIND.
func filterCond(k search.FilterKind) (string, []any, error) {
	flags := map[search.FilterKind]int64{
		search.FilterReplies:       social.FlagReply,
		search.FilterSelfThreads:   social.FlagSelfThread,
		search.FilterQuote:         social.FlagQuote,
		search.FilterNativeReposts: social.FlagRepost,
		search.FilterRetweets:      social.FlagRepost | social.FlagOldRetweet,
		search.FilterMedia:         social.FlagMedia,
		search.FilterImages:        social.FlagImages,
		search.FilterVideos:        social.FlagVideos,
		search.FilterLinks:         social.FlagLinks,
		search.FilterMentions:      social.FlagMentions,
		search.FilterHashtags:      social.FlagHashtags,
		search.FilterHasEngagement: social.FlagEngagement,
	}
	if f, ok := flags[k]; ok {
		return "(p.flags & ?) != 0", []any{f}, nil
	}
	switch k {
	case search.FilterVerified:
		return "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.verified)", nil, nil
	case search.FilterBlueVerified:
		return "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.blue_verified)", nil, nil
	}
	return "", nil, fmt.Errorf("sqlite: search: unsupported filter %d: %w", k, social.ErrInvalid)
}

// authorIn compiles from:NAME to the ids of the users with that screen
// name who are not shadow-banned (SPEC 4.17: their posts never match).
func (c *compiler) authorIn(name string) (string, []any, error) {
	rows, err := c.s.query(c.ctx, `SELECT id FROM users WHERE screen_name = ? COLLATE NOCASE AND shadow_banned = 0`, name)
	if err != nil {
		return "", nil, err
	}
	defer rows.Close()
	var ids []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return "", nil, fmt.Errorf("sqlite: search: from: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", nil, fmt.Errorf("sqlite: search: from: %w", err)
	}
	if len(ids) == 0 {
		return "0", nil, nil
	}
	return "p.author_id IN (" + placeholders(len(ids)) + ")", ids, nil
}

// children returns the children of an And or Or node and the SQL and FTS5
// operator that joins them.
func children(n search.Node) ([]search.Node, string) {
	if o, ok := n.(search.Or); ok {
		return o.Children, " OR "
	}
	if a, ok := n.(search.And); ok {
		return a.Children, " AND "
	}
	return nil, " AND "
}
