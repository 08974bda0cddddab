package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// TestSearchCounts: the counts of a query, by day and hour, equal the
// store's, every period between the first and last match (or since: and
// until:) is there, zeros too; one item per period that holds a match
// (the empty periods, and an answer without a match, are free); bad
// parameters are 422 naming them.
func TestSearchCounts(t *testing.T) { eachEngine(t, testSearchCounts) }

func testSearchCounts(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	key, id := e.key(t, plenty, 0)
	ctx := context.Background()
	empty := 0 // periods without a match, over the cases
	for _, c := range []struct{ query, granularity string }{
		{"the", "day"}, {"#golang", "hour"}, {"the since:2025-09-01 until:2025-09-08", "hour"}, {"golang", ""},
	} {
		g := social.Day
		if c.granularity != "" {
			g, _ = social.ParseGranularity(c.granularity)
		}
		q, err := search.Parse(c.query, testNow)
		if err != nil {
			t.Fatal(err)
		}
		buckets, err := e.store.SearchCounts(ctx, q, g)
		if err != nil {
			t.Fatal(err)
		}
		before := e.balance(t, id)
		w := e.do(call{path: "/social/search/counts?" + url.Values{"query": {c.query}, "granularity": {c.granularity}}.Encode(), key: key})
		if w.Code != http.StatusOK {
			t.Fatalf("%q: %d %s", c.query, w.Code, w.Body)
		}
		got := decode[export.Counts](t, w)
		var total int64
		for _, b := range buckets {
			total += b.Count
		}
		if got.Meta.TotalTweetCount != total || total == 0 || got.Meta.Granularity != g.String() {
			t.Errorf("%q: meta %+v, want total %d by %s", c.query, got.Meta, total, g)
		}
		byStart := map[string]int64{}
		for _, b := range buckets {
			byStart[b.Start.Format(export.TimeLayout)] = b.Count
		}
		for i, b := range got.Data {
			start, _ := time.Parse(export.TimeLayout, b.Start)
			end, _ := time.Parse(export.TimeLayout, b.End)
			if end.Sub(start) != g.Duration() || (i > 0 && got.Data[i-1].End != b.Start) {
				t.Fatalf("%q: period %d is %s to %s", c.query, i, b.Start, b.End)
			}
			if b.TweetCount != byStart[b.Start] {
				t.Fatalf("%q: %s holds %d, want %d", c.query, b.Start, b.TweetCount, byStart[b.Start])
			}
		}
		if s, u := search.TimeRange(q); !s.IsZero() && (got.Data[0].Start != g.Start(s).Format(export.TimeLayout) ||
			got.Data[len(got.Data)-1].End != u.Format(export.TimeLayout)) {
			t.Errorf("%q: periods from %s to %s", c.query, got.Data[0].Start, got.Data[len(got.Data)-1].End)
		}
		matched := 0
		for _, b := range got.Data {
			if b.TweetCount > 0 {
				matched++
			}
		}
		if spent := before - e.balance(t, id); spent != int64(matched)*billing.DefaultPrice {
			t.Errorf("%q: charged %d for %d periods with matches of %d", c.query, spent, matched, len(got.Data))
		}
		empty += len(got.Data) - matched
	}
	if empty == 0 {
		t.Errorf("no case had a period without a match: the charge of one is untested")
	}
	before := e.balance(t, id)
	w := e.do(call{path: "/social/search/counts?query=zzzqqqxxx+since:2025-09-01+until:2025-09-03", key: key})
	got := decode[export.Counts](t, w)
	if w.Code != http.StatusOK || len(got.Data) != 2 || got.Meta.TotalTweetCount != 0 || e.balance(t, id) != before {
		t.Errorf("no match: %d %+v, charged %d", w.Code, got, before-e.balance(t, id))
	}
	expect422(t, e, key, []badParam{
		{"/social/search/counts?query=the&granularity=week", "granularity"},
		{"/social/search/counts?query=the&granularity=minute", "granularity"},
		{"/social/search/counts?query=(the", "query"},
		{"/social/search/counts", "query"},
	})
}

// TestSearchTop: the top values of every field equal the store's, whole
// and by day, with user ids for user fields; one item per value.
func TestSearchTop(t *testing.T) { eachEngine(t, testSearchTop) }

