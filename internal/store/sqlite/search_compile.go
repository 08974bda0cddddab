package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// compiler turns a search AST into SQL. Every node compiles to an exact
// condition over the posts row (alias p): plain columns, the tag and
// mention tables, and the SQL functions of search_func.go that re-tokenise
// the text exactly as search.IndexText does. Full-text and index lookups
// only choose which rows to look at (see search_plan.go); they never decide
// a match on their own. Every value is bound as a parameter; FTS5 terms are
// quoted.
type compiler struct {
	s   *Store
	ctx context.Context
}

// cond is a compiled SQL condition and its arguments.
type cond struct {
	sql  string
	args []any
	cost cost
}

// cost classes a condition by what evaluating it on one row takes. SQLite
// evaluates the terms of an AND in the order written, so conjunctions put
// cheaper terms first: a row that fails a column test never reaches the
// lookups or the text functions.
type cost int

const (
	costColumn cost = iota // columns of the row only
	costLookup             // an index lookup in another table
	costText               // a text function (re-tokenising the post)
)

var (
	condTrue  = cond{sql: "1"}
	condFalse = cond{sql: "0"}
)

// join joins conditions with op (" AND " or " OR "); the terms of an AND
// are ordered cheapest first (see cost).
func join(cs []cond, op string) cond {
	if op == " AND " {
		cs = slices.Clone(cs)
		slices.SortStableFunc(cs, func(a, b cond) int { return cmp.Compare(a.cost, b.cost) })
	}
	var parts []string
	var args []any
	var c cost
	for _, x := range cs {
		parts = append(parts, x.sql)
		args = append(args, x.args...)
		c = max(c, x.cost)
	}
	return cond{sql: "(" + strings.Join(parts, op) + ")", args: args, cost: c}
}

// cond compiles any node into an exact SQL condition over alias p.
func (c *compiler) cond(n search.Node) (cond, error) {
	switch n := n.(type) {
	case search.And, search.Or:
		kids, op := children(n)
		if len(kids) == 0 {
			return condTrue, nil
		}
		cs := make([]cond, 0, len(kids))
		for _, k := range kids {
			x, err := c.cond(k)
			if err != nil {
				return cond{}, err
			}
			cs = append(cs, x)
		}
		return join(cs, op), nil
	case search.Not:
		x, err := c.cond(n.Child)
		if err != nil {
			return cond{}, err
		}
		return cond{sql: "NOT " + x.sql, args: x.args, cost: x.cost}, nil
	case search.Word:
		return textCond(wordPattern(n.Text)), nil
	case search.Phrase:
		return textCond(phrasePattern(n.Words)), nil
	case search.URL:
		return cond{sql: fmt.Sprintf("((p.flags & %d) != 0 AND %s(p.entities, ?))", sqlstore.FlagLinks, fnURL),
			args: []any{n.Sub}, cost: costText}, nil
	case search.Hashtag:
		return cond{sql: "EXISTS (SELECT 1 FROM post_tags WHERE tag = ? AND post_id = p.id)",
			args: []any{"#" + strings.ToLower(n.Tag)}, cost: costLookup}, nil
	case search.Cashtag:
		return cond{sql: "EXISTS (SELECT 1 FROM post_tags WHERE tag = ? AND post_id = p.id)",
			args: []any{"$" + strings.ToLower(n.Tag)}, cost: costLookup}, nil
	case search.Mention:
		return cond{sql: "EXISTS (SELECT 1 FROM post_mentions WHERE name = ? AND post_id = p.id)",
			args: []any{strings.ToLower(n.User)}, cost: costLookup}, nil
	case search.From:
		ids, err := c.authors(n.User)
		if err != nil {
			return cond{}, err
		}
		return authorCond(ids), nil
	case search.To:
		return cond{sql: "(p.reply_to_id != 0 AND p.reply_to_screen_name = ? COLLATE NOCASE)", args: []any{n.User}}, nil
	case search.Lang:
		return cond{sql: "lower(p.lang) = ?", args: []any{n.Code}}, nil
	case search.ListMembers:
		return cond{sql: "p.author_id IN (SELECT user_id FROM list_members WHERE list_id = ?)", args: []any{n.ListID},
			cost: costLookup}, nil
	case search.IDBound:
		if n.Max {
			return cond{sql: "p.id <= ?", args: []any{n.ID}}, nil
		}
		return cond{sql: "p.id > ?", args: []any{n.ID}}, nil
	case search.TimeBound:
		if n.Since {
			return cond{sql: "p.created_at >= ?", args: []any{n.T.UnixMicro()}}, nil
		}
		return cond{sql: "p.created_at < ?", args: []any{n.T.UnixMicro()}}, nil
	case search.Ref:
		return refCond(n)
	case search.MinCount:
		col, ok := countColumns[n.Kind]
		if !ok {
			break
		}
		return cond{sql: col + " >= ?", args: []any{n.N}}, nil
	case search.Filter:
		return filterCond(n.Kind)
	}
	return cond{}, fmt.Errorf("sqlite: search: unsupported condition %T: %w", n, social.ErrInvalid)
}

