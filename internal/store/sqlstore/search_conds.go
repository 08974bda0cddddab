package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Cond compiles a lowered condition into an exact SQL condition over
// posts p: every condition but text matching, which the dialect gives.
func (c SearchCompiler) Cond(ctx context.Context, n search.Cond) (Cond, error) {
	switch n := n.(type) {
	case search.CondAnd:
		return c.join(ctx, n.Conds, " AND ")
	case search.CondOr:
		return c.join(ctx, n.Conds, " OR ")
	case search.CondNot:
		x, err := c.Cond(ctx, n.Cond)
		if err != nil {
			return Cond{}, err
		}
		return Cond{SQL: "NOT " + x.SQL, Args: x.Args, Cost: x.Cost}, nil
	case search.CondText:
		if len(n.Tokens) == 0 {
			return CondFalse, nil
		}
		return c.Search.Text(n), nil
	case search.CondURL:
		return c.Search.URL(n), nil
	case search.CondTag:
		return Cond{SQL: "EXISTS (SELECT 1 FROM post_tags WHERE tag = ? AND post_id = p.id)", Args: []any{n.Key}, Cost: CostLookup}, nil
	case search.CondMention:
		return Cond{SQL: "EXISTS (SELECT 1 FROM post_mentions WHERE name = ? AND post_id = p.id)", Args: []any{n.Name}, Cost: CostLookup}, nil
	case search.CondAuthor:
		return c.author(ctx, n.Name)
	case search.CondReplyTo:
		return Cond{SQL: "(p.reply_to_id != 0 AND " + c.Dialect.Fold("p.reply_to_screen_name") + " = ?)", Args: []any{n.Name}}, nil
	case search.CondLang:
		return Cond{SQL: c.Search.Lang + " = ?", Args: []any{n.Code}}, nil
	case search.CondList:
		return Cond{SQL: "p.author_id IN (SELECT user_id FROM list_members WHERE list_id = ?)", Args: []any{n.ID}, Cost: CostLookup}, nil
	case search.CondID:
		if n.Max {
			return Cond{SQL: "p.id <= ?", Args: []any{n.ID}}, nil
		}
		return Cond{SQL: "p.id > ?", Args: []any{n.ID}}, nil
	case search.CondTime:
		if n.Since {
			return Cond{SQL: "p.created_at >= ?", Args: []any{n.T.UnixMicro()}}, nil
		}
		return Cond{SQL: "p.created_at < ?", Args: []any{n.T.UnixMicro()}}, nil
	case search.CondRef:
		return refCond(n)
	case search.CondCount:
		if col, ok := countColumns[n.Kind]; ok {
			return Cond{SQL: col + " >= ?", Args: []any{n.Min}}, nil
		}
	case search.CondFilter:
		return filterCond(n.Kind)
	}
	return Cond{}, fmt.Errorf("search: unsupported condition %T: %w", n, social.ErrInvalid)
}

// join compiles the conditions of an AND or OR; none is every post.
func (c SearchCompiler) join(ctx context.Context, kids []search.Cond, op string) (Cond, error) {
	if len(kids) == 0 {
		return CondTrue, nil
	}
	cs := make([]Cond, 0, len(kids))
	for _, k := range kids {
		x, err := c.Cond(ctx, k)
		if err != nil {
			return Cond{}, err
		}
		cs = append(cs, x)
	}
	return Join(cs, op), nil
}

var countColumns = map[search.CountKind]string{
	search.Faves:    "p.favorite_count",
	search.Retweets: "p.retweet_count",
	search.Replies:  "p.reply_count",
}

