package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// The research endpoints (roost's own, under the prefix): counts over
// time, top values, exports and networks of the posts a search query
// matches. They bill one item per returned row: a period, a value, a
// post, a node or an edge.

// Granularity is the length of the periods of counts and top values.
type Granularity string

// Granularities.
const (
	Minute Granularity = "minute"
	Hour   Granularity = "hour"
	Day    Granularity = "day"
)

// MaxCountsPeriods is the most periods a counts answer holds (the server
// refuses a query that spans more with 422): what Counts reserves of a
// budget.
const MaxCountsPeriods = 10_000

// Counts is the answer of GET /search/counts, shaped as the X API v2
// counts endpoint: every period from the query's since: (or its first
// match) to its until: (or its last match), zeros included.
type Counts struct {
	Data []CountsPeriod `json:"data"`
	Meta CountsMeta     `json:"meta"`
}

// CountsPeriod is one period and the matches in it.
type CountsPeriod struct {
	Start      Time  `json:"start"`
	End        Time  `json:"end"`
	TweetCount int64 `json:"tweet_count"`
}

// CountsMeta sums the periods.
type CountsMeta struct {
	TotalTweetCount int64       `json:"total_tweet_count"`
	Granularity     Granularity `json:"granularity"`
}

// Counts counts the matches of query by period (g "" is Day). One item per
// period that holds a match is billed, the empty periods are free; under a
// budget it reserves MaxCountsPeriods items while it runs.
func (c *Client) Counts(ctx context.Context, query string, g Granularity) (Counts, error) {
	q := url.Values{"query": {query}}
	if g != "" {
		q.Set("granularity", string(g))
	}
	var out Counts
	err := c.call(ctx, request{method: "GET", path: c.prefix + "/search/counts", query: q, maxItems: MaxCountsPeriods},
		func(b []byte) (int, error) {
			if err := json.Unmarshal(b, &out); err != nil {
				return 0, err
			}
			items := 0
			for _, p := range out.Data {
				if p.TweetCount > 0 {
					items++
				}
			}
			return items, nil
		})
	return out, err
}

// TopField is what TopValues ranks.
type TopField string

// Top fields. The user fields (TopMentions, TopAuthors, TopReplyTo and
// TopQuotedUsers) carry the user's id in TopValue.IDStr.
const (
	TopHashtags    TopField = "hashtags"     // "#tag", lower-cased
	TopCashtags    TopField = "cashtags"     // "$TAG", upper-cased
	TopMentions    TopField = "mentions"     // mentioned screen names, lower-cased
	TopURLs        TopField = "urls"         // expanded URLs
	TopDomains     TopField = "domains"      // host names without "www."
	TopAuthors     TopField = "authors"      // the authors' screen names
	TopLang        TopField = "lang"         // language codes
	TopSource      TopField = "source"       // client names
	TopReplyTo     TopField = "reply_to"     // users replied to
	TopQuotedUsers TopField = "quoted_users" // authors of the quoted posts
)

// TopRequest asks for the most common values of a field among a query's
// matches.
type TopRequest struct {
	Query string
	Field TopField
	// Limit is the most values (per period), 1 to 1,000; 0: the server's
	// default, 10.
	Limit int
	// Granularity, when set, ranks the values of each period apart.
	Granularity Granularity
}

// DefaultTopLimit is the number of values TopValues returns when Limit is 0.
const DefaultTopLimit = 10

// TopValues is the answer of GET /search/top: the values of the whole
// set, or (with a granularity) of each period that has any.
type TopValues struct {
	Field       TopField    `json:"field"`
	Granularity Granularity `json:"granularity,omitempty"`
	Values      []TopValue  `json:"values,omitempty"`
	Periods     []TopPeriod `json:"periods,omitempty"`
}

// Len is the number of values t holds over every period: the items it
// was billed.
func (t *TopValues) Len() int {
	n := len(t.Values)
	for _, p := range t.Periods {
		n += len(p.Values)
	}
	return n
}

// TopValue is one value and the number of matching posts that hold it.
// IDStr is set for user fields: the user's id ("" when not known).
type TopValue struct {
	Value string  `json:"value"`
	IDStr *string `json:"id_str,omitempty"`
	Count int64   `json:"count"`
}

// UserID is the id of a user field's value, 0 when it has none.
func (v *TopValue) UserID() int64 {
	if v.IDStr == nil {
		return 0
	}
	id, _ := parseID(*v.IDStr)
	return id
}

// TopPeriod is the top values of one period.
type TopPeriod struct {
	Start  Time       `json:"start"`
	End    Time       `json:"end"`
	Values []TopValue `json:"values"`
}

// TopValues ranks the values of a field among the matches of a query
// (GET /search/top). One item per value returned is billed. Under a budget it reserves Limit items;
// values by period (Granularity set) are refused there with ErrBudget, as
// the server does not bound the number of periods.
func (c *Client) TopValues(ctx context.Context, r TopRequest) (TopValues, error) {
	if r.Field == "" {
		return TopValues{}, fmt.Errorf("client: top: a field is required")
	}
	q := url.Values{"query": {r.Query}, "field": {string(r.Field)}}
	limit := DefaultTopLimit
	if r.Limit != 0 {
		limit = r.Limit
		q.Set("limit", strconv.Itoa(r.Limit))
	}
	if r.Granularity != "" {
		if c.budget != nil {
			return TopValues{}, fmt.Errorf("%w: top values by period have no bound the client can reserve", ErrBudget)
		}
		q.Set("granularity", string(r.Granularity))
	}
	var out TopValues
	err := c.call(ctx, request{method: "GET", path: c.prefix + "/search/top", query: q, maxItems: int64(limit)},
		func(b []byte) (int, error) {
			if err := json.Unmarshal(b, &out); err != nil {
				return 0, err
			}
			return out.Len(), nil
		})
	return out, err
}

