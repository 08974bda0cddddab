package httpapi

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/social"
)

// tally counts the answers to a run of requests.
type tally struct{ ok, tooMany, failed, other int }

// faultRun makes n requests of GET path with key (and the X-Roost-Fault
// header when plan is not empty), checks the body and headers of every
// injected failure, and counts the answers.
func faultRun(t *testing.T, e *env, n int, path, key, plan string) tally {
	t.Helper()
	var c tally
	for range n {
		w := e.do(call{path: path, key: key, header: map[string]string{fault.Header: plan}})
		body := strings.TrimSpace(w.Body.String())
		switch w.Code {
		case http.StatusOK:
			c.ok++
		case http.StatusTooManyRequests:
			c.tooMany++
			if body != `{"status":"error","message":"Too many requests"}` || w.Header().Get("Retry-After") == "" {
				t.Fatalf("injected 429: %s, Retry-After %q", body, w.Header().Get("Retry-After"))
			}
		case http.StatusInternalServerError:
			c.failed++
			if body != `{"status":"error","message":"Failed to fetch data from Twitter"}` {
				t.Fatalf("injected 500: %s", body)
			}
		default:
			c.other++
			t.Errorf("%s: %d %s", path, w.Code, body)
		}
	}
	return c
}

// within5Sigma reports whether got of n draws is within five standard
// deviations of n·share (a false alarm once in about 3.5 million runs).
func within5Sigma(got, n int, share float64) bool {
	return math.Abs(float64(got)-float64(n)*share) <= 5*math.Sqrt(float64(n)*share*(1-share))
}

// TestFaultRates: over 1,000 requests a key's stored seeded plan
// (429=0.1, 500=0.05) answers exactly 100 429s and 50 500s, and an
// unseeded plan in the header holds its shares within five standard
// deviations (±47 and ±34); injected failures are free (one ledger debit
// per 200, the balance down by exactly the 200s' price), are counted in
// roost_injected_faults_total, and a key without a plan is never failed.
func TestFaultRates(t *testing.T) { eachEngine(t, testFaultRates) }

