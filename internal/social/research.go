package social

import (
	"cmp"
	"context"
	"fmt"
	"html"
	"net/url"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/search"
)

// Researcher answers the research questions of a search query: how many
// posts match over time, which values are the most common among them, and
// every match in turn (for exports and networks). Each runs the same parsed
// query as Reader.Search, and none holds the whole set of matches in
// memory.
type Researcher interface {
	// SearchCounts counts the matches of q by the UTC period of their
	// creation time; only periods holding a match are returned, oldest
	// first.
	SearchCounts(ctx context.Context, q *search.Query, g Granularity) ([]Bucket, error)
	// SearchTop returns the limit most common values of field among the
	// matches of q (each value counted once per post), most common first,
	// ties by value; with a granularity, for each period that holds a
	// match, oldest first; with NoGranularity, one period whose Start is
	// zero.
	SearchTop(ctx context.Context, q *search.Query, field TopField, limit int, g Granularity) ([]TopPeriod, error)
	// SearchWalk calls fn with the matches of q in id order (oldest
	// first), in chunks of at most chunk posts, starting after id after
	// (0: from the first). Each post comes once. Chunks are read one at a
	// time: fn may be slow without holding the database.
	SearchWalk(ctx context.Context, q *search.Query, after int64, chunk int, fn func([]Post) error) error
	// SearchInteractions calls fn with the interactions of every match of
	// q (who replied to, quoted, reposted and mentioned whom), in chunks.
	SearchInteractions(ctx context.Context, q *search.Query, fn func([]Interaction) error) error
}

// Granularity is the length of the periods counts and top values are
// grouped by.
type Granularity int

// Granularities. Periods start at whole UTC minutes, hours and days.
const (
	NoGranularity Granularity = iota // one period: the whole set
	Minute
	Hour
	Day
)

// ParseGranularity reads minute, hour or day (any case).
func ParseGranularity(s string) (Granularity, error) {
	switch strings.ToLower(s) {
	case "minute":
		return Minute, nil
	case "hour":
		return Hour, nil
	case "day":
		return Day, nil
	}
	return NoGranularity, fmt.Errorf("granularity %q: must be minute, hour or day: %w", s, ErrInvalid)
}

// String names the granularity as ParseGranularity reads it.
func (g Granularity) String() string {
	switch g {
	case Minute:
		return "minute"
	case Hour:
		return "hour"
	case Day:
		return "day"
	}
	return "none"
}

// Micros is the length of a period in microseconds (0 for NoGranularity).
func (g Granularity) Micros() int64 {
	switch g {
	case Minute:
		return int64(time.Minute / time.Microsecond)
	case Hour:
		return int64(time.Hour / time.Microsecond)
	case Day:
		return int64(24 * time.Hour / time.Microsecond)
	}
	return 0
}

// Duration is the length of a period.
func (g Granularity) Duration() time.Duration { return time.Duration(g.Micros()) * time.Microsecond }

// Start is the start of the period holding t (t itself for NoGranularity).
func (g Granularity) Start(t time.Time) time.Time {
	if g == NoGranularity {
		return t
	}
	return t.UTC().Truncate(g.Duration())
}

// Bucket is the number of matches created in the period that starts at
// Start.
type Bucket struct {
	Start time.Time
	Count int64
}

// FillBuckets returns one bucket for every period from the period of from
// to the period before until (both UTC), zero where buckets has none; zero
// from or until take the first or last bucket's period. It refuses to make
// more than max buckets.
func FillBuckets(buckets []Bucket, g Granularity, from, until time.Time, max int) ([]Bucket, error) {
	if g == NoGranularity {
		return nil, fmt.Errorf("fill buckets: a granularity is required: %w", ErrInvalid)
	}
	d := g.Duration()
	if from.IsZero() {
		if len(buckets) == 0 {
			return []Bucket{}, nil
		}
		from = buckets[0].Start
	}
	if until.IsZero() {
		if len(buckets) == 0 {
			return []Bucket{}, nil
		}
		until = buckets[len(buckets)-1].Start.Add(d)
	}
	first := g.Start(from)
	if !until.After(first) {
		return []Bucket{}, nil
	}
	n := int64((g.Start(until.Add(-time.Microsecond)).Sub(first))/d) + 1
	if n > int64(max) {
		return nil, fmt.Errorf("%d %s periods: at most %d: %w", n, g, max, ErrInvalid)
	}
	out := make([]Bucket, 0, n)
	i := 0
	for t := first; t.Before(until); t = t.Add(d) {
		b := Bucket{Start: t}
		for i < len(buckets) && buckets[i].Start.Before(t) {
			i++
		}
		if i < len(buckets) && buckets[i].Start.Equal(t) {
			b.Count = buckets[i].Count
		}
		out = append(out, b)
	}
	return out, nil
}

