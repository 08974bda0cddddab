package client

import (
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestCountsBilling: a counts answer is charged one item per period that
// holds a match, none when nothing matched, and reserves MaxCountsPeriods
// items meanwhile.
func TestCountsBilling(t *testing.T) {
	for _, tc := range []struct {
		body      string
		wantSpent int64
	}{
		{`{"data":[{"start":"2024-01-01T00:00:00.000000Z","end":"2024-01-02T00:00:00.000000Z","tweet_count":3},` +
			`{"start":"2024-01-02T00:00:00.000000Z","end":"2024-01-03T00:00:00.000000Z","tweet_count":0}],` +
			`"meta":{"total_tweet_count":3,"granularity":"day"}}`, 1 * DefaultPrice},
		{`{"data":[{"start":"2024-01-01T00:00:00.000000Z","end":"2024-01-02T00:00:00.000000Z","tweet_count":0}],` +
			`"meta":{"total_tweet_count":0,"granularity":"day"}}`, 0},
	} {
		var query string
		c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
			query = r.URL.RawQuery
			fmt.Fprint(w, tc.body)
		}, WithBudget(MaxCountsPeriods*DefaultPrice, 0))
		got, err := c.Counts(t.Context(), "#go lang:en", Hour)
		if err != nil {
			t.Fatal(err)
		}
		if c.Spent() != tc.wantSpent || query != "granularity=hour&query=%23go+lang%3Aen" ||
			got.Data[0].Start.Day() != 1 || got.Meta.Granularity != Day {
			t.Errorf("spent %d (want %d), query %q, answer %+v", c.Spent(), tc.wantSpent, query, got)
		}
	}
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { t.Error("a request the budget does not cover was sent") },
		WithBudget(MaxCountsPeriods*DefaultPrice-1, 0))
	if _, err := c.Counts(t.Context(), "go", ""); !errors.Is(err, ErrBudget) {
		t.Errorf("err %v, want ErrBudget", err)
	}
}

// TestTopValues: values are charged one item each, over every period; by
// period under a budget is refused before any request.
func TestTopValues(t *testing.T) {
	var calls atomic.Int32
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Query().Get("field") != "authors" || r.URL.Query().Get("limit") != "3" {
			t.Errorf("query %q", r.URL.RawQuery)
		}
		fmt.Fprint(w, `{"field":"authors","values":[{"value":"ann","id_str":"9007199254740993","count":4},`+
			`{"value":"@ghost","id_str":"","count":2}]}`)
	}, WithBudget(3*DefaultPrice, 0))
	top, err := c.TopValues(t.Context(), TopRequest{Query: "go", Field: TopAuthors, Limit: 3})
	if err != nil || top.Len() != 2 || top.Values[0].UserID() != 9007199254740993 || top.Values[1].UserID() != 0 {
		t.Fatalf("%+v %v", top, err)
	}
	if c.Spent() != 2*DefaultPrice {
		t.Errorf("spent %d", c.Spent())
	}
	if _, err := c.TopValues(t.Context(), TopRequest{Query: "go", Field: TopAuthors, Limit: 1, Granularity: Day}); !errors.Is(err, ErrBudget) {
		t.Errorf("by period under a budget: %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
}

// streamServer answers an export of n posts in lines, giving the count as
// a trailer (trailer true) or not at all.
func streamServer(n int, trailer bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Content-Disposition", `attachment; filename="roost-export.jsonl"`)
		for i := range n {
			fmt.Fprintf(w, "{\"id_str\":\"%d\"}\n", i+1)
			w.(http.Flusher).Flush()
		}
		if trailer {
			w.Header().Set(http.TrailerPrefix+HeaderItems, fmt.Sprint(n))
		}
	}
}

// TestStreamBudget: a stream read whole is charged what the server says
// it charged; one closed early, or whose count is not given, its whole
// reservation; an export without a limit is refused under a budget.
func TestStreamBudget(t *testing.T) {
	for _, tc := range []struct {
		name      string
		trailer   bool
		readAll   bool
		wantSpent int64
		wantItems int64
	}{
		{"whole, counted", true, true, 7, 7},
		{"whole, not counted", false, true, 10, -1},
		{"closed early", true, false, 10, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := fake(t, streamServer(7, tc.trailer), WithBudget(10*DefaultPrice, 0))
			st, err := c.Export(t.Context(), ExportRequest{Query: "go", Format: ExportJSONL, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if st.Filename != "roost-export.jsonl" || !strings.HasPrefix(st.ContentType, "application/x-ndjson") {
				t.Errorf("file %q of %q", st.Filename, st.ContentType)
			}
			if _, err := c.Counts(t.Context(), "go", ""); !errors.Is(err, ErrBudget) {
				t.Errorf("the stream's reservation is not held: %v", err)
			}
			if tc.readAll {
				b, err := io.ReadAll(st)
				if err != nil || strings.Count(string(b), "\n") != 7 {
					t.Fatalf("read %q: %v", b, err)
				}
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			n, ok := st.Items()
			if c.Spent() != tc.wantSpent*DefaultPrice || (ok != (tc.wantItems >= 0)) || (ok && n != tc.wantItems) {
				t.Errorf("spent %d, items %d %v", c.Spent(), n, ok)
			}
		})
	}
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { t.Error("an unbounded export was sent") },
		WithBudget(math.MaxInt64, 0))
	if _, err := c.Export(t.Context(), ExportRequest{Query: "go"}); !errors.Is(err, ErrBudget) {
		t.Errorf("export without a limit: %v", err)
	}
	if _, err := c.Network(t.Context(), NetworkRequest{Query: "go"}); !errors.Is(err, ErrBudget) {
		t.Errorf("network without MaxNodes: %v", err)
	}
	// 2^30 nodes: the bound overflows no counter and no budget covers it.
	if _, err := c.Network(t.Context(), NetworkRequest{Query: "go", MaxNodes: 1 << 30}); !errors.Is(err, ErrBudget) {
		t.Errorf("network of 2^30 nodes: %v", err)
	}
}

// TestNetworkReservation: a network of n users and k kinds reserves
// n + n(n-1)k items, and is charged the count of its header.
func TestNetworkReservation(t *testing.T) {
	const n, k = 5, 2
	most := int64(n + n*(n-1)*k)
	var query string
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		w.Header().Set(HeaderItems, "12")
		fmt.Fprint(w, "source,target,kind,weight,source_username,target_username\n")
	}, WithBudget(most*DefaultPrice, 0))
	st, err := c.Network(t.Context(), NetworkRequest{Query: "go", Edges: []EdgeKind{EdgeReply, EdgeMention},
		Format: NetworkCSV, MinDegree: 2, MaxNodes: n})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, st); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if c.Spent() != 12*DefaultPrice || query != "edges=reply%2Cmention&format=csv&max_nodes=5&min_degree=2&query=go" {
		t.Errorf("spent %d, query %q", c.Spent(), query)
	}
	c2, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { t.Error("sent") }, WithBudget(most*DefaultPrice-1, 0))
	if _, err := c2.Network(t.Context(), NetworkRequest{Query: "go", Edges: []EdgeKind{EdgeReply, EdgeMention}, MaxNodes: n}); !errors.Is(err, ErrBudget) {
		t.Errorf("under the bound: %v", err)
	}
}