func testSearchTop(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	key, id := e.key(t, plenty, 0)
	ctx := context.Background()
	q, err := search.Parse("the", testNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range social.TopFields() {
		for _, g := range []social.Granularity{social.NoGranularity, social.Day} {
			want, err := e.store.SearchTop(ctx, q, f, 5, g)
			if err != nil {
				t.Fatal(err)
			}
			vals := url.Values{"query": {"the"}, "field": {string(f)}, "limit": {"5"}}
			if g != social.NoGranularity {
				vals.Set("granularity", g.String())
			}
			before := e.balance(t, id)
			w := e.do(call{path: "/social/search/top?" + vals.Encode(), key: key})
			if w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", f, w.Code, w.Body)
			}
			got := decode[export.Top](t, w)
			shaped := export.NewTop(want, f, g)
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(shaped)
			if string(a) != string(b) || got.Len() == 0 {
				t.Errorf("%s by %s: %s, want %s", f, g, a, b)
			}
			if f.Users() && (got.Len() == 0 || (g == social.NoGranularity && got.Values[0].IDStr == nil)) {
				t.Errorf("%s: no user ids in %s", f, a)
			}
			if spent := before - e.balance(t, id); spent != int64(got.Len())*billing.DefaultPrice {
				t.Errorf("%s: charged %d for %d values", f, spent, got.Len())
			}
		}
	}
	expect422(t, e, key, []badParam{
		{"/social/search/top?query=the", "field"},
		{"/social/search/top?query=the&field=colours", "field"},
		{"/social/search/top?query=the&field=lang&limit=0", "limit"},
		{"/social/search/top?query=the&field=lang&limit=" + strconv.Itoa(maxTopLimit+1), "limit"},
		{"/social/search/top?query=the&field=lang&granularity=year", "granularity"},
	})
}

// TestSearchExport: an export streams every match once, oldest first, in
// the format asked, charging each chunk before it is sent (one ledger row
// each); a balance that does not cover the first chunk is a 402 with
// nothing sent; one that runs out later cuts the connection, and only
// what was sent is charged. A whole export ends with the trailer
// X-Roost-Items: the items charged.
func TestSearchExport(t *testing.T) { eachEngine(t, testSearchExport) }

