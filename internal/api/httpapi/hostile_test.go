package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/syncbuf"
)

// rawExchange sends raw bytes to a server, half-closes when closeWrite,
// and returns the response.
func rawExchange(t *testing.T, addr, raw string, closeWrite bool) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		conn.(*net.TCPConn).CloseWrite()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response to %q: %v", raw, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp
}

// TestBodyCutShort: a POST whose body ends before its Content-Length, or
// trickles in past the server's read timeout, is the client's fault: 400
// in the JSON error shape, logged at info level, nothing charged.
func TestBodyCutShort(t *testing.T) {
	base := newEnv(t, engines()[0], Config{}, fixture())
	key, id := base.key(t, plenty, 0)
	var logs syncbuf.Buffer
	h := New(Config{Registry: prometheus.NewRegistry()}, base.store, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = 500 * time.Millisecond
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	head := "POST /social/tweets-by-ids HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"ids\":[1"
	for name, closeWrite := range map[string]bool{"ends early": true, "trickles past the read timeout": false} {
		resp := rawExchange(t, addr, head, closeWrite)
		body, _ := io.ReadAll(resp.Body)
		want := `{"status":"error","message":"Request body could not be read"}`
		if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(string(body)) != want ||
			resp.Header.Get("Content-Type") != contentTypeJSON {
			t.Errorf("%s: %d %q %s; want 400 %s", name, resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
		}
	}
	srv.Close()
	if l := logs.String(); strings.Contains(l, "level=ERROR") || strings.Count(l, `msg="bad request"`) != 2 {
		t.Errorf("want two info lines and no error:\n%s", l)
	}
	if base.balance(t, id) != plenty {
		t.Errorf("a cut body was charged")
	}
}

// TestHeadNotCharged: HEAD on a data endpoint is 405 and charges nothing
// (it used to answer 200 without a body and charge the page).
func TestHeadNotCharged(t *testing.T) {
	e := newEnv(t, engines()[0], Config{}, fixture())
	key, id := e.key(t, plenty, 0)
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodHead, srv.URL+"/social/user/1/tweets", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET" {
		t.Errorf("HEAD: %d Allow %q; want 405 Allow GET", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if e.balance(t, id) != plenty {
		t.Errorf("HEAD was charged %d micro-USD", plenty-e.balance(t, id))
	}
}

// TestRejectedBeforeRoost: requests that Go's server refuses before any
// handler runs get a 4xx (in its plain text), never a 500 or a page.
func TestRejectedBeforeRoost(t *testing.T) {
	e := newEnv(t, engines()[0], Config{}, fixture())
	srv := httptest.NewUnstartedServer(e.h)
	srv.Config.MaxHeaderBytes = 64 << 10
	srv.Start()
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	for name, raw := range map[string]string{
		"space in target":      "GET /social/user/1 /tweets HTTP/1.1\r\nHost: x\r\n\r\n",
		"bad escape in path":   "GET /social/user/%zz/tweets HTTP/1.1\r\nHost: x\r\n\r\n",
		"bad Content-Length":   "POST /social/tweets-by-ids HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"headers over 64 KiB":  "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("a", 80<<10) + "\r\n\r\n",
		"unknown HTTP version": "GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n",
	} {
		resp := rawExchange(t, addr, raw, false)
		if (resp.StatusCode < 400 || resp.StatusCode >= 500) && resp.StatusCode != http.StatusHTTPVersionNotSupported {
			t.Errorf("%s: %d, want a 4xx (505 for the version)", name, resp.StatusCode)
		}
	}
}

// TestUncleanPathsNotRedirected: paths with "//", "." or ".." segments are
// 404 Unknown endpoint, never a redirect with an error body.
func TestUncleanPathsNotRedirected(t *testing.T) {
	e := newEnv(t, engines()[0], Config{}, fixture())
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	for _, p := range []string{"//social/user/1/tweets", "/social/user/1/../2/tweets", "/social/./search", "/healthz/"} {
		resp := rawExchange(t, srv.Listener.Addr().String(), "GET "+p+" HTTP/1.1\r\nHost: x\r\n\r\n", false)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotFound || strings.TrimSpace(string(body)) != `{"status":"error","message":"Unknown endpoint"}` {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
}

// blockingStore holds UserPosts until release is closed, counting callers.
type blockingStore struct {
	socialStore
	entered chan struct{}
	release chan struct{}
}

func (b *blockingStore) UserPosts(ctx context.Context, id int64, withReplies bool, p pageReq) (postPage, error) {
	select {
	case b.entered <- struct{}{}:
		<-b.release
	case <-b.release:
	}
	return b.socialStore.UserPosts(ctx, id, withReplies, p)
}

// TestConcurrencyCap: beyond MaxConcurrent requests in flight the next is
// 503 with Retry-After at once, probes still answer, and once the
// requests in flight finish the API serves again.
func TestConcurrencyCap(t *testing.T) {
	base := newEnv(t, engines()[0], Config{}, fixture())
	key, _ := base.key(t, plenty, 0)
	bs := &blockingStore{socialStore: base.store, entered: make(chan struct{}), release: make(chan struct{})}
	h := New(Config{MaxConcurrent: 2, Registry: prometheus.NewRegistry(), RateLimit: -1}, bs, nil, nil)
	do := func(path string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Go(func() { codes <- do("/social/user/1/tweets").Code })
		<-bs.entered
	}
	w := do("/social/user/1/tweets")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "1" ||
		strings.TrimSpace(w.Body.String()) != `{"status":"error","message":"Server busy"}` {
		t.Errorf("third request in flight: %d Retry-After %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := do("/healthz"); w.Code != http.StatusOK {
		t.Errorf("healthz while busy: %d", w.Code)
	}
	close(bs.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a request in flight got %d", c)
		}
	}
	if w := do("/social/user/1/tweets"); w.Code != http.StatusOK {
		t.Errorf("after the burst: %d %s", w.Code, w.Body)
	}
}
