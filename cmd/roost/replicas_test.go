package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/syncbuf"
	"github.com/roostapi/roost/internal/world/gen"
)

// The roost binary, built once per test binary by roostBinary.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// roostBinary builds ./cmd/roost into a temporary directory (once) and
// returns its path.
func roostBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			built.err = err
			return
		}
		if built.dir, err = os.MkdirTemp("", "roost-bin-*"); err != nil {
			built.err = err
			return
		}
		built.path = filepath.Join(built.dir, "roost")
		cmd := exec.Command("go", "build", "-o", built.path, "./cmd/roost")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build ./cmd/roost: %w\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// moduleRoot is the nearest directory above the working directory that
// holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// roostExec runs the built binary to completion and returns its stdout.
func roostExec(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(roostBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("roost %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// cluster is a database filled with a small network and a set of `roost
// serve` processes on it.
type cluster struct {
	db    string // the database URL the servers use
	sum   gen.Summary
	urls  []string // base URLs of the servers
	admin []string // base URLs of their admin APIs, when they serve one
	mu    sync.Mutex
}

// newCluster fills a fresh schema with a small network.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	db := storetest.FreshSchema(t, storetest.PostgresURL(t))
	var sum gen.Summary
	out := roostExec(t, "gen", "--db", db, "--users", "200", "--posts", "3000")
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("gen summary: %v\n%s", err, out)
	}
	return &cluster{db: db, sum: sum}
}

var (
	servingRE = regexp.MustCompile(`roost serving .* on (http://\S+)`)
	adminRE   = regexp.MustCompile(`roost admin API on (http://\S+)`)
)

// serve starts n `roost serve` processes on url with extra flags, waits
// until each listens, and stops them when the test ends.
func (c *cluster) serve(t *testing.T, url string, n int, flags ...string) []string {
	t.Helper()
	var urls []string
	for i := range n {
		args := append([]string{"serve", "--db", url, "--addr", "127.0.0.1:0", "--demo=false"}, flags...)
		cmd := exec.Command(roostBinary(t), args...)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start server %d: %v", i, err)
		}
		var log syncbuf.Buffer
		found := make(chan string, 1)
		done := make(chan struct{})
		go func() {
			defer close(done)
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				log.Write([]byte(sc.Text() + "\n"))
				if m := adminRE.FindSubmatch(sc.Bytes()); m != nil {
					c.addAdmin(string(m[1]))
				}
				if m := servingRE.FindSubmatch(sc.Bytes()); m != nil {
					select {
					case found <- string(m[1]):
					default:
					}
				}
			}
			io.Copy(io.Discard, stderr)
		}()
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			exited := make(chan error, 1)
			go func() { <-done; exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Errorf("server %d did not stop on SIGINT; killed", i)
			}
			if t.Failed() {
				t.Logf("server %d log:\n%s", i, log.String())
			}
		})
		select {
		case u := <-found:
			urls = append(urls, u)
		case <-done:
			t.Fatalf("server %d exited before listening:\n%s", i, log.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("server %d did not listen within a minute:\n%s", i, log.String())
		}
	}
	c.urls = append(c.urls, urls...)
	return urls
}

// addAdmin records a server's admin URL.
func (c *cluster) addAdmin(u string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.admin = append(c.admin, u)
}

// newKey creates a key through `roost keys create` and returns it with its
// id, found by its unique name.
func (c *cluster) newKey(t *testing.T, st *postgres.Store, credits string, flags ...string) (string, int64) {
	t.Helper()
	var b [4]byte
	rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	args := append([]string{"keys", "create", "--db", c.db, "--credits", credits, "--name", name}, flags...)
	key := strings.TrimSpace(roostExec(t, args...))
	keys, err := st.Keys(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.Name == name {
			return key, k.ID
		}
	}
	t.Fatalf("key %s not found after keys create", name)
	return "", 0
}