func testFaultRates(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{RateLimit: -1}, fixture())
	ctx := context.Background()
	const n, path = 1000, "/social/tweets/101" // one item: 200 micro-USD
	seeded, seededID := e.key(t, plenty, 0)
	if _, err := e.store.SetFault(ctx, seededID, "429=0.1,500=0.05,seed=11"); err != nil {
		t.Fatal(err)
	}
	header, headerID := e.key(t, plenty, 0)
	calm, calmID := e.key(t, plenty, 0)

	got := faultRun(t, e, n, path, seeded, "")
	if got.tooMany != 100 || got.failed != 50 || got.ok != 850 {
		t.Errorf("seeded plan over %d requests: %+v, want exactly 100 429s and 50 500s", n, got)
	}
	free(t, e, seededID, got.ok)

	unseeded := faultRun(t, e, n, path, header, "429=0.1,500=0.05")
	if !within5Sigma(unseeded.tooMany, n, 0.1) || !within5Sigma(unseeded.failed, n, 0.05) {
		t.Errorf("unseeded plan over %d requests: %+v, want 100±47 429s and 50±34 500s", n, unseeded)
	}
	free(t, e, headerID, unseeded.ok)

	if c := faultRun(t, e, 200, path, calm, ""); c.ok != 200 {
		t.Errorf("a key without a plan: %+v", c)
	}
	free(t, e, calmID, 200)
	// "none" in the header turns the key's stored plan off for a request.
	if c := faultRun(t, e, 100, path, seeded, "none"); c.ok != 100 {
		t.Errorf("X-Roost-Fault: none: %+v", c)
	}

	metrics := e.do(call{path: "/metrics"}).Body.String()
	for _, want := range []string{
		fmt.Sprintf(`roost_injected_faults_total{fault="429",route="tweet"} %d`, got.tooMany+unseeded.tooMany),
		fmt.Sprintf(`roost_injected_faults_total{fault="500",route="tweet"} %d`, got.failed+unseeded.failed),
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// free checks that a key paid for exactly its ok answers of one item: one
// debit each, and the balance down by their price only.
func free(t *testing.T, e *env, keyID int64, ok int) {
	t.Helper()
	if debits := e.debits(t, keyID); debits != ok {
		t.Errorf("key %d: %d debits for %d answers of 200", keyID, debits, ok)
	}
	if b := e.balance(t, keyID); b != plenty-int64(ok)*billing.DefaultPrice {
		t.Errorf("key %d: balance %d, want %d", keyID, b, plenty-int64(ok)*billing.DefaultPrice)
	}
}

// TestFaultOrder: an injected 429 takes no rate-limit token and comes
// before the 422 of a bad request; an injected 500 comes after it (a bad
// request is still told what is wrong) and after 402; Retry-After is the
// plan's, 0 included; a bad plan in the header is 422 naming the header
// and the item, after 401.
func TestFaultOrder(t *testing.T) { eachEngine(t, testFaultOrder) }

func testFaultOrder(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 2) // two requests a minute
	hdr := func(plan string) map[string]string { return map[string]string{fault.Header: plan} }
	for range 5 {
		w := e.do(call{path: "/social/tweets/x", key: key, header: hdr("429=1,retry_after=0")})
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "0" ||
			w.Header().Get("X-RateLimit-Limit") != "" {
			t.Fatalf("injected 429: %d, Retry-After %q, X-RateLimit-Limit %q", w.Code, w.Header().Get("Retry-After"),
				w.Header().Get("X-RateLimit-Limit"))
		}
	}
	if w := e.do(call{path: "/social/tweets/101", key: key, header: hdr("429=1,retry_after=120")}); w.Header().Get("Retry-After") != "120" {
		t.Errorf("retry_after=120: Retry-After %q", w.Header().Get("Retry-After"))
	}
	// The injected 429s took no token: both of the minute's are left.
	if w := e.do(call{path: "/social/tweets/x", key: key, header: hdr("500=1")}); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("a bad request under 500=1: %d %s, want its 422", w.Code, w.Body)
	}
	if w := e.do(call{path: "/social/tweets/101", key: key, header: hdr("500=1")}); w.Code != http.StatusInternalServerError {
		t.Errorf("500=1: %d %s", w.Code, w.Body)
	}
	if w := e.do(call{path: "/social/tweets/101", key: key}); w.Code != http.StatusTooManyRequests ||
		w.Header().Get("X-RateLimit-Limit") != "2" {
		t.Errorf("the third request of the minute: %d, X-RateLimit-Limit %q", w.Code, w.Header().Get("X-RateLimit-Limit"))
	}

	broke, _ := e.key(t, 0, 0)
	if w := e.do(call{path: "/social/tweets/101", key: broke, header: hdr("500=1")}); w.Code != http.StatusPaymentRequired {
		t.Errorf("an empty key under 500=1: %d, want 402", w.Code)
	}
	for _, tc := range []struct{ plan, item string }{
		{"429=2", "429: must be a decimal from 0 to 1"},
		{"429=0.7,500=0.7", "must not exceed 1"},
		{"delay=1h", "delay: must be a duration from 0s to 10s"},
		{"latest_cursor_pages=-3", "latest_cursor_pages: must be a whole number"},
		{"chaos=1", "chaos: is not a fault"},
	} {
		w := e.do(call{path: "/social/tweets/101", key: broke, header: hdr(tc.plan)})
		got := decode[wire.ErrorBody](t, w)
		if w.Code != http.StatusUnprocessableEntity || got.Message != "Invalid X-Roost-Fault" ||
			len(got.Errors[fault.Header]) != 1 || !strings.Contains(got.Errors[fault.Header][0], tc.item) {
			t.Errorf("X-Roost-Fault: %s: %d %+v, want 422 naming %q", tc.plan, w.Code, got, tc.item)
		}
	}
	if w := e.do(call{path: "/social/tweets/101", header: hdr("429=2")}); w.Code != http.StatusUnauthorized {
		t.Errorf("a bad plan without a key: %d, want 401", w.Code)
	}
}

// TestFaultDelay: a delay is waited out (counted by a stand-in sleeper:
// every request of delay=250ms, exactly 500 of 1,000 under
// delay_share=0.5 with a seed) and counted in the metrics; with the real
// sleeper a 30 ms delay takes at least 30 ms, and a client that goes away
// during a delay ends the wait.
func TestFaultDelay(t *testing.T) { eachEngine(t, testFaultDelay) }