// TopField names what SearchTop ranks.
type TopField string

// Top fields.
const (
	TopHashtags    TopField = "hashtags"     // "#tag", lower-cased
	TopCashtags    TopField = "cashtags"     // "$TAG", upper-cased
	TopMentions    TopField = "mentions"     // mentioned screen names, lower-cased, with the user id when known
	TopURLs        TopField = "urls"         // expanded URLs as written
	TopDomains     TopField = "domains"      // host names of the expanded URLs, lower-cased, without "www."
	TopAuthors     TopField = "authors"      // the authors
	TopLang        TopField = "lang"         // language codes
	TopSource      TopField = "source"       // client names (the text of the source anchor)
	TopReplyTo     TopField = "reply_to"     // users replied to (by user id)
	TopQuotedUsers TopField = "quoted_users" // authors of the quoted posts that are stored
)

// TopFields lists the fields in the order they are documented.
func TopFields() []TopField {
	return []TopField{TopHashtags, TopCashtags, TopMentions, TopURLs, TopDomains, TopAuthors, TopLang, TopSource,
		TopReplyTo, TopQuotedUsers}
}

// ParseTopField reads a field name.
func ParseTopField(s string) (TopField, error) {
	for _, f := range TopFields() {
		if string(f) == strings.ToLower(s) {
			return f, nil
		}
	}
	names := make([]string, 0, 10)
	for _, f := range TopFields() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("field %q: must be one of %s: %w", s, strings.Join(names, ", "), ErrInvalid)
}

// Users reports whether the field's values are users.
func (f TopField) Users() bool {
	return f == TopMentions || f == TopAuthors || f == TopReplyTo || f == TopQuotedUsers
}

// TopValue is one value and the number of matches that hold it. For user
// fields, UserID is the user (0 for a mention of an unknown id) and Value
// the screen name as stored ("" when the user is not stored).
type TopValue struct {
	Value  string
	UserID int64
	Count  int64
}

// TopPeriod is the top values of one period.
type TopPeriod struct {
	Start  time.Time
	Values []TopValue
}

// Interaction is what one matching post says about its author: the user it
// replies to, the authors of the posts it quotes and reposts (when those
// are stored), and the users it mentions. Zero ids mean none or unknown.
type Interaction struct {
	PostID         int64
	AuthorID       int64
	ReplyToUserID  int64
	QuotedAuthorID int64
	RepostAuthorID int64
	Mentions       []Mention
}

// KeyedValue is a value of a post for a top field, and the key it is
// counted under.
type KeyedValue struct {
	Key string
	TopValue
}

// EntityValues are the values of a post's entities for field (hashtags,
// cashtags, mentions, urls or domains), each once.
func EntityValues(e *Entities, field TopField) []KeyedValue {
	var out []KeyedValue
	seen := map[string]bool{}
	add := func(key string, v TopValue) {
		if key != "" && !seen[key] {
			seen[key] = true
			out = append(out, KeyedValue{Key: key, TopValue: v})
		}
	}
	switch field {
	case TopHashtags:
		for _, t := range e.Hashtags {
			v := "#" + strings.ToLower(t.Text)
			add(v, TopValue{Value: v})
		}
	case TopCashtags:
		for _, t := range e.Symbols {
			v := "$" + strings.ToUpper(t.Text)
			add(v, TopValue{Value: v})
		}
	case TopMentions:
		for _, m := range e.Mentions {
			v := strings.ToLower(m.ScreenName)
			add(v, TopValue{Value: v, UserID: m.UserID})
		}
	case TopURLs:
		for _, u := range e.URLs {
			v := cmp.Or(u.ExpandedURL, u.URL)
			add(v, TopValue{Value: v})
		}
	case TopDomains:
		for _, u := range e.URLs {
			v := Domain(cmp.Or(u.ExpandedURL, u.URL))
			add(v, TopValue{Value: v})
		}
	}
	return out
}

// Domain is the host name of a link, lower-cased and without a leading
// "www."; "" when the link has none.
func Domain(link string) string {
	if !strings.Contains(link, "://") {
		link = "http://" + link
	}
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// SourceName is the name of the client a post's source names: the text of
// its anchor (`<a href="…">Twitter Web App</a>` is "Twitter Web App"), or
// the source itself when it is not an anchor.
func SourceName(source string) string {
	s := strings.TrimSpace(source)
	if strings.HasPrefix(s, "<a") && strings.HasSuffix(s, "</a>") {
		if i := strings.IndexByte(s, '>'); i >= 0 {
			s = s[i+1 : len(s)-len("</a>")]
		}
	}
	return html.UnescapeString(s)
}
