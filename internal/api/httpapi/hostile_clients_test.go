package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/syncbuf"
)

// requestsByStatus sums roost_http_requests_total by status.
func requestsByStatus(t testing.TB, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "roost_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// serverErrors is the number of 5xx answers counted.
func serverErrors(by map[string]float64) float64 {
	n := 0.0
	for status, v := range by {
		if strings.HasPrefix(status, "5") {
			n += v
		}
	}
	return n
}

// slowBody opens a connection that sends a POST's headers and then its
// body a byte at a time, every gap, until the server answers; it returns
// the status the server answered (0 if none) on done.
func slowBody(t *testing.T, addr, key string, idem bool, gap time.Duration, done chan<- int) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		done <- 0
		return
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	head := "POST /social/tweets-by-ids HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
	if idem {
		head += "Idempotency-Key: slow-" + fmt.Sprint(time.Now().UnixNano()) + "\r\n"
	}
	if _, err := io.WriteString(conn, head+"\r\n"); err != nil {
		done <- 0
		return
	}
	answered := make(chan int, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	tick := time.NewTicker(gap)
	defer tick.Stop()
	for {
		select {
		case code := <-answered:
			done <- code
			return
		case <-tick.C:
			conn.Write([]byte("1")) //nolint:errcheck // the answer decides
		}
	}
}

// p99 is the 99th percentile of ds.
func p99(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)*99)/100]
}

// TestSlowBodiesHoldNoSlot: 300 POSTs whose bodies trickle in, from three
// keys (one with no balance), hold none of the server's slots: another
// key's requests all answer 200 meanwhile, their p99 far below a body's
// deadline (within a second of the p99 without the attack); each attacking key has at most its share
// (MaxPerKey) under way, the rest answered 429 at once; the key that
// cannot pay is answered 402 before its body is read; the bodies that
// never arrive are 400 after their deadline; nothing is charged.
func TestSlowBodiesHoldNoSlot(t *testing.T) { eachEngine(t, testSlowBodiesHoldNoSlot) }

func testSlowBodiesHoldNoSlot(t *testing.T, eng engine) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, eng, Config{Registry: reg, Now: time.Now}, fixture())
	srv := httptest.NewUnstartedServer(e.h)
	srv.Config.ReadTimeout = 30 * time.Second
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	probeKey, _ := e.key(t, plenty, 1_000_000)
	probe := func() (time.Duration, int) {
		start := time.Now()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/social/tweets-by-ids", strings.NewReader(fmt.Sprintf(`{"ids":[%d,%d]}`, rootPost, replyPost)))
		req.Header.Set("Authorization", "Bearer "+probeKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, 0
		}
		io.Copy(io.Discard, resp.Body) //nolint:errcheck // a test read
		resp.Body.Close()
		return time.Since(start), resp.StatusCode
	}
	probes := func(n int) []time.Duration {
		var ds []time.Duration
		for range n {
			d, code := probe()
			if code != http.StatusOK {
				t.Errorf("probe: %d", code)
			}
			ds = append(ds, d)
		}
		return ds
	}
	quiet := p99(probes(100))

	funded1, id1 := e.key(t, plenty, 0)
	funded2, id2 := e.key(t, plenty, 0)
	broke, _ := e.key(t, 0, 0)
	type attack struct {
		key  string
		idem bool
	}
	var attacks []attack
	for i := range 100 {
		attacks = append(attacks, attack{funded1, false}, attack{funded2, i%2 == 0}, attack{broke, i%2 == 0})
	}
	done := make(chan int, len(attacks))
	codes := map[string]map[int]int{funded1: {}, funded2: {}, broke: {}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, a := range attacks {
		wg.Go(func() {
			c := make(chan int, 1)
			slowBody(t, addr, a.key, a.idem, 200*time.Millisecond, c)
			code := <-c
			done <- code
			mu.Lock()
			codes[a.key][code]++
			mu.Unlock()
		})
	}
	time.Sleep(300 * time.Millisecond) // the attack's headers are in
	attacked := p99(probes(100))
	wg.Wait()
	close(done)
	// A probe held behind a slow body would wait for its deadline (5 s of
	// grace at least); a second's slack keeps a busy machine's scheduling
	// out of the verdict.
	if limit := max(5*quiet, quiet+time.Second); attacked > limit {
		t.Errorf("probe p99 %v under 300 slow bodies, %v without (limit %v)", attacked, quiet, limit)
	}
	share := DefaultMaxConcurrent / 4
	for _, k := range []string{funded1, funded2} {
		if codes[k][http.StatusBadRequest] > share || codes[k][http.StatusTooManyRequests] < 100-share {
			t.Errorf("a funded attacker got %v: at most %d bodies read, the rest 429", codes[k], share)
		}
	}
	if c := codes[broke]; c[http.StatusPaymentRequired] == 0 || c[http.StatusBadRequest] > share ||
		c[http.StatusPaymentRequired]+c[http.StatusBadRequest]+c[http.StatusTooManyRequests] != 100 {
		t.Errorf("the attacker without balance got %v: 402 before its body without Idempotency-Key, "+
			"with it at most %d bodies read, the rest 429", c, share)
	}
	for _, id := range []int64{id1, id2} {
		if e.balance(t, id) != plenty {
			t.Errorf("an attacker was charged")
		}
	}
	if n := serverErrors(requestsByStatus(t, reg)); n != 0 {
		t.Errorf("%v 5xx answers", n)
	}
}

