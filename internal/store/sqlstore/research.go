// Research: counts over time, top values, walks and interactions of the
// posts a search query matches, over the match each engine compiles.

package sqlstore

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	gojson "github.com/goccy/go-json"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Match is the set of posts a search query matches, compiled by an engine
// into SQL over posts p: rows of From that satisfy Where and whose Key lies
// in (Lo, Hi].
type Match struct {
	// From binds posts as p (after whatever drives the walk).
	From string
	// Where is the exact condition of the query over the tables of From,
	// with ? placeholders.
	Where string
	// Args bind the placeholders of From, then those of Where.
	Args []any
	// Key is an expression equal to p.id, in whose order From gives its
	// rows cheaply.
	Key string
	// Lo and Hi bound the ids: Lo < id <= Hi.
	Lo, Hi int64
	// Empty is set when nothing can match: there is no statement to run.
	Empty bool
}

// Research answers social.Researcher on one engine: the SQL below, written
// once, over the Match the engine compiles. Stores embed it.
type Research struct {
	DB DB
	// Compile compiles a query; walk is set when the match will be read in
	// Key order (SearchWalk), which rules out drivers whose rows must be
	// sorted unless they are few.
	Compile func(ctx context.Context, q *search.Query, walk bool) (Match, error)
}

// selectMatch is "SELECT cols FROM … WHERE …" of the match with ids in
// (lo, hi], and its arguments; extra is ANDed to the condition.
func selectMatch(m Match, cols, extra string, lo, hi int64) (string, []any) {
	q := "SELECT " + cols + " FROM " + m.From + " WHERE " + m.Where + " AND " + m.Key + " > ? AND " + m.Key + " <= ?"
	if extra != "" {
		q += " AND " + extra
	}
	return q, append(slices.Clip(m.Args), lo, hi)
}

// periodStart is the SQL expression of the start of the period of width
// micros (a constant) holding p.created_at, floored also before 1970.
func periodStart(micros int64) string { return PeriodStart("p.created_at", micros) }

// PeriodStart is the SQL expression of the start of the period of width
// micros (a constant) holding the time t (an SQL expression of micros),
// floored also before 1970; "0" when micros is not positive.
func PeriodStart(t string, micros int64) string {
	if micros <= 0 {
		return "0"
	}
	w := strconv.FormatInt(micros, 10)
	return "(" + t + " - ((" + t + " % " + w + ") + " + w + ") % " + w + ")"
}