func testFaultDelay(t *testing.T, eng engine) {
	var mu sync.Mutex
	var slept []time.Duration
	sleep := func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slept = append(slept, d)
		return nil
	}
	e := newEnv(t, eng, Config{RateLimit: -1, Sleep: sleep}, fixture())
	key, id := e.key(t, plenty, 0)
	if c := faultRun(t, e, 10, "/social/tweets/101", key, "delay=250ms"); c.ok != 10 {
		t.Fatalf("delay=250ms: %+v", c)
	}
	if len(slept) != 10 || slices.ContainsFunc(slept, func(d time.Duration) bool { return d != 250*time.Millisecond }) {
		t.Errorf("delay=250ms slept %v", slept)
	}
	free(t, e, id, 10) // a delayed answer is charged as any other
	slept = nil
	faultRun(t, e, 1000, "/social/tweets/101", key, "delay=1s,delay_share=0.5,seed=4")
	if len(slept) != 500 {
		t.Errorf("delay_share=0.5 with a seed: %d delays of 1,000 requests, want 500", len(slept))
	}
	if m := e.do(call{path: "/metrics"}).Body.String(); !strings.Contains(m, `roost_injected_faults_total{fault="delay",route="tweet"} 510`) {
		t.Errorf("metrics lack 510 delays of tweet")
	}

	real := newEnv(t, eng, Config{RateLimit: -1}, fixture())
	rkey, _ := real.key(t, plenty, 0)
	start := time.Now()
	if w := real.do(call{path: "/social/tweets/101", key: rkey, header: map[string]string{fault.Header: "delay=30ms"}}); w.Code != 200 {
		t.Fatalf("delay=30ms: %d", w.Code)
	}
	if took := time.Since(start); took < 30*time.Millisecond {
		t.Errorf("delay=30ms answered after %v", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequestWithContext(ctx, "GET", "/social/tweets/101", nil)
	r.Header.Set("Authorization", "Bearer "+rkey)
	r.Header.Set(fault.Header, "delay=10s")
	done := make(chan struct{})
	go func() { real.h.ServeHTTP(httptest.NewRecorder(), r); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a request whose client went away waited out its 10 s delay")
	}
}

// faultTransport sends every request with X-Roost-Fault and counts the
// answers by status and the requests continued by max_id:.
type faultTransport struct {
	plan                    string
	tooMany, failed, maxIDs atomic.Int64
}

func (f *faultTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if f.plan != "" {
		r.Header.Set(fault.Header, f.plan)
	}
	if strings.Contains(r.URL.Query().Get("query"), "max_id:") && r.URL.Query().Get("cursor") == "" {
		f.maxIDs.Add(1)
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		switch resp.StatusCode {
		case http.StatusTooManyRequests:
			f.tooMany.Add(1)
		case http.StatusInternalServerError:
			f.failed.Add(1)
		}
	}
	return resp, err
}

// TestFaultLatestCursorPages: under latest_cursor_pages=N a Latest search
// gives cursors on its first N-1 pages only (Top keeps them), and
// client.SearchAll walks it completely by max_id: — exactly the store's
// matches, each once — also through injected 429s and 500s with the
// client's retries, paying only for the pages it got.
func TestFaultLatestCursorPages(t *testing.T) { eachEngine(t, testFaultLatestCursorPages) }

func testFaultLatestCursorPages(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{RateLimit: -1}, fixture())
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	ctx := context.Background()
	const query = "from:alice"
	want := latestMatches(t, e, query)
	if len(want) <= 40 {
		t.Fatalf("the fixture has %d posts from alice; the walk needs more than two pages", len(want))
	}

	// Page by page: a cursor on page 1 only, none on page 2 though more follow.
	key, keyID := e.key(t, plenty, 0)
	if _, err := e.store.SetFault(ctx, keyID, "latest_cursor_pages=2"); err != nil {
		t.Fatal(err)
	}
	p1 := decode[page](t, e.do(call{path: "/social/search?query=" + query, key: key}))
	if p1.NextCursor == nil || len(p1.Tweets) != 20 {
		t.Fatalf("page 1: %d posts, cursor %v", len(p1.Tweets), p1.NextCursor)
	}
	p2 := decode[page](t, e.do(call{path: "/social/search?query=" + query + "&cursor=" + *p1.NextCursor, key: key}))
	if p2.NextCursor != nil || len(p2.Tweets) != 20 {
		t.Errorf("page 2 of latest_cursor_pages=2: %d posts, cursor %v; want 20 and none", len(p2.Tweets), p2.NextCursor)
	}
	if top := decode[page](t, e.do(call{path: "/social/search?type=Top&query=" + query + "&cursor=", key: key})); top.NextCursor == nil {
		t.Error("a Top search lost its cursor under latest_cursor_pages")
	}

	for _, tc := range []struct {
		name, plan string
		retry      client.Retry
		failures   bool
	}{
		{"cursor pages only", "latest_cursor_pages=1", client.Retry{}, false},
		// Seed 7 fails the 1st and 4th requests 429 and the 5th 500.
		{"with 429 and 500", "429=0.2,500=0.1,retry_after=0,seed=7,latest_cursor_pages=2",
			client.Retry{Max: 8, Base: time.Millisecond, Cap: 2 * time.Millisecond}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, keyID := e.key(t, plenty, 0)
			tr := &faultTransport{plan: tc.plan}
			c, err := client.New(srv.URL, key, client.WithRetry(tc.retry), client.WithHTTPClient(&http.Client{Transport: tr}),
				client.WithBudget(plenty, billing.DefaultPrice))
			if err != nil {
				t.Fatal(err)
			}
			got := ids(c.SearchAll(ctx, query, client.Latest))
			if !slices.Equal(got, want) {
				t.Errorf("walk of %q under %s: %d posts %v\nwant %d %v", query, tc.plan, len(got), got, len(want), want)
			}
			if tr.maxIDs.Load() == 0 {
				t.Error("the walk never continued with max_id:")
			}
			if tc.failures && (tr.tooMany.Load() == 0 || tr.failed.Load() == 0) {
				t.Errorf("no injected failure met: %d 429s, %d 500s", tr.tooMany.Load(), tr.failed.Load())
			}
			if spent, paid := c.Spent(), plenty-e.balance(t, keyID); spent != paid {
				t.Errorf("the client counted %d micro-USD, the key paid %d", spent, paid)
			}
		})
	}
}

