package hatest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/billing"
)

// unavailable is roost's answer while no primary is reachable.
const unavailable = `{"status":"error","message":"Service unavailable, try again shortly"}`

// attempt is one HTTP request of a logical request.
type attempt struct {
	sent, answered time.Time
	status         int // -1: no answer (a transport error)
	requestID      string
	replayed       bool
	items          int
}

// logical is a paid request as a client makes it: one Idempotency-Key,
// tried until it is answered 200.
type logical struct {
	key      string
	path     string
	attempts []attempt
}

func (l *logical) last() attempt { return l.attempts[len(l.attempts)-1] }

var client = &http.Client{Timeout: 90 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// send makes one attempt of l at base; t.Errorf reports an answer that
// is neither 200 nor roost's 503 with Retry-After.
func send(t *testing.T, base, apiKey string, l *logical) attempt {
	a := attempt{sent: time.Now(), status: -1}
	req, err := http.NewRequest(http.MethodGet, base+l.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("Idempotency-Key", l.key)
	resp, err := client.Do(req)
	if err != nil {
		a.answered = time.Now()
		return a
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	a.answered = time.Now()
	if err != nil {
		return a
	}
	a.status, a.requestID = resp.StatusCode, resp.Header.Get("X-Request-Id")
	a.replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	switch a.status {
	case http.StatusOK:
		var p struct{ Tweets, Users, Lists []json.RawMessage }
		if err := json.Unmarshal(body, &p); err != nil {
			t.Errorf("%s: a 200 that is not a page: %v", l.path, err)
		}
		a.items = len(p.Tweets) + len(p.Users) + len(p.Lists)
	case http.StatusServiceUnavailable:
		if strings.TrimSpace(string(body)) != unavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s: 503 %q Retry-After %q", l.path, body, resp.Header.Get("Retry-After"))
		}
	default:
		t.Errorf("%s: %d %s", l.path, a.status, body)
	}
	return a
}

// TestFailover: two roost replicas under paid load from clients that
// retry with their Idempotency-Key (on the other replica, waiting
// Retry-After) while the primary's node is killed with SIGKILL and
// Patroni promotes the synchronous standby. Service is back within
// maxOutage of the kill, no answer is 500, every 200 is charged exactly
// once, nothing is charged without a 200, and the balance is the credit
// minus the ledger.
func TestFailover(t *testing.T) {
	tp := loadTopology(t)
	const credit = 1_000_000_000 // 1000 USD: never runs out
	var made struct {
		Key     string `json:"key"`
		Account struct {
			ID int64 `json:"id"`
		} `json:"account"`
	}
	tp.adminCall(t, http.MethodPost, "/admin/keys", `{"name":"ha-failover","credits_usd":"1000","rate_limit":1000000}`, &made)
	paths := tp.paths()
	var tag [4]byte
	rand.Read(tag[:])
	run := hex.EncodeToString(tag[:])

	const workers = 16
	var (
		mu    sync.Mutex
		done  []*logical
		stop  atomic.Bool
		wg    sync.WaitGroup
		ok200 atomic.Int64
	)
	for w := range workers {
		wg.Go(func() {
			for seq := 0; !stop.Load(); seq++ {
				l := &logical{key: fmt.Sprintf("ha-%s-%d-%d", run, w, seq), path: paths[(w+seq)%len(paths)]}
				begun := time.Now()
				for try := 0; ; try++ {
					// A retry goes to the other replica, as a load balancer may send it.
					a := send(t, tp.urls[(w+try)%len(tp.urls)], made.Key, l)
					l.attempts = append(l.attempts, a)
					if a.status == http.StatusOK {
						ok200.Add(1)
						break
					}
					if a.status != http.StatusServiceUnavailable && a.status != -1 {
						break // reported by send
					}
					if time.Since(begun) > 3*time.Minute {
						t.Errorf("%s: no 200 within 3 minutes of retries", l.key)
						break
					}
					time.Sleep(time.Second) // under roost's Retry-After of 2 s: the outage is measured finer
				}
				mu.Lock()
				done = append(done, l)
				mu.Unlock()
			}
		})
	}
	// Load before the kill, the kill, then until the service has been
	// back a while.
	time.Sleep(5 * time.Second)
	if ok200.Load() == 0 {
		stop.Store(true)
		wg.Wait()
		t.Fatal("no 200 before the kill")
	}
	probes := probeHealth(tp, &stop)
	killed := tp.ctlRun(t, "kill-primary")
	kill := time.Now()
	t.Logf("killed %s, the primary, with SIGKILL", killed)
	const maxOutage = 90 * time.Second
	back := time.Time{}
	for back.IsZero() && time.Since(kill) < maxOutage+30*time.Second {
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		back = firstFreshOK(done, kill)
		mu.Unlock()
	}
	time.Sleep(5 * time.Second)
	stop.Store(true)
	wg.Wait()
	probes.check(t)
	if back.IsZero() {
		back = firstFreshOK(done, kill)
	}
	if back.IsZero() {
		t.Fatalf("no request sent after the kill was answered 200")
	}
	outage := back.Sub(kill)
	t.Logf("service back %.1f s after the kill (a 200 to a request sent after it)", outage.Seconds())
	if outage > maxOutage {
		t.Errorf("service back only after %s, want within %s", outage, maxOutage)
	}
	t.Logf("after failover: %s", strings.ReplaceAll(tp.ctlRun(t, "status"), "\n", "; "))
	checkMoney(t, tp, made.Account.ID, credit, done)
	checkSettled(t, tp)
	checkReadsOffPrimary(t, tp)
}

// firstFreshOK is when the first request sent after kill was answered 200
// (zero: none yet).
func firstFreshOK(done []*logical, kill time.Time) time.Time {
	var first time.Time
	for _, l := range done {
		for _, a := range l.attempts {
			if a.status == http.StatusOK && a.sent.After(kill) && (first.IsZero() || a.answered.Before(first)) {
				first = a.answered
			}
		}
	}
	return first
}

// checkMoney compares what the clients were answered with the ledger:
// every logical request answered 200 with items has exactly one debit,
// of its items at the price, made by one of its attempts; no debit
// belongs to anything else; the balance is the credit minus the debits.
func checkMoney(t *testing.T, tp *topology, id, credit int64, done []*logical) {
	byRequest := map[string]*logical{}
	codes := map[int]int{}
	var paid, retried, replayed int
	var longest time.Duration
	for _, l := range done {
		for _, a := range l.attempts {
			codes[a.status]++
			if a.requestID != "" {
				byRequest[a.requestID] = l
			}
		}
		last := l.last()
		if last.status == http.StatusOK && last.items > 0 {
			paid++
		}
		if len(l.attempts) > 1 {
			retried++
			if last.replayed {
				replayed++
			}
		}
		longest = max(longest, last.answered.Sub(l.attempts[0].sent))
	}
	t.Logf("%d requests (%d retried, %d answered from a kept response), %d paid; answers %v; longest request %.1f s",
		len(done), retried, replayed, paid, codes, longest.Seconds())
	if codes[http.StatusInternalServerError] > 0 {
		t.Errorf("%d answers were 500", codes[http.StatusInternalServerError])
	}
	balance, rows := tp.account(t, id)
	charged := map[*logical]int{}
	var debited int64
	for _, r := range rows {
		if r.Kind != "debit" {
			continue
		}
		amount := micros(t, r.AmountUSD)
		debited += amount
		l := byRequest[r.RequestID]
		switch {
		case l == nil:
			t.Errorf("debit of request %s (%d items): no attempt of the test was that request", r.RequestID, r.Items)
			continue
		case l.last().status != http.StatusOK:
			t.Errorf("%s was charged (request %s) but never answered 200", l.key, r.RequestID)
		case r.Items != l.last().items || amount != int64(r.Items)*billing.DefaultPrice:
			t.Errorf("%s: charged %d micro-USD for %d items; answered %d items", l.key, amount, r.Items, l.last().items)
		}
		charged[l]++
	}
	for _, l := range done {
		want := 0
		if last := l.last(); last.status == http.StatusOK && last.items > 0 {
			want = 1
		}
		if charged[l] != want {
			t.Errorf("%s (%d attempts, last %d): charged %d times, want %d", l.key, len(l.attempts), l.last().status, charged[l], want)
		}
	}
	if balance != credit-debited {
		t.Errorf("balance %d micro-USD; credit %d minus the ledger's debits %d is %d", balance, credit, debited, credit-debited)
	}
	t.Logf("ledger: %d debits, %s USD; balance %s USD = credit − debits", len(charged),
		billing.FormatUSD(debited), strconv.Quote(billing.FormatUSD(balance)))
}
