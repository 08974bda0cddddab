package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/research/graph"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/syncbuf"
	"github.com/roostapi/roost/internal/world/gen"
)

// TestStreamedIdempotency: every streamed answer (an export in each
// format, a network in each format and table) sent twice with the same
// Idempotency-Key: the second is charged nothing and is the first again,
// telling in X-Roost-Items-Replayed what it sent free (a network also
// with Idempotent-Replayed); the key with another query is 422, and so is
// a streamed answer's key on a page of search and a page's key on an
// export.
func TestStreamedIdempotency(t *testing.T) { eachEngine(t, testStreamedIdempotency) }

func testStreamedIdempotency(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	key, id := e.key(t, plenty, 0)
	var paths []string
	for _, f := range export.Formats() {
		paths = append(paths, "/social/search/export?query=the&limit=1500&format="+f)
	}
	for _, f := range graph.Formats() {
		if f != graph.FormatCSV {
			paths = append(paths, "/social/search/network?query=the&format="+f)
			continue
		}
		for _, part := range graph.Parts() {
			paths = append(paths, "/social/search/network?query=the&format=csv&part="+part)
		}
	}
	// items is what a streamed answer says it charged and sent free.
	items := func(w *httptest.ResponseRecorder, name string) string {
		if v := w.Header().Get(name); v != "" {
			return v
		}
		return w.Result().Trailer.Get(name)
	}
	for i, path := range paths {
		idem := map[string]string{headerIdempotencyKey: "stream-" + strconv.Itoa(i)}
		before, debits := e.balance(t, id), e.debits(t, id)
		first := e.do(call{path: path, key: key, header: idem})
		n, _ := strconv.Atoi(items(first, headerItems))
		if spent := before - e.balance(t, id); first.Code != http.StatusOK || n == 0 || spent != int64(n)*billing.DefaultPrice ||
			items(first, headerItemsReplayed) != "0" {
			t.Fatalf("%s: %d, %s %q, %s %q, charged %d", path, first.Code, headerItems, items(first, headerItems),
				headerItemsReplayed, items(first, headerItemsReplayed), spent)
		}
		paid, paidDebits := e.balance(t, id), e.debits(t, id)
		if paidDebits == debits {
			t.Fatalf("%s: no debit", path)
		}
		second := e.do(call{path: path, key: key, header: idem})
		if second.Code != http.StatusOK || !bytes.Equal(second.Body.Bytes(), first.Body.Bytes()) {
			t.Errorf("%s again: %d, %d bytes, want the first's %d", path, second.Code, second.Body.Len(), first.Body.Len())
		}
		if e.balance(t, id) != paid || e.debits(t, id) != paidDebits {
			t.Errorf("%s again: charged %d in %d debits, want nothing", path, paid-e.balance(t, id), e.debits(t, id)-paidDebits)
		}
		if items(second, headerItems) != "0" || items(second, headerItemsReplayed) != strconv.Itoa(n) {
			t.Errorf("%s again: %s %q, %s %q; want 0 and %d", path, headerItems, items(second, headerItems),
				headerItemsReplayed, items(second, headerItemsReplayed), n)
		}
		if network := strings.Contains(path, "/network"); (second.Header().Get(headerReplayed) == "true") != network ||
			first.Header().Get(headerReplayed) != "" {
			t.Errorf("%s: %s %q then %q", path, headerReplayed, first.Header().Get(headerReplayed), second.Header().Get(headerReplayed))
		}
		other := e.do(call{path: strings.Replace(path, "query=the", "query=golang", 1), key: key, header: idem})
		if body := decode[wire.ErrorBody](t, other); other.Code != http.StatusUnprocessableEntity || body.Message != msgReused {
			t.Errorf("%s, its key on another query: %d %+v", path, other.Code, body)
		}
	}
	page := map[string]string{headerIdempotencyKey: "page-1"}
	if w := e.do(call{path: "/social/search?query=the", key: key, header: page}); w.Code != http.StatusOK {
		t.Fatalf("search: %d %s", w.Code, w.Body)
	}
	before := e.balance(t, id)
	for _, c := range []call{
		{path: paths[0], key: key, header: page},
		{path: "/social/search?query=the", key: key, header: map[string]string{headerIdempotencyKey: "stream-0"}},
	} {
		w := e.do(c)
		if body := decode[wire.ErrorBody](t, w); w.Code != http.StatusUnprocessableEntity || body.Message != msgReused {
			t.Errorf("%s with %v: %d %+v, want 422", c.path, c.header, w.Code, body)
		}
	}
	if e.balance(t, id) != before {
		t.Errorf("refused keys charged %d", before-e.balance(t, id))
	}
}

