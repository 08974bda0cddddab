package sqlite

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	sqlite3 "modernc.org/sqlite"
)

// Aggregates in Go for the research readers: they count in one pass and a
// map, where GROUP BY sorts every row first (at two million rows, most of
// the time of a count).
const (
	// fnPeriods is roost_periods(t, width): times t (micros) counted by
	// period of width micros; its value is "start count start count …",
	// oldest first ("" of no rows).
	fnPeriods = "roost_periods"
	// fnTallyTags is roost_tally_tags(b, tags): the keys of tags (a
	// post_hashtags row: "byte length:key" repeated) counted by period
	// start b and key; its value is a JSON array of tallyRow ("" of no
	// rows).
	fnTallyTags = "roost_tally_tags"
)

// periodsAgg is one roost_periods. Rows in time order (the index's) add
// to the current run without a map look-up.
type periodsAgg struct {
	run, n int64 // the period of the current run, and its rows so far
	counts map[int64]int64
}

func (a *periodsAgg) Step(_ *sqlite3.FunctionContext, args []driver.Value) error {
	t, ok1 := args[0].(int64)
	w, ok2 := args[1].(int64)
	if !ok1 || !ok2 || w <= 0 {
		return fmt.Errorf("%s: integer arguments and a positive width are required", fnPeriods)
	}
	b := t - ((t%w)+w)%w
	if a.n > 0 && b == a.run {
		a.n++
		return nil
	}
	a.flush()
	a.run, a.n = b, 1
	return nil
}

func (a *periodsAgg) flush() {
	if a.n == 0 {
		return
	}
	if a.counts == nil {
		a.counts = map[int64]int64{}
	}
	a.counts[a.run] += a.n
	a.n = 0
}

func (a *periodsAgg) WindowInverse(*sqlite3.FunctionContext, []driver.Value) error {
	return fmt.Errorf("%s is not a window function", fnPeriods)
}

func (a *periodsAgg) WindowValue(*sqlite3.FunctionContext) (driver.Value, error) {
	a.flush()
	starts := make([]int64, 0, len(a.counts))
	for b := range a.counts {
		starts = append(starts, b)
	}
	slices.Sort(starts)
	var out []byte
	for _, b := range starts {
		out = strconv.AppendInt(out, b, 10)
		out = append(out, ' ')
		out = strconv.AppendInt(out, a.counts[b], 10)
		out = append(out, ' ')
	}
	return string(out), nil
}

func (a *periodsAgg) Final(*sqlite3.FunctionContext) {}

// tallyRow is a key's count in a period, as roost_tally gives it.
type tallyRow struct {
	B   int64  `json:"b"`
	Key string `json:"k"`
	N   int64  `json:"n"`
}

type tallyKey struct {
	b   int64
	key string
}

// tallyAgg is one roost_tally_tags. Its text argument is a view into
// SQLite's memory (VolatileArgs): a key is copied when first seen, and
// counts are updated through pointers, never by assigning to the map (which
// would store the view as the key).
type tallyAgg struct{ counts map[tallyKey]*int64 }

func (a *tallyAgg) Step(_ *sqlite3.FunctionContext, args []driver.Value) error {
	b, ok1 := args[0].(int64)
	tags, ok2 := args[1].(string)
	if !ok1 || !ok2 {
		return fmt.Errorf("%s: an integer period and a text row are required", fnTallyTags)
	}
	if a.counts == nil {
		a.counts = map[tallyKey]*int64{}
	}
	for tags != "" {
		n, rest, ok := strings.Cut(tags, ":")
		size, err := strconv.Atoi(n)
		if !ok || err != nil || size < 0 || size > len(rest) {
			return fmt.Errorf("%s: %q is not a post_hashtags row", fnTallyTags, strings.Clone(tags))
		}
		if c := a.counts[tallyKey{b, rest[:size]}]; c != nil {
			*c++
		} else {
			one := int64(1)
			a.counts[tallyKey{b, strings.Clone(rest[:size])}] = &one
		}
		tags = rest[size:]
	}
	return nil
}

func (a *tallyAgg) WindowInverse(*sqlite3.FunctionContext, []driver.Value) error {
	return fmt.Errorf("%s is not a window function", fnTallyTags)
}

func (a *tallyAgg) WindowValue(*sqlite3.FunctionContext) (driver.Value, error) {
	if len(a.counts) == 0 {
		return "", nil
	}
	rows := make([]tallyRow, 0, len(a.counts))
	for k, n := range a.counts {
		rows = append(rows, tallyRow{B: k.b, Key: k.key, N: *n})
	}
	out, err := json.Marshal(rows)
	return string(out), err
}

func (a *tallyAgg) Final(*sqlite3.FunctionContext) {}

func init() {
	sqlite3.MustRegisterFunction(fnPeriods, &sqlite3.FunctionImpl{NArgs: 2, Deterministic: true,
		MakeAggregate: func(sqlite3.FunctionContext) (sqlite3.AggregateFunction, error) { return &periodsAgg{}, nil }})
	sqlite3.MustRegisterFunction(fnTallyTags, &sqlite3.FunctionImpl{NArgs: 2, Deterministic: true, VolatileArgs: true,
		MakeAggregate: func(sqlite3.FunctionContext) (sqlite3.AggregateFunction, error) { return &tallyAgg{}, nil }})
}