// hangStore waits, in UserPosts or in Debit, until the request's client
// has gone: UserPosts then fails as an interrupted query does; Debit goes
// on to the store's debit (the page was made and is being paid for just
// as the client leaves).
type hangStore struct {
	socialStore
	entered chan struct{}
	inDebit bool
}

func (h *hangStore) UserPosts(ctx context.Context, id int64, withReplies bool, p pageReq) (postPage, error) {
	if h.inDebit {
		return h.socialStore.UserPosts(ctx, id, withReplies, p)
	}
	h.entered <- struct{}{}
	<-ctx.Done()
	return postPage{}, fmt.Errorf("query interrupted: %w", ctx.Err())
}

func (h *hangStore) Debit(ctx context.Context, d social.Debit) (int64, error) {
	if h.inDebit {
		h.entered <- struct{}{}
		<-ctx.Done()
	}
	return h.socialStore.Debit(ctx, d)
}

// TestHangUpsNotCharged: 100 clients that close (or reset) their
// connection while their paid page is being made, or paid for, are not
// charged, and are logged and counted as 499, never as a 5xx.
func TestHangUpsNotCharged(t *testing.T) { eachEngine(t, testHangUpsNotCharged) }

func testHangUpsNotCharged(t *testing.T, eng engine) {
	base := newEnv(t, eng, Config{}, fixture())
	key, id := base.key(t, plenty, 0)
	for _, inDebit := range []bool{false, true} {
		hs := &hangStore{socialStore: base.store, entered: make(chan struct{}), inDebit: inDebit}
		reg := prometheus.NewRegistry()
		var logs syncbuf.Buffer
		h := New(Config{Registry: reg, RateLimit: -1, PageCacheBytes: -1}, hs, nil, slog.New(slog.NewTextHandler(&logs, nil)))
		srv := httptest.NewServer(h)
		const n = 100
		for i := range n {
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(conn, "GET /social/user/1/tweets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+key+"\r\n\r\n") //nolint:errcheck // the server's count decides
			<-hs.entered
			if i%2 == 1 {
				conn.(*net.TCPConn).SetLinger(0) //nolint:errcheck // a reset instead of a close
			}
			conn.Close()
		}
		var by map[string]float64
		for range 500 { // the handlers finish after their clients left
			if by = requestsByStatus(t, reg); by["499"] == n {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		srv.Close()
		if by["499"] != n || serverErrors(by) != 0 {
			t.Errorf("inDebit=%v: answers counted %v; want %d × 499", inDebit, by, n)
		}
		if strings.Contains(logs.String(), "level=ERROR") || strings.Count(logs.String(), "client went away") != n {
			t.Errorf("inDebit=%v: want %d info lines and no error:\n%.2000s", inDebit, n, logs.String())
		}
	}
	if base.balance(t, id) != plenty || base.debits(t, id) != 0 {
		t.Errorf("a client that hung up was charged: balance %d, %d debits", base.balance(t, id), base.debits(t, id))
	}
}

// downStore fails every read as a database out of reach does.
type downStore struct{ socialStore }

func (downStore) UserPosts(context.Context, int64, bool, pageReq) (postPage, error) {
	return postPage{}, fmt.Errorf("postgres: query: %w", social.ErrUnavailable)
}

func (d downStore) KeyByDigest(ctx context.Context, digest [32]byte) (social.APIKey, error) {
	if digest[0]%2 == 0 { // half the keys cannot even be looked up
		return social.APIKey{}, fmt.Errorf("postgres: query: %w", social.ErrUnavailable)
	}
	return d.socialStore.KeyByDigest(ctx, digest)
}

// TestStoreUnavailable: while the database cannot be reached, requests
// answer 503 with Retry-After in the error shape (never 500, never 401 for
// a key that could not be looked up), are logged as warnings and cost
// nothing.
func TestStoreUnavailable(t *testing.T) { eachEngine(t, testStoreUnavailable) }

func testStoreUnavailable(t *testing.T, eng engine) {
	base := newEnv(t, eng, Config{}, fixture())
	var logs syncbuf.Buffer
	reg := prometheus.NewRegistry()
	h := New(Config{Registry: reg, PageCacheBytes: -1}, downStore{base.store}, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	for range 8 {
		key, id := base.key(t, plenty, 0)
		r := httptest.NewRequest(http.MethodGet, "/social/user/1/tweets", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		want := `{"status":"error","message":"` + msgUnavailable + `"}`
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "2" || strings.TrimSpace(w.Body.String()) != want {
			t.Errorf("%d Retry-After %q %s; want 503 Retry-After 2 %s", w.Code, w.Header().Get("Retry-After"), w.Body, want)
		}
		if base.balance(t, id) != plenty {
			t.Errorf("charged while the database was out of reach")
		}
	}
	if strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "database unavailable") {
		t.Errorf("want warnings, no error:\n%s", logs.String())
	}
	if by := requestsByStatus(t, reg); by["503"] != 8 || by["500"] != 0 {
		t.Errorf("counted %v", by)
	}
}
