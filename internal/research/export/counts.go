package export

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// MaxBuckets is the most periods one counts answer holds.
const MaxBuckets = 10_000

// Counts is the answer to a counts request, shaped as the X API v2 counts
// endpoint answers (which twarc2 counts reads): every period from the
// query's since: (or the first match) to its until: (or the last match),
// zeros included.
type Counts struct {
	Data []CountsBucket `json:"data"`
	Meta CountsMeta     `json:"meta"`
}

// CountsBucket is one period.
type CountsBucket struct {
	Start      string `json:"start"`
	End        string `json:"end"`
	TweetCount int64  `json:"tweet_count"`
}

// CountsMeta sums the periods.
type CountsMeta struct {
	TotalTweetCount int64  `json:"total_tweet_count"`
	Granularity     string `json:"granularity"`
}

// NewCounts fills the periods between q's time bounds (or the first and
// last match) and shapes them; more than MaxBuckets periods are refused
// (social.ErrInvalid).
func NewCounts(buckets []social.Bucket, q *search.Query, g social.Granularity) (Counts, error) {
	since, until := search.TimeRange(q)
	filled, err := social.FillBuckets(buckets, g, since, until, MaxBuckets)
	if err != nil {
		return Counts{}, err
	}
	c := Counts{Data: make([]CountsBucket, len(filled)), Meta: CountsMeta{Granularity: g.String()}}
	for i, b := range filled {
		c.Data[i] = CountsBucket{Start: formatTime(b.Start), End: formatTime(b.Start.Add(g.Duration())), TweetCount: b.Count}
		c.Meta.TotalTweetCount += b.Count
	}
	return c, nil
}

// WriteCSV writes the periods as twarc2 counts --csv does: start, end,
// tweet_count.
func (c Counts) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"start", "end", "tweet_count"}) //nolint:errcheck // Flush reports it
	for _, b := range c.Data {
		cw.Write([]string{b.Start, b.End, strconv.FormatInt(b.TweetCount, 10)}) //nolint:errcheck
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write counts: %w", err)
	}
	return nil
}

// WriteJSON writes c as one JSON document.
func (c Counts) WriteJSON(w io.Writer) error { return writeJSON(w, c) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// Top is the answer to a top-values request: the values of the whole set,
// or of each period.
type Top struct {
	Field       string      `json:"field"`
	Granularity string      `json:"granularity,omitempty"`
	Values      []TopValue  `json:"values,omitempty"`
	Periods     []TopPeriod `json:"periods,omitempty"`
}

// TopValue is one value: for user fields, IDStr is the user ("" when not
// known) and Value the screen name.
type TopValue struct {
	Value string  `json:"value"`
	IDStr *string `json:"id_str,omitempty"`
	Count int64   `json:"count"`
}

// TopPeriod is the top values of one period.
type TopPeriod struct {
	Start  string     `json:"start"`
	End    string     `json:"end"`
	Values []TopValue `json:"values"`
}

// NewTop shapes the top values of field.
func NewTop(periods []social.TopPeriod, field social.TopField, g social.Granularity) Top {
	t := Top{Field: string(field)}
	values := func(vs []social.TopValue) []TopValue {
		out := make([]TopValue, len(vs))
		for i, v := range vs {
			out[i] = TopValue{Value: v.Value, Count: v.Count}
			if field.Users() {
				id := ""
				if v.UserID != 0 {
					id = strconv.FormatInt(v.UserID, 10)
				}
				out[i].IDStr = &id
			}
		}
		return out
	}
	if g == social.NoGranularity {
		t.Values = []TopValue{}
		if len(periods) > 0 {
			t.Values = values(periods[0].Values)
		}
		return t
	}
	t.Granularity = g.String()
	t.Periods = make([]TopPeriod, len(periods))
	for i, p := range periods {
		t.Periods[i] = TopPeriod{Start: formatTime(p.Start), End: formatTime(p.Start.Add(g.Duration())), Values: values(p.Values)}
	}
	return t
}

// Len is the number of values t holds, over every period.
func (t Top) Len() int {
	n := len(t.Values)
	for _, p := range t.Periods {
		n += len(p.Values)
	}
	return n
}

// WriteCSV writes one row per value: [start, end,] value, [id,] count.
func (t Top) WriteCSV(w io.Writer, users bool) error {
	cw := csv.NewWriter(w)
	head := []string{"value"}
	if users {
		head = append(head, "id")
	}
	head = append(head, "count")
	row := func(prefix []string, v TopValue) []string {
		r := append(prefix, v.Value)
		if users {
			r = append(r, *v.IDStr)
		}
		return append(r, strconv.FormatInt(v.Count, 10))
	}
	if t.Periods == nil {
		cw.Write(head) //nolint:errcheck // Flush reports it
		for _, v := range t.Values {
			cw.Write(row(nil, v)) //nolint:errcheck
		}
	} else {
		cw.Write(append([]string{"start", "end"}, head...)) //nolint:errcheck
		for _, p := range t.Periods {
			for _, v := range p.Values {
				cw.Write(row([]string{p.Start, p.End}, v)) //nolint:errcheck
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write top values: %w", err)
	}
	return nil
}

// WriteJSON writes t as one JSON document.
func (t Top) WriteJSON(w io.Writer) error { return writeJSON(w, t) }