// TestFaultSearchWalkGenerated: on the generated network, a Latest search
// whose cursors stop every third page, failing a share of requests 429
// and 500, is walked by client.SearchAll with retries to exactly the
// store's matches, each once, and costs what the client counted.
func TestFaultSearchWalkGenerated(t *testing.T) { eachEngine(t, testFaultSearchWalkGenerated) }

func testFaultSearchWalkGenerated(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	ctx := context.Background()
	const query = "the -filter:replies"
	want := latestMatches(t, e, query)
	key, keyID := e.key(t, plenty, 0)
	tr := &faultTransport{plan: "429=0.1,500=0.05,retry_after=0,seed=3,latest_cursor_pages=3"}
	c, err := client.New(srv.URL, key, client.WithRetry(client.Retry{Max: 8, Base: time.Millisecond, Cap: 2 * time.Millisecond}),
		client.WithHTTPClient(&http.Client{Transport: tr}), client.WithBudget(plenty, billing.DefaultPrice))
	if err != nil {
		t.Fatal(err)
	}
	got := ids(c.SearchAll(ctx, query, client.Latest))
	if !slices.Equal(got, want) {
		t.Fatalf("walk: %d posts, want %d (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	pages := (len(want) + 19) / 20
	t.Logf("%d posts in %d pages: %d max_id: continuations, %d injected 429s, %d injected 500s", len(want), pages,
		tr.maxIDs.Load(), tr.tooMany.Load(), tr.failed.Load())
	if min := int64(pages/3 - 1); tr.maxIDs.Load() < min || tr.tooMany.Load() == 0 || tr.failed.Load() == 0 {
		t.Errorf("%d pages: %d max_id: continuations (want at least %d), %d 429s, %d 500s", pages, tr.maxIDs.Load(), min,
			tr.tooMany.Load(), tr.failed.Load())
	}
	if spent, paid := c.Spent(), plenty-e.balance(t, keyID); spent != paid || paid != int64(len(want))*billing.DefaultPrice {
		t.Errorf("the client counted %d micro-USD, the key paid %d, the posts cost %d", spent, paid,
			int64(len(want))*billing.DefaultPrice)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// latestMatches is the store's own walk of a Latest search: the ids a
// complete walk must give.
func latestMatches(t *testing.T, e *env, query string) []string {
	t.Helper()
	q, err := parseQuery(query, testNow)
	if err != nil {
		t.Fatal(err)
	}
	return storePosts(t, 20, func(p social.PageReq) (social.Page[social.Post], error) {
		return e.store.Search(context.Background(), q, social.Latest, p)
	})
}