func refCond(n search.CondRef) (Cond, error) {
	switch n.Kind {
	case search.RefConversation:
		return Cond{SQL: "p.conversation_id = ?", Args: []any{n.ID}}, nil
	case search.RefQuotedTweet:
		return Cond{SQL: "(p.quoted_id != 0 AND p.quoted_id = ?)", Args: []any{n.ID}}, nil
	case search.RefQuotedUser:
		return Cond{SQL: "(p.quoted_id != 0 AND EXISTS (SELECT 1 FROM posts q WHERE q.id = p.quoted_id AND q.author_id = ?))",
			Args: []any{n.ID}, Cost: CostLookup}, nil
	case search.RefInReplyTo:
		return Cond{SQL: "(p.reply_to_id != 0 AND p.reply_to_id = ?)", Args: []any{n.ID}}, nil
	}
	return Cond{}, fmt.Errorf("search: unsupported reference kind %d: %w", n.Kind, social.ErrInvalid)
}

// filterFlags are the filters answered by the stored flag set (Flags).
var filterFlags = map[search.FilterKind]int64{
	search.FilterReplies:       FlagReply,
	search.FilterSelfThreads:   FlagSelfThread,
	search.FilterQuote:         FlagQuote,
	search.FilterNativeReposts: FlagRepost,
	search.FilterRetweets:      FlagRepost | FlagOldRetweet,
	search.FilterMedia:         FlagMedia,
	search.FilterImages:        FlagImages,
	search.FilterVideos:        FlagVideos,
	search.FilterLinks:         FlagLinks,
	search.FilterMentions:      FlagMentions,
	search.FilterHashtags:      FlagHashtags,
	search.FilterHasEngagement: FlagEngagement,
}

// filterCond compiles filter:KIND.
func filterCond(k search.FilterKind) (Cond, error) {
	if f, ok := filterFlags[k]; ok {
		return Cond{SQL: fmt.Sprintf("(p.flags & %d) != 0", f)}, nil
	}
	switch k {
	case search.FilterVerified:
		return Cond{SQL: "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.verified)", Cost: CostLookup}, nil
	case search.FilterBlueVerified:
		return Cond{SQL: "EXISTS (SELECT 1 FROM users u WHERE u.id = p.author_id AND u.blue_verified)", Cost: CostLookup}, nil
	}
	return Cond{}, fmt.Errorf("search: unsupported filter %d: %w", k, social.ErrInvalid)
}

// author compiles from:NAME to the ids of the users with that screen name
// (any case) who are not shadow-banned: a shadow-banned author's posts
// never match from:.
func (c SearchCompiler) author(ctx context.Context, name string) (Cond, error) {
	var args []any
	err := c.DB.Query(ctx, `SELECT id FROM users WHERE `+c.Dialect.Fold("screen_name")+` = ? AND NOT shadow_banned`,
		[]any{name}, func(r Rows) error {
			var id int64
			if err := r.Scan(&id); err != nil {
				return err
			}
			args = append(args, id)
			return nil
		})
	if err != nil {
		return Cond{}, fmt.Errorf("search: from:%s: %w", name, err)
	}
	if len(args) == 0 {
		return CondFalse, nil
	}
	return Cond{SQL: "p.author_id IN (" + Placeholders(len(args)) + ")", Args: args}, nil
}

// TimeIDs is the id range lo < id <= hi of the posts created within p's
// top-level time bounds (SinceID, UntilID; 0 and MaxInt64 where p sets
// none), which the primary key serves; ok is false when p sets no time
// bound, or when some stored post's id disagrees with its time (the table
// search_time_outliers, which each engine keeps, is not empty).
func TimeIDs(ctx context.Context, db DB, p *search.Plan) (lo, hi int64, ok bool, err error) {
	if p.Since.IsZero() && p.Until.IsZero() {
		return 0, MaxInt64, false, nil
	}
	var outliers bool
	err = db.Query(ctx, `SELECT EXISTS (SELECT 1 FROM search_time_outliers)`, nil, func(r Rows) error { return r.Scan(&outliers) })
	if err != nil {
		return 0, 0, false, fmt.Errorf("search: time bounds: %w", err)
	}
	lo, hi = 0, MaxInt64
	if !p.Since.IsZero() {
		lo = social.SinceID(p.Since)
	}
	if !p.Until.IsZero() {
		hi = social.UntilID(p.Until)
	}
	return lo, hi, !outliers, nil
}