// TestExportResumed: an export cut at random points by a client that reads
// part of it and hangs up, retried with the same Idempotency-Key until it
// reads it whole: every try sends the start of the export, the whole is
// the export of the posts stored when the first try began (posts stored
// after it are not in it), and over all tries the key's ledger charges
// each post exactly once. Tries at once also charge each post once.
func TestExportResumed(t *testing.T) { eachEngine(t, testExportResumed) }

func testExportResumed(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{RateLimit: -1}, nil)
	ctx := context.Background()
	if _, err := gen.Generate(ctx, e.store, gen.Config{Seed: 31, Users: 100, Posts: 3000}, nil); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.h)
	defer srv.Close()
	const path = "/social/search/export?format=jsonl&query=include:nativeretweets"
	plain, _ := e.key(t, plenty, 0)
	want, _ := mustExport(t, srv, path, plain, "", -1)
	posts := bytes.Count(want, []byte("\n"))
	if posts <= 2*export.ChunkSize {
		t.Fatalf("%d posts: the test needs three chunks", posts)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 31))

	key, id := e.key(t, plenty, 0)
	for try := range 6 {
		n := 1 + rng.IntN(len(want)-1)
		got, _ := mustExport(t, srv, path, key, "resume-1", n)
		if !bytes.Equal(got, want[:len(got)]) {
			t.Fatalf("try %d cut at %d: not the start of the export", try, n)
		}
		if try == 0 {
			addPosts(t, e.store, 5)
		}
	}
	got, trailer := mustExport(t, srv, path, key, "resume-1", -1)
	if !bytes.Equal(got, want) {
		t.Errorf("the whole export: %d bytes, %d posts; want %d, %d", len(got), bytes.Count(got, []byte("\n")), len(want), posts)
	}
	charged, _ := strconv.Atoi(trailer.Get(headerItems))
	replayed, _ := strconv.Atoi(trailer.Get(headerItemsReplayed))
	if charged+replayed != posts {
		t.Errorf("last try: %s %d + %s %d, want %d posts", headerItems, charged, headerItemsReplayed, replayed, posts)
	}

	// Tries at once, of an export that now holds the added posts.
	plain, _ = e.key(t, plenty, 0)
	want, _ = mustExport(t, srv, path, plain, "", -1)
	key2, id2 := e.key(t, plenty, 0)
	var wg sync.WaitGroup
	bodies, errs := make([][]byte, 4), make([]error, 4)
	for i := range bodies {
		wg.Go(func() { bodies[i], _, errs[i] = exportTry(srv, path, key2, "together-1", -1) })
	}
	wg.Wait()
	for i, b := range bodies {
		if errs[i] != nil || !bytes.Equal(b, want) {
			t.Errorf("try %d at once: %d bytes, want %d; %v", i, len(b), len(want), errs[i])
		}
	}
	srv.Close() // waits for the handlers of the cut tries
	if n := chargedItems(t, e, id); n != posts {
		t.Errorf("the cut tries charged %d items for %d posts", n, posts)
	}
	if n, all := chargedItems(t, e, id2), bytes.Count(want, []byte("\n")); n != all {
		t.Errorf("the tries at once charged %d items for %d posts", n, all)
	}
}

// TestExportOutOfBalance: an export whose balance runs out after its
// first chunk is cut there, logged at info level (the client's doing, not
// a failure); topped up, the same Idempotency-Key sends the first chunk
// again free and charges the rest: each post once over both tries.
func TestExportOutOfBalance(t *testing.T) { eachEngine(t, testExportOutOfBalance) }