// SearchCounts counts the matches by period (social.Researcher).
func (r Research) SearchCounts(ctx context.Context, q *search.Query, g social.Granularity) ([]social.Bucket, error) {
	if g == social.NoGranularity {
		return nil, fmt.Errorf("counts: a granularity is required: %w", social.ErrInvalid)
	}
	m, err := r.Compile(ctx, q, false)
	if err != nil || m.Empty {
		return []social.Bucket{}, err
	}
	sel, args := selectMatch(m, periodStart(g.Micros())+" AS b", "", m.Lo, m.Hi)
	out := []social.Bucket{}
	err = r.DB.Query(ctx, "SELECT b, count(*) FROM ("+sel+") x GROUP BY b ORDER BY b", args, func(row Rows) error {
		var b social.Bucket
		var start int64
		if err := row.Scan(&start, &b.Count); err != nil {
			return fmt.Errorf("scan count: %w", err)
		}
		b.Start = FromMicros(start)
		out = append(out, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("counts: %w", err)
	}
	return out, nil
}

// unmarshalEntities decodes stored entities with github.com/goccy/go-json,
// several times faster than encoding/json here (the stored JSON is roost's
// own encoding/json output, so the two read it alike); encoding/json
// decides when the fast decoder refuses it.
func unmarshalEntities(raw []byte, e *social.Entities) error {
	if err := gojson.Unmarshal(raw, e); err != nil {
		*e = social.Entities{}
		return json.Unmarshal(raw, e)
	}
	return nil
}

// columnTop are the fields counted by SQL: the value expression over p and
// the condition a post must meet to have one.
var columnTop = map[social.TopField]struct{ value, cond string }{
	social.TopAuthors: {"p.author_id", ""},
	social.TopLang:    {"p.lang", ""},
	social.TopReplyTo: {"p.reply_to_user_id", "p.reply_to_id <> 0 AND p.reply_to_user_id <> 0"},
	social.TopQuotedUsers: {"(SELECT q.author_id FROM posts q WHERE q.id = p.quoted_id)",
		"p.quoted_id <> 0"},
}

// entityTop are the fields read from the entities of the posts with a flag.
var entityTop = map[social.TopField]int64{
	social.TopHashtags: FlagHashtags,
	social.TopCashtags: 0, // no flag: cashtags are not flagged
	social.TopMentions: FlagMentions,
	social.TopURLs:     FlagLinks,
	social.TopDomains:  FlagLinks,
}

// SearchTop ranks the values of a field among the matches
// (social.Researcher). Ties go by the key: the user id of user fields, the
// value of the others.
func (r Research) SearchTop(ctx context.Context, q *search.Query, field social.TopField, limit int,
	g social.Granularity) ([]social.TopPeriod, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("top: limit must be positive: %w", social.ErrInvalid)
	}
	m, err := r.Compile(ctx, q, false)
	if err != nil || m.Empty {
		return []social.TopPeriod{}, err
	}
	t := NewTally(limit)
	bucket := periodStart(g.Micros())
	switch {
	case columnTop[field].value != "":
		c := columnTop[field]
		sel, args := selectMatch(m, bucket+" AS b, "+c.value+" AS v", c.cond, m.Lo, m.Hi)
		err = r.DB.Query(ctx, "SELECT b, v, count(*) FROM ("+sel+") x WHERE v IS NOT NULL GROUP BY b, v", args,
			func(row Rows) error {
				var b, n int64
				if field == social.TopLang {
					var v string
					if err := row.Scan(&b, &v, &n); err != nil {
						return fmt.Errorf("scan top: %w", err)
					}
					t.Add(b, v, social.TopValue{Value: v}, n)
					return nil
				}
				var id int64
				if err := row.Scan(&b, &id, &n); err != nil {
					return fmt.Errorf("scan top: %w", err)
				}
				t.Add(b, userKey(id), social.TopValue{UserID: id}, n)
				return nil
			})
	case field == social.TopSource:
		sel, args := selectMatch(m, bucket+" AS b, p.source AS v", "", m.Lo, m.Hi)
		err = r.DB.Query(ctx, "SELECT b, v, count(*) FROM ("+sel+") x GROUP BY b, v", args, func(row Rows) error {
			var b, n int64
			var v string
			if err := row.Scan(&b, &v, &n); err != nil {
				return fmt.Errorf("scan top: %w", err)
			}
			if name := social.SourceName(v); name != "" {
				t.Add(b, name, social.TopValue{Value: name}, n)
			}
			return nil
		})
	default:
		flag, ok := entityTop[field]
		if !ok {
			return nil, fmt.Errorf("top: unknown field %q: %w", field, social.ErrInvalid)
		}
		extra := ""
		if flag != 0 {
			extra = fmt.Sprintf("(p.flags & %d) <> 0", flag)
		}
		sel, args := selectMatch(m, bucket+", p.entities", extra, m.Lo, m.Hi)
		err = r.DB.Query(ctx, sel, args, func(row Rows) error {
			var b int64
			var raw []byte
			if err := row.Scan(&b, &raw); err != nil {
				return fmt.Errorf("scan top: %w", err)
			}
			var e social.Entities
			if len(raw) > 2 {
				if err := unmarshalEntities(raw, &e); err != nil {
					return fmt.Errorf("top: stored entities: %w", err)
				}
			}
			for _, v := range social.EntityValues(&e, field) {
				t.Add(b, v.Key, v.TopValue, 1)
			}
			return nil
		})
	}
	if err != nil {
		return nil, fmt.Errorf("top %s: %w", field, err)
	}
	if field == social.TopReplyTo || field == social.TopMentions {
		// The posts that stay still name a deleted account they replied
		// to or mentioned: it is no value of theirs.
		deleted, err := DeletedUsers(ctx, r.DB)
		if err != nil {
			return nil, fmt.Errorf("top %s: %w", field, err)
		}
		t.Drop(func(v *social.TopValue) bool { return deleted[v.UserID] })
	}
	periods := t.Periods(g)
	if field.Users() && field != social.TopMentions {
		if err := r.names(ctx, periods); err != nil {
			return nil, err
		}
	}
	return periods, nil
}

func userKey(id int64) string { return fmt.Sprintf("%020d", id) }

// names fills in the screen names of user values.
func (r Research) names(ctx context.Context, periods []social.TopPeriod) error {
	var ids []any
	seen := map[int64]bool{}
	for _, p := range periods {
		for _, v := range p.Values {
			if !seen[v.UserID] {
				seen[v.UserID] = true
				ids = append(ids, v.UserID)
			}
		}
	}
	names := map[int64]string{}
	_, err := in(ctx, r.DB, `SELECT u.id, u.screen_name FROM users u WHERE u.id IN (%s)`, ids,
		func(row Rows) (struct{}, error) {
			var id int64
			var name string
			err := row.Scan(&id, &name)
			names[id] = name
			return struct{}{}, err
		})
	if err != nil {
		return fmt.Errorf("top: user names: %w", err)
	}
	for _, p := range periods {
		for i := range p.Values {
			p.Values[i].Value = names[p.Values[i].UserID]
		}
	}
	return nil
}

// Tally counts values by period and keeps the most common.
type Tally struct {
	limit int
	by    map[int64]map[string]*social.TopValue
}

// NewTally is a tally that keeps the limit most common values of each
// period.
func NewTally(limit int) *Tally {
	return &Tally{limit: limit, by: map[int64]map[string]*social.TopValue{}}
}

// Add counts n more posts of the value keyed key in period b (micros).
func (t *Tally) Add(b int64, key string, v social.TopValue, n int64) {
	m := t.by[b]
	if m == nil {
		m = map[string]*social.TopValue{}
		t.by[b] = m
	}
	if x := m[key]; x != nil {
		x.Count += n
		if x.UserID == 0 {
			x.UserID = v.UserID
		}
		return
	}
	v.Count = n
	m[key] = &v
}

// Drop forgets the values gone says are to go.
func (t *Tally) Drop(gone func(*social.TopValue) bool) {
	for _, m := range t.by {
		maps.DeleteFunc(m, func(_ string, v *social.TopValue) bool { return gone(v) })
	}
}

// Periods are the top values of each period, oldest first; ties go by
// key.
func (t *Tally) Periods(g social.Granularity) []social.TopPeriod {
	starts := make([]int64, 0, len(t.by))
	for b := range t.by {
		starts = append(starts, b)
	}
	slices.Sort(starts)
	out := make([]social.TopPeriod, 0, len(starts))
	for _, b := range starts {
		type kv struct {
			key string
			v   *social.TopValue
		}
		vs := make([]kv, 0, len(t.by[b]))
		for k, v := range t.by[b] {
			vs = append(vs, kv{k, v})
		}
		slices.SortFunc(vs, func(a, c kv) int {
			if a.v.Count != c.v.Count {
				return cmp.Compare(c.v.Count, a.v.Count)
			}
			return cmp.Compare(a.key, c.key)
		})
		p := social.TopPeriod{Values: make([]social.TopValue, 0, min(len(vs), t.limit))}
		if g != social.NoGranularity {
			p.Start = FromMicros(b)
		}
		for _, x := range vs[:min(len(vs), t.limit)] {
			p.Values = append(p.Values, *x.v)
		}
		out = append(out, p)
	}
	return out
}

// SearchWalk calls fn with the matches in id order (social.Researcher).
func (r Research) SearchWalk(ctx context.Context, q *search.Query, after int64, chunk int,
	fn func([]social.Post) error) error {
	if chunk <= 0 {
		return fmt.Errorf("walk: chunk must be positive: %w", social.ErrInvalid)
	}
	m, err := r.Compile(ctx, q, true)
	if err != nil || m.Empty {
		return err
	}
	lo := max(m.Lo, after)
	for lo < m.Hi {
		sel, args := selectMatch(m, PostColumns, "", lo, m.Hi)
		posts := make([]social.Post, 0, chunk)
		err := r.DB.Query(ctx, sel+" ORDER BY "+m.Key+" LIMIT ?", append(args, chunk), func(row Rows) error {
			p, err := ScanPost(row)
			posts = append(posts, p)
			return err
		})
		if err != nil {
			return fmt.Errorf("walk: %w", err)
		}
		if len(posts) == 0 {
			return nil
		}
		if err := fn(posts); err != nil {
			return err
		}
		if len(posts) < chunk {
			return nil
		}
		lo = posts[len(posts)-1].ID
	}
	return nil
}

// interactionChunk is how many interactions SearchInteractions hands fn at
// once.
const interactionChunk = 1000

// SearchInteractions calls fn with the interactions of every match
// (social.Researcher).
func (r Research) SearchInteractions(ctx context.Context, q *search.Query, fn func([]social.Interaction) error) error {
	m, err := r.Compile(ctx, q, false)
	if err != nil || m.Empty {
		return err
	}
	cols := fmt.Sprintf(`p.id, p.author_id, CASE WHEN p.reply_to_id <> 0 THEN p.reply_to_user_id ELSE 0 END,
		CASE WHEN p.quoted_id <> 0 THEN coalesce((SELECT q.author_id FROM posts q WHERE q.id = p.quoted_id), 0) ELSE 0 END,
		CASE WHEN p.repost_of_id <> 0 THEN coalesce((SELECT r.author_id FROM posts r WHERE r.id = p.repost_of_id), 0) ELSE 0 END,
		CASE WHEN (p.flags & %d) <> 0 THEN p.entities ELSE '{}' END`, FlagMentions)
	sel, args := selectMatch(m, cols, "", m.Lo, m.Hi)
	// What the posts that stay say of a deleted account (a reply to it, a
	// mention of it) is no interaction.
	deleted, err := DeletedUsers(ctx, r.DB)
	if err != nil {
		return fmt.Errorf("interactions: %w", err)
	}
	batch := make([]social.Interaction, 0, interactionChunk)
	err = r.DB.Query(ctx, sel, args, func(row Rows) error {
		var x social.Interaction
		var raw []byte
		if err := row.Scan(&x.PostID, &x.AuthorID, &x.ReplyToUserID, &x.QuotedAuthorID, &x.RepostAuthorID, &raw); err != nil {
			return fmt.Errorf("scan interaction: %w", err)
		}
		if len(raw) > 2 {
			var e social.Entities
			if err := unmarshalEntities(raw, &e); err != nil {
				return fmt.Errorf("post %d entities: %w", x.PostID, err)
			}
			x.Mentions = e.Mentions
		}
		if deleted != nil {
			if deleted[x.ReplyToUserID] {
				x.ReplyToUserID = 0
			}
			x.Mentions = slices.DeleteFunc(x.Mentions, func(m social.Mention) bool { return deleted[m.UserID] })
		}
		batch = append(batch, x)
		if len(batch) == interactionChunk {
			if err := fn(batch); err != nil {
				return err
			}
			batch = make([]social.Interaction, 0, interactionChunk)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("interactions: %w", err)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}
