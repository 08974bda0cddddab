package httpapi

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/store/storetest"
)

// TestNoPrimary: while the database behind a read-write URL is stopped
// (a failover's window, before a standby is promoted), /readyz is 503,
// /healthz stays 200 and says so, and paid and free requests answer 503
// with Retry-After in the hosted error shape, charging nothing; once the
// database is back, the same server serves again without a restart.
func TestNoPrimary(t *testing.T) {
	sb := storetest.StartStandby(t)
	sb.WaitCaughtUp(t)
	sb.Promote(t) // a throwaway primary, stopped below
	u, err := url.Parse(storetest.FreshSchema(t, sb.URL(storetest.PostgresURL(t))))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	u.RawQuery = q.Encode()
	e := pgEnv(t, u.String())
	key, id := e.key(t, plenty, 0)
	paid := call{path: "/social/user/1/tweets", key: key}
	free := call{path: "/user/balance", key: key}
	answer := func(c call) (int, string, string) {
		w := e.do(c)
		return w.Code, strings.TrimSpace(w.Body.String()), w.Header().Get("Retry-After")
	}
	if code, body, _ := answer(call{path: "/readyz"}); code != 200 {
		t.Fatalf("readyz before: %d %s", code, body)
	}
	if code, body, _ := answer(paid); code != 200 {
		t.Fatalf("paid before: %d %s", code, body)
	}
	charged := plenty - e.balance(t, id)
	if charged <= 0 {
		t.Fatalf("the first page charged %d", charged)
	}

	sb.Stop(t)
	const unavailable = `{"status":"error","message":"Service unavailable, try again shortly"}`
	for _, c := range []call{paid, free, {method: http.MethodPost, path: "/social/tweets-by-ids", key: key, body: `{"ids":[1]}`}} {
		if code, body, retry := answer(c); code != http.StatusServiceUnavailable || body != unavailable || retry != "2" {
			t.Errorf("%s %s without a primary: %d %s Retry-After %q", c.method, c.path, code, body, retry)
		}
	}
	if code, body, retry := answer(call{path: "/readyz"}); code != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("readyz without a primary: %d %s Retry-After %q", code, body, retry)
	}
	if code, body, _ := answer(call{path: "/healthz"}); code != 200 || body != `{"status":"ok","database":"unavailable"}` {
		t.Errorf("healthz without a primary: %d %s", code, body)
	}

	sb.Start(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, _, _ := answer(call{path: "/readyz"})
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("readyz still %d 30 s after the database came back", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code, body, _ := answer(call{path: "/healthz"}); code != 200 || body != `{"status":"ok"}` {
		t.Errorf("healthz after: %d %s", code, body)
	}
	if code, body, _ := answer(paid); code != 200 {
		t.Fatalf("paid after: %d %s", code, body)
	}
	if got, want := plenty-e.balance(t, id), 2*charged; got != want {
		t.Errorf("charged %d micro-USD, want %d for the two pages answered: the 503s were charged", got, want)
	}
	if n := e.debits(t, id); n != 2 {
		t.Errorf("%d debits in the ledger, want 2", n)
	}
}