func testExportOutOfBalance(t *testing.T, eng engine) {
	e, _ := genEnv(t, eng)
	var logs syncbuf.Buffer
	h := New(Config{Now: func() time.Time { return testNow }, RateLimit: -1, Registry: prometheus.NewRegistry()},
		e.store, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	srv := httptest.NewServer(h)
	defer srv.Close()
	const path = "/social/search/export?query=the&format=ids"
	plain, _ := e.key(t, plenty, 0)
	want, _ := mustExport(t, srv, path, plain, "", -1)
	posts := bytes.Count(want, []byte("\n"))
	key, id := e.key(t, int64(export.ChunkSize*3/2)*billing.DefaultPrice, 0)
	got, _, err := exportTry(srv, path, key, "broke-1", -1)
	if err == nil || bytes.Count(got, []byte("\n")) != export.ChunkSize || !bytes.Equal(got, want[:len(got)]) {
		t.Fatalf("balance run out: %d posts, %v; want a cut after %d", bytes.Count(got, []byte("\n")), err, export.ChunkSize)
	}
	if _, err := e.store.TopUp(context.Background(), id, plenty); err != nil {
		t.Fatal(err)
	}
	got, trailer := mustExport(t, srv, path, key, "broke-1", -1)
	if !bytes.Equal(got, want) || trailer.Get(headerItems) != strconv.Itoa(posts-export.ChunkSize) ||
		trailer.Get(headerItemsReplayed) != strconv.Itoa(export.ChunkSize) {
		t.Errorf("topped up: %d of %d bytes, trailers %v", len(got), len(want), trailer)
	}
	srv.Close()
	if n := chargedItems(t, e, id); n != posts {
		t.Errorf("charged %d items for %d posts", n, posts)
	}
	if l := logs.String(); strings.Contains(l, "level=ERROR") || !strings.Contains(l, `level=INFO msg="streamed answer cut short"`) {
		t.Errorf("want the cut logged at info level, no error:\n%s", l)
	}
}

// exportTry asks srv for path with key and the Idempotency-Key idem (""
// none), reads n bytes of the body (n < 0: all of it) and hangs up. It
// returns what it read and, after a whole body, the trailers.
func exportTry(srv *httptest.Server, path, key, idem string, n int) ([]byte, http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if idem != "" {
		req.Header.Set(headerIdempotencyKey, idem)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("%s: %d", path, resp.StatusCode)
	}
	if n < 0 {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return b, nil, fmt.Errorf("%s: %w after %d bytes", path, err, len(b))
		}
		return b, resp.Trailer, nil
	}
	b := make([]byte, n)
	got, _ := io.ReadFull(resp.Body, b)
	return b[:got], nil, nil
}

// mustExport is exportTry that fails t on an error.
func mustExport(t *testing.T, srv *httptest.Server, path, key, idem string, n int) ([]byte, http.Header) {
	t.Helper()
	b, trailer, err := exportTry(srv, path, key, idem, n)
	if err != nil {
		t.Fatal(err)
	}
	return b, trailer
}

// addPosts stores n posts newer than every stored one, as a copy of the
// newest.
func addPosts(t *testing.T, s social.Store, n int) {
	t.Helper()
	ctx := context.Background()
	top, err := s.MaxPostID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Post(ctx, top)
	if err != nil {
		t.Fatal(err)
	}
	var b social.Batch
	for i := range n {
		c := social.Post{ID: top + 1 + int64(i), AuthorID: p.AuthorID, CreatedAt: p.CreatedAt, Text: "the late post",
			Source: p.Source, Lang: "en"}
		c.ConversationID = c.ID
		b.Posts = append(b.Posts, c)
	}
	if _, err := s.Write(ctx, &b); err != nil {
		t.Fatal(err)
	}
}

// chargedItems adds up the items of a key's debits.
func chargedItems(t *testing.T, e *env, id int64) int {
	t.Helper()
	n := 0
	for _, l := range e.debitRows(t, id) {
		n += l.Items
		if l.Amount != int64(l.Items)*billing.DefaultPrice {
			t.Errorf("debit %+v: not the price of its items", l)
		}
	}
	return n
}