var countColumns = map[search.CountKind]string{
	search.Faves:    "p.favorite_count",
	search.Retweets: "p.retweet_count",
	search.Replies:  "p.reply_count",
}

// textCond matches the index-token pattern against the post text; an empty
// pattern (nothing searchable) matches nothing.
func textCond(pattern string) cond {
	if pattern == "" {
		return condFalse
	}
	return cond{sql: fnMatch + "(p.text, ?)", args: []any{pattern}, cost: costText}
}

// wordPattern is the roost_match pattern of a Word: its index token (the
// tokens, in order, should QueryTokens ever give several).
func wordPattern(text string) string {
	return strings.Join(search.QueryTokens(text), " ")
}

// phrasePattern is the roost_match pattern of a Phrase: its words' tokens
// in order, "*" standing for one arbitrary token. Wildcards at either end
// constrain nothing (a phrase matches in the middle of any text) and are
// dropped; a phrase of wildcards only is empty.
func phrasePattern(words []string) string {
	toks := search.PhraseTokens(words)
	for len(toks) > 0 && toks[0] == "*" {
		toks = toks[1:]
	}
	for len(toks) > 0 && toks[len(toks)-1] == "*" {
		toks = toks[:len(toks)-1]
	}
	return strings.Join(toks, " ")
}

func refCond(n search.Ref) (cond, error) {
	switch n.Kind {
	case search.RefConversation:
		return cond{sql: "p.conversation_id = ?", args: []any{n.ID}}, nil
	case search.RefQuotedTweet:
		return cond{sql: "(p.quoted_id != 0 AND p.quoted_id = ?)", args: []any{n.ID}}, nil
	case search.RefQuotedUser:
		return cond{sql: "(p.quoted_id != 0 AND EXISTS (SELECT 1 FROM posts q WHERE q.id = p.quoted_id AND q.author_id = ?))",
			args: []any{n.ID}, cost: costLookup}, nil
	case search.RefInReplyTo:
		return cond{sql: "(p.reply_to_id != 0 AND p.reply_to_id = ?)", args: []any{n.ID}}, nil
	}
	return cond{}, fmt.Errorf("sqlite: search: unsupported reference kind %d: %w", n.Kind, social.ErrInvalid)
}

// filterFlags are the filters answered by the stored flag set.
var filterFlags = map[search.FilterKind]int64{
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

// filterCond compiles filter:KIND.
func filterCond(k search.FilterKind) (cond, error) {
	if f, ok := filterFlags[k]; ok {
		return cond{sql: fmt.Sprintf("(p.flags & %d) != 0", f)}, nil
	}
	switch k {
	case search.FilterVerified:
		return cond{sql: "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.verified != 0)", cost: costLookup}, nil
	case search.FilterBlueVerified:
		return cond{sql: "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.blue_verified != 0)", cost: costLookup}, nil
	}
	return cond{}, fmt.Errorf("sqlite: search: unsupported filter %d: %w", k, social.ErrInvalid)
}

// authors resolves from:NAME to the ids of the users with that screen name
// (any case) who are not shadow-banned: a shadow-banned author's posts
// never match from: (docs/search.md, "Rules").
func (c *compiler) authors(name string) ([]int64, error) {
	rows, err := c.s.query(c.ctx, `SELECT id FROM users WHERE screen_name = ? COLLATE NOCASE AND shadow_banned = 0`, name)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search: from:%s: %w", name, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("sqlite: search: from:%s: %w", name, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search: from:%s: %w", name, err)
	}
	return ids, nil
}

func authorCond(ids []int64) cond {
	if len(ids) == 0 {
		return condFalse
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return cond{sql: "p.author_id IN (" + sqlstore.Placeholders(len(ids)) + ")", args: args}
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
