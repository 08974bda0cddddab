package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fake serves handler and returns a client of it whose sleeps are recorded
// instead of waited.
func fake(t *testing.T, handler http.HandlerFunc, opts ...Option) (*Client, *[]time.Duration) {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, "roost_test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var waits []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err()
	}
	return c, &waits
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"status":"error","message":%q}`, msg)
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      []int // statuses answered before a 200
		wantCalls int
		wantErr   int // status of the final error, 0 for success
	}{
		{"429 then ok", []int{429}, 2, 0},
		{"500s then ok", []int{500, 502, 503}, 4, 0},
		{"404 is final", []int{404}, 1, 404},
		{"422 is final", []int{422}, 1, 422},
		{"402 is final", []int{402}, 1, 402},
		{"too many 500s", []int{500, 500, 500, 500, 500, 500}, 5, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			c, waits := fake(t, func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1)) - 1
				if r.Header.Get("Authorization") != "Bearer roost_test" {
					writeErr(w, 401, "No valid API key provided")
					return
				}
				if n < len(tc.fail) {
					if tc.fail[n] == 429 {
						w.Header().Set("Retry-After", "7")
					}
					writeErr(w, tc.fail[n], "nope")
					return
				}
				fmt.Fprint(w, `{"next_cursor":null,"tweets":[{"id_str":"9007199254740993","tweet_created_at":"2024-01-02T03:04:05+00:00"}]}`)
			})
			p, err := c.UserTweets(t.Context(), 1, "")
			if int(calls.Load()) != tc.wantCalls {
				t.Errorf("%d calls, want %d", calls.Load(), tc.wantCalls)
			}
			var ae *Error
			switch {
			case tc.wantErr == 0 && err != nil:
				t.Fatalf("error %v", err)
			case tc.wantErr != 0 && (!errors.As(err, &ae) || ae.Status != tc.wantErr || ae.Message != "nope"):
				t.Fatalf("error %v, want status %d", err, tc.wantErr)
			case tc.wantErr == 0 && (len(p.Items) != 1 || p.Items[0].IDStr != "9007199254740993"):
				t.Fatalf("page %+v", p)
			}
			if len(tc.fail) > 0 && tc.fail[0] == 429 && tc.wantErr == 0 && (*waits)[0] != 7*time.Second {
				t.Errorf("Retry-After not honoured: waited %v", *waits)
			}
			for i, d := range *waits {
				if tc.fail[0] != 429 && (d < DefaultRetry.Base<<i/2 || d > DefaultRetry.Cap) {
					t.Errorf("wait %d is %v", i, d)
				}
			}
		})
	}
}

// TestRetryAfterDate: Retry-After as an HTTP-date (RFC 9110) is waited
// from the client's clock; a date past, or a value that is neither form,
// falls back to the backoff.
func TestRetryAfterDate(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		want   time.Duration // 0: the backoff's
	}{
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{"Wed, 25 Nov 2026 12:02:00 GMT", 2 * time.Minute},
		{"Wednesday, 25-Nov-26 12:00:30 GMT", 30 * time.Second}, // RFC 850, obsolete but allowed
		{"Wed Nov 25 12:00:05 2026", 5 * time.Second},           // asctime
		{"12", 12 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	} {
		t.Run(tc.header, func(t *testing.T) {
			var calls atomic.Int32
			c, waits := fake(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					w.Header().Set("Retry-After", tc.header)
					writeErr(w, http.StatusTooManyRequests, "slow down")
					return
				}
				fmt.Fprint(w, `{"next_cursor":null,"tweets":[]}`)
			}, WithRetry(Retry{Max: 1, Base: time.Millisecond, Cap: 2 * time.Millisecond}))
			c.now = func() time.Time { return now }
			if _, err := c.UserTweets(t.Context(), 1, ""); err != nil {
				t.Fatal(err)
			}
			if len(*waits) != 1 {
				t.Fatalf("waits %v, want one", *waits)
			}
			got := (*waits)[0]
			if tc.want > 0 && got != tc.want || tc.want == 0 && got > 2*time.Millisecond {
				t.Errorf("Retry-After %q: waited %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func TestTransportErrorsRetried(t *testing.T) {
	c, err := New("http://127.0.0.1:1", "k", WithRetry(Retry{Max: 2, Base: time.Millisecond, Cap: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	c.sleep = func(context.Context, time.Duration) error { n++; return nil }
	if _, err := c.Balance(t.Context()); err == nil || n != 2 {
		t.Errorf("err %v after %d retries, want an error after 2", err, n)
	}
}

func TestTimes(t *testing.T) {
	for _, s := range []string{`"2024-01-02T03:04:05.123456Z"`, `"2024-01-02T03:04:05.123456+00:00"`,
		`"Tue Jan 02 03:04:05 +0000 2024"`} {
		var tm Time
		if err := json.Unmarshal([]byte(s), &tm); err != nil || tm.Year() != 2024 || tm.Second() != 5 {
			t.Errorf("%s: %v %v", s, tm, err)
		}
	}
	var tm Time
	if err := json.Unmarshal([]byte(`"yesterday"`), &tm); err == nil {
		t.Error("a bad time parsed")
	}
	b, _ := json.Marshal(Time{Time: time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)})
	if string(b) != `"2024-01-02T03:04:05.000006Z"` {
		t.Errorf("marshal %s", b)
	}
}

func TestBalanceMicros(t *testing.T) {
	for in, want := range map[string]int64{"12.3456": 12_345_600, "0": 0, "0.000001": 1, "9007199254.740993": 9_007_199_254_740_993} {
		if got, err := (Balance{USD: json.Number(in)}).Micros(); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
}

// TestBudget: 32 goroutines share a budget for 7 full pages; the client
// never spends past it, and a page that could cross it is never asked.
func TestBudget(t *testing.T) {
	var served atomic.Int64
	page := `{"next_cursor":null,"users":[` + strings.TrimSuffix(strings.Repeat(`{"id_str":"1"},`, 20), ",") + `]}`
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		served.Add(20)
		fmt.Fprint(w, page)
	}, WithBudget(7*20*DefaultPrice+DefaultPrice*19, 0))
	var wg sync.WaitGroup
	var refused atomic.Int32
	for range 32 {
		wg.Go(func() {
			for range 3 {
				if _, err := c.Following(context.Background(), 1, ""); errors.Is(err, ErrBudget) {
					refused.Add(1)
				} else if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if served.Load() != 7*20 || c.Spent() != 7*20*DefaultPrice || refused.Load() != 32*3-7 {
		t.Errorf("served %d items, spent %d, refused %d", served.Load(), c.Spent(), refused.Load())
	}
}

// TestSearchContinuesByMaxID: a server that gives cursors for two pages
// only is walked to the end by max_id:, with no post twice.
func TestSearchContinuesByMaxID(t *testing.T) {
	const total = 95
	var requests atomic.Int32
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		q := r.URL.Query()
		hi := int64(total)
		if i := strings.Index(q.Get("query"), "max_id:"); i >= 0 {
			hi, _ = strconv.ParseInt(q.Get("query")[i+7:], 10, 64)
		}
		page := 0
		if cur := q.Get("cursor"); cur != "" {
			page, _ = strconv.Atoi(cur)
			hi -= int64(20 * page)
		}
		var items []string
		for id := hi; id > hi-20 && id > 0; id-- {
			items = append(items, fmt.Sprintf(`{"id_str":"%d"}`, id))
		}
		next := "null"
		if page < 1 && len(items) == 20 { // cursors stop after two pages
			next = `"` + strconv.Itoa(page+1) + `"`
		}
		fmt.Fprintf(w, `{"next_cursor":%s,"tweets":[%s]}`, next, strings.Join(items, ","))
	})
	seen := map[string]bool{}
	for tw, err := range c.SearchAll(t.Context(), "golang", Latest) {
		if err != nil {
			t.Fatal(err)
		}
		if seen[tw.IDStr] {
			t.Fatalf("post %s twice", tw.IDStr)
		}
		seen[tw.IDStr] = true
	}
	if len(seen) != total {
		t.Errorf("%d posts, want %d (%d requests)", len(seen), total, requests.Load())
	}
}

func TestNewRejectsBadURL(t *testing.T) {
	for _, u := range []string{"", "ftp://x", "127.0.0.1:8080", "http://"} {
		if _, err := New(u, "k"); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}

// TestPageEnvelope: a page's items are read from its one field in one
// pass; a null array is an empty page, a missing one an error, and other
// arrays are left alone.
func TestPageEnvelope(t *testing.T) {
	for _, tc := range []struct {
		body, wantErr, next string
		items               int
	}{
		{`{"next_cursor":"c1","tweets":[{"id_str":"5"},{"id_str":"6"}],"users":[{"id_str":"x","tweets":7}]}`, "", "c1", 2},
		{`{"next_cursor":"c2","tweets":null}`, "", "c2", 0},
		{`{"next_cursor":null,"tweets":[]}`, "", "", 0},
		{`{"next_cursor":null,"users":[]}`, `no "tweets" array`, "", 0},
		{`{"next_cursor":null,"tweets":[{"id_str":5}]}`, "cannot unmarshal", "", 0},
	} {
		c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, tc.body) })
		p, err := c.UserTweets(t.Context(), 1, "")
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.body, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.body, err)
		case tc.wantErr == "" && (len(p.Items) != tc.items || p.NextCursor != tc.next):
			t.Errorf("%s: %d items, cursor %q", tc.body, len(p.Items), p.NextCursor)
		}
	}
}
