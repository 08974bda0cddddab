package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/syncbuf"
	"github.com/roostapi/roost/internal/world/gen"
)

// upstream is a roost over a small generated network, behind a handler
// that counts the data requests and can fail them.
type upstream struct {
	store social.Store
	h     http.Handler // the roost itself, uncounted
	srv   *httptest.Server
	key   string
	keyID int64
	sum   gen.Summary
	calls atomic.Int64
	// fail, when set, answers a request with its status instead (0: pass).
	fail atomic.Pointer[func(n int64) int]
	// body is the body of the last data request that had one.
	body atomic.Pointer[string]
}

var (
	upOnce sync.Once
	upEnv  *upstream
	upErr  error
	upDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if upEnv != nil {
		upEnv.srv.Close()
		upEnv.store.Close()
	}
	if upDir != "" {
		os.RemoveAll(upDir)
	}
	os.Exit(code)
}

// testNow is the clock of every handler here.
var testNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// sharedUpstream is made once per test binary.
func sharedUpstream(t testing.TB) *upstream {
	t.Helper()
	upOnce.Do(func() {
		ctx := context.Background()
		var err error
		if upDir, err = os.MkdirTemp("", "roost-gateway-*"); err != nil {
			upErr = err
			return
		}
		st, err := sqlite.Open(ctx, filepath.Join(upDir, "up.db"), nil)
		if err != nil {
			upErr = err
			return
		}
		u := &upstream{store: st}
		if u.sum, err = gen.Generate(ctx, st, gen.Config{Seed: 7, Users: 120, Posts: 4000}, nil); err != nil {
			upErr = err
			return
		}
		u.h = httpapi.New(httpapi.Config{RateLimit: -1, Now: func() time.Time { return testNow }}, st, nil, nil)
		u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/user/balance" {
				n := u.calls.Add(1)
				if r.Body != nil && r.ContentLength != 0 {
					b, err := io.ReadAll(r.Body)
					if err != nil {
						w.WriteHeader(http.StatusBadRequest)
						return
					}
					body := string(b)
					u.body.Store(&body)
					r.Body = io.NopCloser(strings.NewReader(body))
				}
				if f := u.fail.Load(); f != nil {
					if code := (*f)(n); code != 0 {
						if code == http.StatusTooManyRequests {
							w.Header().Set("Retry-After", "0")
						}
						w.WriteHeader(code)
						io.WriteString(w, `{"status":"error","message":"injected"}`)
						return
					}
				}
			}
			u.h.ServeHTTP(w, r)
		}))
		u.key, u.keyID = newKey(st, 1_000_000*billing.MicrosPerUSD)
		upEnv = u
	})
	if upErr != nil {
		t.Fatal(upErr)
	}
	upEnv.fail.Store(nil)
	return upEnv
}

func newKey(st social.Store, credit int64) (string, int64) {
	key, digest, prefix := billing.NewKey()
	k, err := st.CreateKey(context.Background(), social.APIKey{Name: "test", Prefix: prefix, Digest: digest,
		CreatedAt: testNow}, credit)
	if err != nil {
		panic(err)
	}
	return key, k.ID
}

// gatewayStore is an engine's store that has the gateway's storage.
type gatewayStore interface {
	social.Store
	Gateway() sqlstore.Gateway
}

// front is a gateway roost in front of an upstream.
type front struct {
	store gatewayStore
	gw    *Gateway
	h     http.Handler
	reg   *prometheus.Registry
	now   atomic.Pointer[time.Time]
	logs  syncbuf.Buffer // what the gateway logged
}

// newFront makes a gateway over st in front of up.
func newFront(t testing.TB, up *upstream, st gatewayStore, limits ...Limit) *front {
	t.Helper()
	return newFrontKey(t, up, up.key, st, limits...)
}

// newFrontKey is newFront with another upstream key.
func newFrontKey(t testing.TB, up *upstream, upKey string, st gatewayStore, limits ...Limit) *front {
	t.Helper()
	c, err := client.New(up.srv.URL, upKey, client.WithRetry(client.Retry{Max: 4, Base: time.Millisecond, Cap: 5 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	f := &front{store: st, reg: prometheus.NewRegistry()}
	now := testNow
	f.now.Store(&now)
	clock := func() time.Time { return *f.now.Load() }
	f.gw = New(Config{Client: c, Store: st.Gateway(), Writer: st, Reader: st.Gateway().Data, Limits: limits, Now: clock, Registry: f.reg,
		Log: slog.New(slog.NewTextHandler(&f.logs, &slog.HandlerOptions{Level: slog.LevelError}))})
	// One key sends up to 50 requests at once (TestOneUpstreamCall).
	f.h = httpapi.New(httpapi.Config{RateLimit: -1, MaxPerKey: -1, Now: clock, Upstream: f.gw, Registry: f.reg}, st, nil, nil)
	return f
}

func openSQLite(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// get calls h and returns the status and body.
func get(h http.Handler, key, path string) (int, string) {
	return do(h, key, http.MethodGet, path, "")
}

func do(h http.Handler, key, method, path, body string) (int, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	r.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// walk follows a paged path's cursors and returns every page's body.
func walk(t testing.TB, h http.Handler, key, path string) []string {
	t.Helper()
	var pages []string
	cursor := ""
	for range 1000 {
		p := path
		if cursor != "" {
			sep := "?"
			if strings.Contains(p, "?") {
				sep = "&"
			}
			p += sep + "cursor=" + cursor
		}
		code, body := get(h, key, p)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, code, body)
		}
		pages = append(pages, body)
		var env struct {
			NextCursor *string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(body), &env); err != nil {
			t.Fatal(err)
		}
		if env.NextCursor == nil || *env.NextCursor == "" {
			return pages
		}
		cursor = *env.NextCursor
	}
	t.Fatalf("%s: no last page", path)
	return nil
}

func balance(t testing.TB, st social.Store, id int64) int64 {
	t.Helper()
	k, err := st.Key(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return k.Balance
}

// counter reads a counter of reg by its labels.
func counter(t testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue next
				}
			}
			total += m.GetCounter().GetValue()
		}
	}
	return total
}

func userPath(id int64, tail string) string { return fmt.Sprintf("/social/user/%d/%s", id, tail) }

// tweetIDs are the ids of a page's tweets, in order.
func tweetIDs(t testing.TB, body string) []string {
	t.Helper()
	var env struct {
		Tweets []struct {
			ID string `json:"id_str"`
		} `json:"tweets"`
	}
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(env.Tweets))
	for i, tw := range env.Tweets {
		ids[i] = tw.ID
	}
	return ids
}