// ExportFormat is the format of an export.
type ExportFormat string

// Export formats.
const (
	ExportCSV   ExportFormat = "csv"   // twarc-csv's tweet columns
	ExportJSONL ExportFormat = "jsonl" // one post a line in the full shape (Tweet)
	ExportIDs   ExportFormat = "ids"   // one post id a line
	ExportV1    ExportFormat = "v1"    // API v1.1 statuses, one a line
	ExportV2    ExportFormat = "v2"    // API v2 pages of 100 posts, one a line (as twarc2 writes them)
)

// ExportRequest asks for the matches of a query as a file.
type ExportRequest struct {
	Query string
	// Format is the file's format ("": ExportCSV).
	Format ExportFormat
	// Limit caps the posts (0: all). A client with a budget requires it.
	Limit int64
}

// Export streams the matches of a query, oldest first, each once, as a
// file in the format asked. The server charges one item per post, in
// chunks of 1,000 debited before each is sent; a balance that runs out
// midway, or any failure after the first chunk, cuts the connection, so
// reading the Stream then fails rather than ending early. Under a budget
// it reserves Limit items and refuses an export without a Limit with
// ErrBudget. See Stream for what the budget is charged.
func (c *Client) Export(ctx context.Context, r ExportRequest) (*Stream, error) {
	q := url.Values{"query": {r.Query}}
	if r.Format != "" {
		q.Set("format", string(r.Format))
	}
	if r.Limit > 0 {
		q.Set("limit", strconv.FormatInt(r.Limit, 10))
	} else if c.budget != nil {
		return nil, fmt.Errorf("%w: an export without a limit has no bound", ErrBudget)
	}
	return c.stream(ctx, request{method: "GET", path: c.prefix + "/search/export", query: q}, r.Limit)
}

// EdgeKind is a kind of edge of a network.
type EdgeKind string

// Edge kinds: the author of a post replied to, quoted, reposted or
// mentioned the target.
const (
	EdgeReply   EdgeKind = "reply"
	EdgeQuote   EdgeKind = "quote"
	EdgeRepost  EdgeKind = "repost"
	EdgeMention EdgeKind = "mention"
)

// NetworkFormat is the file format of a network.
type NetworkFormat string

// Network formats.
const (
	NetworkGEXF    NetworkFormat = "gexf"    // GEXF 1.3, for Gephi
	NetworkGraphML NetworkFormat = "graphml" // GraphML
	NetworkCSV     NetworkFormat = "csv"     // an edge list
)

// NetworkRequest asks for the network of a query's matches.
type NetworkRequest struct {
	Query string
	// Edges are the kinds of edges (none: all four).
	Edges []EdgeKind
	// Format is the file's format ("": NetworkGEXF).
	Format NetworkFormat
	// MinDegree drops the users with fewer edges (0: none dropped).
	MinDegree int
	// MaxNodes keeps the users of most weighted degree (0: all). A client
	// with a budget requires it.
	MaxNodes int
}

// Network streams the network of the matches of a query (users as nodes;
// replies, quotes, reposts and mentions as edges weighted by posts) as a
// file. The server gathers it, charges one item per node and per edge,
// then sends it. Under a budget it reserves the most a network of MaxNodes
// users can hold (each node, and an edge of each kind asked between every
// ordered pair) and refuses one without MaxNodes with ErrBudget.
func (c *Client) Network(ctx context.Context, r NetworkRequest) (*Stream, error) {
	q := url.Values{"query": {r.Query}}
	kinds := 4
	if len(r.Edges) > 0 {
		s := make([]string, len(r.Edges))
		for i, k := range r.Edges {
			s[i] = string(k)
		}
		q.Set("edges", strings.Join(s, ","))
		kinds = len(r.Edges)
	}
	if r.Format != "" {
		q.Set("format", string(r.Format))
	}
	if r.MinDegree > 0 {
		q.Set("min_degree", strconv.Itoa(r.MinDegree))
	}
	var most int64
	if r.MaxNodes > 0 {
		n := int64(r.MaxNodes)
		most = n + n*(n-1)*int64(kinds)
		q.Set("max_nodes", strconv.Itoa(r.MaxNodes))
	} else if c.budget != nil {
		return nil, fmt.Errorf("%w: a network without MaxNodes has no bound", ErrBudget)
	}
	return c.stream(ctx, request{method: "GET", path: c.prefix + "/search/network", query: q}, most)
}

// ExportTweets iterates over the matches of a query, oldest first, each
// once, read from an export in ExportJSONL as it streams (limit 0: all;
// a client with a budget requires one). It ends at the first error, and
// the stream is closed when the loop ends.
func (c *Client) ExportTweets(ctx context.Context, query string, limit int64) iter.Seq2[Tweet, error] {
	return func(yield func(Tweet, error) bool) {
		st, err := c.Export(ctx, ExportRequest{Query: query, Format: ExportJSONL, Limit: limit})
		if err != nil {
			yield(Tweet{}, err)
			return
		}
		defer st.Close()
		dec := json.NewDecoder(st)
		for {
			var t Tweet
			err := dec.Decode(&t)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(Tweet{}, fmt.Errorf("client: export: %w", err))
				return
			}
			if !yield(t, nil) {
				return
			}
		}
	}
}