func testSearchExport(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	ctx := context.Background()
	q, err := search.Parse("the", testNow)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	if err := e.store.SearchWalk(ctx, q, 0, 5000, func(ps []social.Post) error {
		for _, p := range ps {
			want = append(want, strconv.FormatInt(p.ID, 10))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) <= export.ChunkSize {
		t.Fatalf("%d matches: the test needs more than one chunk", len(want))
	}
	key, id := e.key(t, plenty, 0)
	w := e.do(call{path: "/social/search/export?query=the&format=ids", key: key})
	got := strings.Fields(w.Body.String())
	if w.Code != http.StatusOK || !slices.Equal(got, want) || w.Header().Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.Contains(w.Header().Get("Content-Disposition"), `filename="roost-export.txt"`) {
		t.Fatalf("ids: %d %q, %d ids, want %d", w.Code, w.Header(), len(got), len(want))
	}
	if spent := plenty - e.balance(t, id); spent != int64(len(want))*billing.DefaultPrice {
		t.Errorf("charged %d for %d posts", spent, len(want))
	}
	if n := w.Result().Trailer.Get(headerItems); n != strconv.Itoa(len(want)) {
		t.Errorf("trailer %s: %q, want %d", headerItems, n, len(want))
	}
	ledger, err := e.store.Ledger(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if debits := len(ledger) - 1; debits != (len(want)+export.ChunkSize-1)/export.ChunkSize {
		t.Errorf("%d ledger rows for %d posts", debits, len(want))
	}

	w = e.do(call{path: "/social/search/export?query=the&format=csv&limit=25", key: key})
	rows, err := csv.NewReader(w.Body).ReadAll()
	if err != nil || w.Code != http.StatusOK || len(rows) != 26 || rows[1][0] != want[0] || rows[25][0] != want[24] {
		t.Fatalf("csv limit 25: %d, %d rows, %v", w.Code, len(rows), err)
	}

	// Credit for one chunk and a half: the second chunk is refused, the
	// connection cut after the first.
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	key, id = e.key(t, int64(export.ChunkSize*3/2)*billing.DefaultPrice, 0)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/social/search/export?query=the&format=ids", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || resp.StatusCode != http.StatusOK || len(strings.Fields(string(body))) != export.ChunkSize {
		t.Errorf("balance run out: %d, %d ids, read error %v (want a cut connection after %d)",
			resp.StatusCode, len(strings.Fields(string(body))), err, export.ChunkSize)
	}
	if left := e.balance(t, id); left != int64(export.ChunkSize/2)*billing.DefaultPrice {
		t.Errorf("balance %d after one chunk", left)
	}

	key, id = e.key(t, 10*billing.DefaultPrice, 0)
	w = e.do(call{path: "/social/search/export?query=the", key: key})
	if body := decode[wire.ErrorBody](t, w); w.Code != http.StatusPaymentRequired || body.Message != msgInsufficient ||
		w.Header().Get("Content-Disposition") != "" || e.balance(t, id) != 10*billing.DefaultPrice {
		t.Errorf("first chunk unpaid: %d %+v", w.Code, body)
	}
	expect422(t, e, key, []badParam{
		{"/social/search/export?query=the&format=xml", "format"},
		{"/social/search/export?query=the&limit=0", "limit"},
		{"/social/search/export?query=the+OR", "query"},
	})
}

// TestSearchNetwork: the network endpoint writes the network the store
// gathers for the query, as GEXF (charged one item per node and per edge)
// or a CSV table of its edges or nodes (charged per row), the items told in
// the header X-Roost-Items; bad parameters are 422 naming them.
func TestSearchNetwork(t *testing.T) { eachEngine(t, testSearchNetwork) }

func testSearchNetwork(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	key, id := e.key(t, plenty, 0)
	q, err := search.Parse("include:nativeretweets the", testNow)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Build(context.Background(), e.store, q, "", graph.Options{Kinds: graph.Kinds(), MaxNodes: 50})
	if err != nil {
		t.Fatal(err)
	}
	w := e.do(call{path: "/social/search/network?query=include:nativeretweets+the&max_nodes=50", key: key})
	var doc struct {
		Nodes []struct {
			ID string `xml:"id,attr"`
		} `xml:"graph>nodes>node"`
		Edges []struct {
			Weight int64 `xml:"weight,attr"`
		} `xml:"graph>edges>edge"`
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &doc); err != nil || w.Code != http.StatusOK ||
		w.Header().Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("gexf: %d %v %.200s", w.Code, err, w.Body)
	}
	if len(doc.Nodes) != len(g.Nodes) || len(doc.Edges) != len(g.Edges) || len(doc.Edges) == 0 {
		t.Errorf("gexf: %d nodes, %d edges; want %d, %d", len(doc.Nodes), len(doc.Edges), len(g.Nodes), len(g.Edges))
	}
	if spent := plenty - e.balance(t, id); spent != int64(g.Len())*billing.DefaultPrice {
		t.Errorf("charged %d for %d nodes and edges", spent, g.Len())
	}
	if n := w.Header().Get(headerItems); n != strconv.Itoa(g.Len()) {
		t.Errorf("header %s: %q, want %d", headerItems, n, g.Len())
	}
	w = e.do(call{path: "/social/search/network?query=the&edges=reply&format=csv&min_degree=2", key: key})
	rows, err := csv.NewReader(w.Body).ReadAll()
	if err != nil || w.Code != http.StatusOK || len(rows) < 2 || rows[0][0] != "Source" || rows[1][3] != "reply" {
		t.Errorf("csv: %d %v %d rows", w.Code, err, len(rows))
	}
	// part=nodes: the nodes table of the same network, charged a node a row.
	q, _ = search.Parse("the", testNow)
	g, err = graph.Build(context.Background(), e.store, q, "", graph.Options{Kinds: []graph.Kind{graph.Reply}, MinDegree: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := g.WriteCSV(&want, graph.PartNodes); err != nil {
		t.Fatal(err)
	}
	before := e.balance(t, id)
	w = e.do(call{path: "/social/search/network?query=the&edges=reply&format=csv&part=nodes&min_degree=2", key: key})
	if w.Code != http.StatusOK || w.Body.String() != want.String() || len(g.Nodes) == 0 ||
		!strings.Contains(w.Header().Get("Content-Disposition"), "roost-network-nodes.csv") {
		t.Errorf("csv nodes: %d %q %.200q, want %.200q", w.Code, w.Header().Get("Content-Disposition"), w.Body, want.String())
	}
	if spent := before - e.balance(t, id); spent != int64(len(g.Nodes))*billing.DefaultPrice {
		t.Errorf("charged %d for %d nodes", spent, len(g.Nodes))
	}
	expect422(t, e, key, []badParam{
		{"/social/search/network?query=the&part=nodes", "part"},
		{"/social/search/network?query=the&format=csv&part=users", "part"},
		{"/social/search/network?query=the&edges=likes", "edges"},
		{"/social/search/network?query=the&format=dot", "format"},
		{"/social/search/network?query=the&max_nodes=0", "max_nodes"},
		{"/social/search/network?query=the&min_degree=-1", "min_degree"},
	})
}

// badParam is a request whose parameter param is wrong.
type badParam struct{ path, param string }

// expect422 checks that each request is 422 naming its parameter.
func expect422(t *testing.T, e *env, key string, cases []badParam) {
	t.Helper()
	for _, c := range cases {
		w := e.do(call{path: c.path, key: key})
		body := decode[wire.ErrorBody](t, w)
		if w.Code != http.StatusUnprocessableEntity || len(body.Errors[c.param]) != 1 {
			t.Errorf("%s: %d %+v, want 422 naming %s", c.path, w.Code, body, c.param)
		}
	}
}
