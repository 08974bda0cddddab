package httpapi

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
)

// TestRateLimitHeaders: every response to a key carries its bucket's
// state; the 429 says when to retry.
func TestRateLimitHeaders(t *testing.T) { eachEngine(t, testRateLimitHeaders) }

func testRateLimitHeaders(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 3)
	for i, path := range []string{"/social/user/1/tweets", "/social/user/abc/tweets", "/user/balance"} {
		w := e.do(call{path: path, key: key})
		h := w.Header()
		if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) ||
			h.Get("X-RateLimit-Reset") != strconv.Itoa(20*(i+1)) {
			t.Errorf("%s (%d): Limit %q Remaining %q Reset %q", path, w.Code, h.Get("X-RateLimit-Limit"),
				h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"))
		}
	}
	w := e.do(call{path: "/social/user/1/tweets", key: key})
	h := w.Header()
	if w.Code != http.StatusTooManyRequests || h.Get("Retry-After") != "20" || h.Get("X-RateLimit-Remaining") != "0" ||
		h.Get("X-RateLimit-Reset") != "60" {
		t.Errorf("4th: %d Retry-After %q Remaining %q Reset %q", w.Code, h.Get("Retry-After"),
			h.Get("X-RateLimit-Remaining"), h.Get("X-RateLimit-Reset"))
	}
	if w := e.do(call{path: "/social/user/1/tweets"}); w.Header().Get("X-RateLimit-Limit") != "" {
		t.Errorf("a request without a key got rate-limit headers")
	}
}

// TestIdempotentRetry: a retry with the same Idempotency-Key gets the same
// page and no second charge (X-Roost-Items 0), also when both arrive at once; the key used
// for another request is 422; after 24 hours the key is new again.
func TestIdempotentRetry(t *testing.T) { eachEngine(t, testIdempotentRetry) }

func testIdempotentRetry(t *testing.T, eng engine) {
	clock := time.Now()
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	e := newEnv(t, eng, Config{Now: now, RateLimit: -1}, fixture())
	key, id := e.key(t, plenty, 0)
	idem := map[string]string{"Idempotency-Key": "retry-1"}
	first := e.do(call{path: "/social/user/1/tweets", key: key, header: idem})
	if first.Code != 200 || first.Header().Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %q", first.Code, first.Header().Get("Idempotent-Replayed"))
	}
	paid := plenty - e.balance(t, id)
	if paid != 20*200 {
		t.Fatalf("first page cost %d", paid)
	}
	// What the answer charged, in items and dollars; a replay charged none.
	if h := first.Header(); h.Get("X-Roost-Items") != "20" || h.Get("X-Roost-Charged-USD") != "0.004" {
		t.Errorf("first: X-Roost-Items %q, X-Roost-Charged-USD %q; want 20, 0.004", h.Get("X-Roost-Items"), h.Get("X-Roost-Charged-USD"))
	}
	again := e.do(call{path: "/social/user/1/tweets", key: key, header: idem})
	if again.Code != 200 || again.Body.String() != first.Body.String() || again.Header().Get("Idempotent-Replayed") != "true" ||
		again.Header().Get("X-Roost-Items") != "0" || again.Header().Get("X-Roost-Charged-USD") != "0" {
		t.Errorf("retry: %d replayed %q, same body %v, headers %v", again.Code, again.Header().Get("Idempotent-Replayed"),
			again.Body.String() == first.Body.String(), again.Header())
	}
	other := e.do(call{path: "/social/user/3/tweets", key: key, header: idem})
	if other.Code != http.StatusUnprocessableEntity || !strings.Contains(other.Body.String(), "Idempotency-Key was used for another request") {
		t.Errorf("same key, other request: %d %s", other.Code, other.Body)
	}
	bad := e.do(call{path: "/social/user/1/tweets", key: key, header: map[string]string{"Idempotency-Key": "two words"}})
	if bad.Code != http.StatusUnprocessableEntity {
		t.Errorf("bad Idempotency-Key: %d %s", bad.Code, bad.Body)
	}
	post := map[string]string{"Idempotency-Key": "post-1"}
	body := `{"ids":["105",101]}`
	p1 := e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: body, header: post})
	p2 := e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: body, header: post})
	p3 := e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101]}`, header: post})
	if p1.Code != 200 || p2.Body.String() != p1.Body.String() || p3.Code != http.StatusUnprocessableEntity {
		t.Errorf("POST retries: %d, same %v, other body %d", p1.Code, p2.Body.String() == p1.Body.String(), p3.Code)
	}
	// Twins at once: one charge, one body.
	var wg sync.WaitGroup
	bodies := make([]string, 8)
	for i := range bodies {
		wg.Go(func() {
			w := e.do(call{path: "/social/list/9/tweets", key: key, header: map[string]string{"Idempotency-Key": "twins"}})
			if w.Code != 200 {
				t.Errorf("twin %d: %d %s", i, w.Code, w.Body)
			}
			bodies[i] = w.Body.String()
		})
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("twins got different bodies")
		}
	}
	if spent := plenty - e.balance(t, id); spent != (20+2+13)*200 {
		t.Errorf("spent %d, want %d: one charge per Idempotency-Key", spent, (20+2+13)*200)
	}
	mu.Lock()
	clock = clock.Add(social.IdempotencyWindow + time.Minute)
	mu.Unlock()
	later := e.do(call{path: "/social/user/1/tweets", key: key, header: idem})
	if later.Code != 200 || later.Header().Get("Idempotent-Replayed") != "" {
		t.Errorf("after 24 hours: %d replayed %q", later.Code, later.Header().Get("Idempotent-Replayed"))
	}
	if debits := e.debits(t, id); debits != 4 {
		t.Errorf("%d debits in the ledger, want 4", debits)
	}
}

// TestReady: /readyz is 200 once the store answers with its migrations
// done, 503 while one is missing.
func TestReady(t *testing.T) {
	path := filepath.Join(t.TempDir(), "roost.db")
	st := storeengines.SQLite(t, path)
	e := &env{store: st, h: New(Config{}, st, nil, nil)}
	if w := e.do(call{path: "/readyz"}); w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"ready"}` {
		t.Errorf("ready: %d %s", w.Code, w.Body)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	if w := e.do(call{path: "/readyz"}); w.Code != http.StatusServiceUnavailable {
		t.Errorf("with a migration missing: %d %s", w.Code, w.Body)
	}
	if w := e.do(call{path: "/healthz"}); w.Code != 200 {
		t.Errorf("healthz: %d", w.Code)
	}
}

// TestCanonicalHeaders: the charge headers are stored under the names
// net/http canonicalizes to, so that Header.Get finds them.
func TestCanonicalHeaders(t *testing.T) {
	for name, canonical := range map[string]string{headerItems: canonicalItems, headerCharged: canonicalCharged} {
		if got := http.CanonicalHeaderKey(name); got != canonical {
			t.Errorf("CanonicalHeaderKey(%q) = %q, the constant says %q", name, got, canonical)
		}
	}
	h := http.Header{}
	setCharged(h, 1234, 1_234_500)
	if h.Get(headerItems) != "1234" || h.Get(headerCharged) != "1.2345" || len(h) != 2 {
		t.Errorf("setCharged: %v", h)
	}
}