// openStore opens the cluster's database from the test.
func (c *cluster) openStore(t *testing.T) *postgres.Store {
	t.Helper()
	st, err := postgres.Open(t.Context(), c.db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// paths are paid requests over the generated network, of various sizes.
func (c *cluster) paths() []string { return c.sum.Examples.PaidPages() }

// response is one answer: status, body and the items it holds.
type response struct {
	status int
	body   string
	items  int
	header http.Header
}

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// fetch requests url with key and counts the items of a 200.
func fetch(t *testing.T, url, key string) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := httpClient.Do(req)
	if err != nil {
		return response{status: -1, body: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{status: -1, body: err.Error()}
	}
	r := response{status: resp.StatusCode, body: string(body), header: resp.Header}
	if r.status == http.StatusOK {
		var p struct {
			Tweets, Users, Lists []json.RawMessage
		}
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("%s: 200 that is not a page: %v", url, err)
		}
		r.items = len(p.Tweets) + len(p.Users) + len(p.Lists)
	}
	return r
}

// checkLedger asserts that the key's ledger debits equal the balance drop
// and paidItems × price, in exactly paidResponses rows with distinct
// request ids, and that the balance is not negative.
func checkLedger(t *testing.T, st *postgres.Store, id, credit, paidItems, paidResponses int64) int64 {
	t.Helper()
	k, err := st.Key(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if k.Balance < 0 {
		t.Errorf("overspent: balance %d micro-USD", k.Balance)
	}
	ledger, err := st.Ledger(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var debits, items, rows int64
	ids := map[string]bool{}
	for _, l := range ledger {
		if l.Kind != "debit" {
			continue
		}
		debits += l.Amount
		items += int64(l.Items)
		rows++
		if ids[l.RequestID] {
			t.Errorf("request %s has two ledger rows", l.RequestID)
		}
		ids[l.RequestID] = true
	}
	drop := credit - k.Balance
	if drop != paidItems*billing.DefaultPrice || debits != drop || items != paidItems || rows != paidResponses {
		t.Errorf("served %d items in %d paid responses (%d micro-USD); balance dropped %d; ledger: %d micro-USD for %d items in %d rows",
			paidItems, paidResponses, paidItems*billing.DefaultPrice, drop, debits, items, rows)
	}
	return k.Balance
}

// TestReplicasBilling: three servers on one database, 64 clients at one
// key with a small balance: no overspend, and what was served is exactly
// what the balance and the ledger say was charged.
func TestReplicasBilling(t *testing.T) {
	c := newCluster(t)
	urls := c.serve(t, c.db, 3, "--rate-limit", "1000000")
	st := c.openStore(t)
	const credit = 200_000 // 0.2 USD: 1000 items
	key, id := c.newKey(t, st, billing.FormatUSD(credit))
	paths := c.paths()

	const clients = 64
	var paidItems, paid, refused, total atomic.Int64
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Go(func() {
			for i := 0; i < 200; i++ {
				r := fetch(t, urls[(cl+i)%len(urls)]+paths[(cl+i)%len(paths)], key)
				total.Add(1)
				switch r.status {
				case http.StatusOK:
					if r.items > 0 {
						paidItems.Add(int64(r.items))
						paid.Add(1)
					}
				case http.StatusPaymentRequired:
					refused.Add(1)
					if refused.Load() > 4*clients {
						return // out of money on every path
					}
				default:
					t.Errorf("status %d: %s", r.status, r.body)
					return
				}
			}
		})
	}
	wg.Wait()
	if refused.Load() == 0 {
		t.Fatalf("no request was refused with 402: the balance was not exhausted")
	}
	bal := checkLedger(t, st, id, credit, paidItems.Load(), paid.Load())
	t.Logf("%d requests over %d servers: %d paid responses with %d items, %d refused with 402, %s USD left",
		total.Load(), len(urls), paid.Load(), paidItems.Load(), refused.Load(), billing.FormatUSD(bal))
}

// TestReplicasRateLimit: a key limited to 30 requests a minute gets its
// bucket of 30 from three replicas together, plus what refills (one every
// 2 s) while the requests run: the bucket is shared.
func TestReplicasRateLimit(t *testing.T) {
	c := newCluster(t)
	urls := c.serve(t, c.db, 3)
	st := c.openStore(t)
	key, _ := c.newKey(t, st, "100", "--rate-limit", "30")
	path := c.paths()[0]
	start := time.Now()
	var ok, limited atomic.Int64
	var wg sync.WaitGroup
	for cl := range 16 {
		wg.Go(func() {
			for i := range 6 {
				r := fetch(t, urls[(cl+i)%len(urls)]+path, key)
				switch r.status {
				case http.StatusOK:
					ok.Add(1)
				case http.StatusTooManyRequests:
					limited.Add(1)
					ra, err := strconv.Atoi(r.header.Get("Retry-After"))
					if err != nil || ra < 1 || ra > 2 {
						t.Errorf("429 with Retry-After %q, want 1 or 2 s (one token refills in 2 s)", r.header.Get("Retry-After"))
					}
				default:
					t.Errorf("status %d: %s", r.status, r.body)
				}
				if r.header.Get("X-RateLimit-Limit") != "30" {
					t.Errorf("X-RateLimit-Limit %q", r.header.Get("X-RateLimit-Limit"))
				}
			}
		})
	}
	wg.Wait()
	refilled := int64(time.Since(start)/(2*time.Second)) + 1
	if ok.Load() < 30 || ok.Load() > 30+refilled || ok.Load()+limited.Load() != 96 {
		t.Errorf("%d answered, %d limited by three replicas in %v; want 30 to %d", ok.Load(), limited.Load(),
			time.Since(start), 30+refilled)
	}
}

// TestReplicasSeeAdminAtOnce: a revocation, a top-up and a limit change
// made through one replica's admin API hold on every replica at once.
func TestReplicasSeeAdminAtOnce(t *testing.T) {
	c := newCluster(t)
	const token = "replica-admin-token-0123"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	urls := c.serve(t, c.db, 2, "--admin-token-file", tokenFile, "--admin-addr", "127.0.0.1:0")
	st := c.openStore(t)
	key, id := c.newKey(t, st, "0.001") // 5 items
	c.mu.Lock()
	adminURL := c.admin[0]
	c.mu.Unlock()
	post := func(path, body string) {
		req, _ := http.NewRequest(http.MethodPost, adminURL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	keyPath := "/admin/keys/" + strconv.FormatInt(id, 10)
	post(keyPath+"/topup", `{"credits_usd":"1"}`)
	for _, u := range urls {
		if r := fetch(t, u+"/user/balance", key); r.status != http.StatusOK || !strings.Contains(r.body, `"balance_usd":1.001`) {
			t.Errorf("%s after the top-up: %d %s", u, r.status, r.body)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, adminURL+keyPath+"/rate-limit", strings.NewReader(`{"rate_limit":7}`))
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("set the rate limit: %v", err)
	}
	for _, u := range urls {
		if r := fetch(t, u+"/user/balance", key); r.header.Get("X-RateLimit-Limit") != "7" {
			t.Errorf("%s after the limit change: X-RateLimit-Limit %q", u, r.header.Get("X-RateLimit-Limit"))
		}
	}
	post(keyPath+"/revoke", ``)
	for _, u := range urls {
		if r := fetch(t, u+"/user/balance", key); r.status != http.StatusUnauthorized {
			t.Errorf("%s after the revocation: %d", u, r.status)
		}
	}
}

// withAppName returns url with application_name set, so that the test can
// find exactly the server's connections.
func withAppName(t *testing.T, raw, name string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestConnectionLoss: when the server's database connections are
// terminated while it serves, a request that cannot be answered on a
// fresh connection fails with 503 (never 500) and is not charged, and the
// server recovers by itself.
func TestConnectionLoss(t *testing.T) {
	c := newCluster(t)
	var b [4]byte
	rand.Read(b[:])
	app := "roost_conn_test_" + hex.EncodeToString(b[:])
	urls := c.serve(t, withAppName(t, c.db, app), 1, "--rate-limit", "1000000")
	st := c.openStore(t)
	const credit = 100_000_000
	key, id := c.newKey(t, st, billing.FormatUSD(credit))
	paths := c.paths()

	ctx := context.Background()
	admin, err := pgx.Connect(ctx, storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	terminate := func() int {
		var n int
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1`, app).Scan(&n)
		if err != nil {
			t.Fatalf("terminate backends: %v", err)
		}
		return n
	}

	const want503 = `{"status":"error","message":"Service unavailable, try again shortly"}`
	var paidItems, paid, failed, total atomic.Int64
	var killed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for cl := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := fetch(t, urls[0]+paths[(cl+i)%len(paths)], key)
				total.Add(1)
				switch {
				case r.status == http.StatusOK:
					if r.items > 0 {
						paidItems.Add(int64(r.items))
						paid.Add(1)
					}
				case r.status == http.StatusServiceUnavailable && strings.TrimSpace(r.body) == want503:
					failed.Add(1)
				default:
					t.Errorf("status %d: %s", r.status, r.body)
				}
			}
		})
	}
	// Terminate the server's connections again and again while the
	// clients run: requests in flight fail, or run again on a fresh
	// connection.
	for range 30 {
		time.Sleep(100 * time.Millisecond)
		killed.Add(int64(terminate()))
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	if killed.Load() == 0 {
		t.Fatalf("no backend of %s was terminated", app)
	}
	// Failed requests charged nothing: the ledger holds the paid ones only.
	checkLedger(t, st, id, credit, paidItems.Load(), paid.Load())

	// The server recovers by itself: every path answers again.
	recovered := false
	for range 50 {
		ok := true
		for _, p := range paths {
			if r := fetch(t, urls[0]+p, key); r.status != http.StatusOK {
				ok = false
			}
		}
		if ok {
			recovered = true
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !recovered {
		t.Errorf("the server did not recover after its connections were terminated")
	}
	t.Logf("%d requests: %d paid, %d failed with 503 while %d backends were terminated", total.Load(), paid.Load(), failed.Load(), killed.Load())
}

// TestReadStandby: two servers with --db-read on a hot standby of the
// test cluster. Reads arrive at the standby and debits at the primary
// (a standby refuses writes); the standby stopped in the middle of the
// load loses no request and no charge: reads go to the primary.
func TestReadStandby(t *testing.T) {
	sb := storetest.StartStandby(t)
	c := newCluster(t)
	sb.WaitCaughtUp(t)
	standby := sb.URL(c.db)
	urls := c.serve(t, c.db, 2, "--db-read", standby, "--rate-limit", "1000000")
	st := c.openStore(t)
	const credit = 100_000_000 // plenty: no request is refused
	key, id := c.newKey(t, st, billing.FormatUSD(credit))
	paths := c.paths()
	standbyReads := func() int64 {
		var n int64
		re := regexp.MustCompile(`roost_db_reads_total\{db="127\.0\.0\.1:` + strconv.Itoa(sb.Port) + `/[^"]*"\} (\d+)`)
		for _, u := range urls {
			resp, err := httpClient.Get(u + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := re.FindSubmatch(body); m != nil {
				v, _ := strconv.ParseInt(string(m[1]), 10, 64)
				n += v
			}
		}
		return n
	}
	var paidItems, paid, total atomic.Int64
	load := func(requests int) {
		var wg sync.WaitGroup
		for cl := range 16 {
			wg.Go(func() {
				for i := range requests {
					r := fetch(t, urls[(cl+i)%len(urls)]+paths[(cl+i)%len(paths)], key)
					total.Add(1)
					if r.status != http.StatusOK {
						t.Errorf("status %d: %s", r.status, r.body)
						return
					}
					if r.items > 0 {
						paidItems.Add(int64(r.items))
						paid.Add(1)
					}
				}
			})
		}
		wg.Wait()
	}
	load(10)
	if n := standbyReads(); n == 0 {
		t.Fatalf("no read arrived at the standby after %d requests", total.Load())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		load(40)
	}()
	for total.Load() < 16*10+100 { // well into the second load
		time.Sleep(5 * time.Millisecond)
	}
	sb.Stop(t)
	<-done
	checkLedger(t, st, id, credit, paidItems.Load(), paid.Load())
	t.Logf("%d requests, %d paid responses, %d standby reads; the standby stopped mid-load", total.Load(), paid.Load(), standbyReads())
}
