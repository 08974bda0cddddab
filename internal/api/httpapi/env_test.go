package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
	storeengines "github.com/roostapi/roost/internal/store/storetest/engines"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testNow is the fixed clock of the tests.
var testNow = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// engine is a database engine the end-to-end tests run on.
type engine struct {
	name string
	// open returns a fresh, empty store that is closed when t ends (and
	// skips t when the engine is not available).
	open func(t testing.TB) storeengines.Store
}

// engines are the engines every end-to-end test runs on: the embedded
// SQLite file and PostgreSQL (a fresh schema of ROOST_TEST_POSTGRES; skipped
// when it is unset, failing under CI=true).
func engines() []engine {
	var out []engine
	for _, e := range storeengines.All() {
		out = append(out, engine{e.Name, e.Open})
	}
	return out
}

func openSQLite(t testing.TB) storeengines.Store { return engines()[0].open(t) }

// eachEngine runs test as one subtest per engine.
func eachEngine(t *testing.T, test func(t *testing.T, eng engine)) {
	t.Helper()
	for _, eng := range engines() {
		t.Run(eng.name, func(t *testing.T) { test(t, eng) })
	}
}

// eachEngineB runs bench as one sub-benchmark per engine.
func eachEngineB(b *testing.B, bench func(b *testing.B, eng engine)) {
	b.Helper()
	for _, eng := range engines() {
		b.Run(eng.name, func(b *testing.B) { bench(b, eng) })
	}
}

// env is a handler over a real store of one engine. The rate limiter is
// the in-memory one on the test clock for both engines; the limiter shared
// through PostgreSQL is tested across processes in cmd/roost.
type env struct {
	store social.Store
	h     http.Handler
	reg   *prometheus.Registry
	// monitors is the store's storage of monitors (monitorEnv's).
	monitors sqlstore.Monitors
}

// newEnv opens a fresh store of eng, fills it with batch (when not nil)
// and builds the handler.
func newEnv(t testing.TB, eng engine, cfg Config, batch *social.Batch) *env {
	t.Helper()
	ctx := context.Background()
	st := eng.open(t)
	if batch != nil {
		if _, err := st.Write(ctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	return &env{store: st, h: New(cfg, st, nil, nil), reg: cfg.Registry}
}

// key creates an API key with credit micro-USD and returns it and its id.
func (e *env) key(t testing.TB, credit int64, rateLimit int) (string, int64) {
	t.Helper()
	key, digest, prefix := billing.NewKey()
	k, err := e.store.CreateKey(context.Background(), social.APIKey{
		Name: "test", Prefix: prefix, Digest: digest, RateLimit: rateLimit, CreatedAt: testNow,
	}, credit)
	if err != nil {
		t.Fatal(err)
	}
	return key, k.ID
}

func (e *env) balance(t testing.TB, id int64) int64 {
	t.Helper()
	k, err := e.store.Key(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return k.Balance
}

// debits counts a key's debit rows in the ledger.
func (e *env) debits(t testing.TB, id int64) int { return len(e.debitRows(t, id)) }

// debitRows are a key's debit rows in the ledger.
func (e *env) debitRows(t testing.TB, id int64) []social.LedgerEntry {
	t.Helper()
	ledger, err := e.store.Ledger(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []social.LedgerEntry
	for _, l := range ledger {
		if l.Kind == social.LedgerDebit {
			out = append(out, l)
		}
	}
	return out
}

// call is one request through the handler.
type call struct {
	method, path, key string
	body              string
	header            map[string]string
}

func (e *env) do(c call) *httptest.ResponseRecorder {
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if c.body != "" {
		body = bytes.NewBufferString(c.body)
	}
	r := httptest.NewRequest(method, c.path, body)
	if c.key != "" {
		r.Header.Set("Authorization", "Bearer "+c.key)
	}
	if c.body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.header {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	record(r, w)
	return w
}

// page is a decoded page envelope.
type page struct {
	NextCursor *string           `json:"next_cursor"`
	Tweets     []json.RawMessage `json:"tweets"`
	Users      []json.RawMessage `json:"users"`
	Lists      []json.RawMessage `json:"lists"`
}

func (p *page) items() []json.RawMessage {
	return append(append(append([]json.RawMessage{}, p.Tweets...), p.Users...), p.Lists...)
}

func decode[T any](t testing.TB, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(w.Body)
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
	return v
}

// golden compares got with testdata/golden/name.json (rewritten under
// -update), after indenting.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, got, "", "  "); err != nil {
		t.Fatalf("%s: response is not JSON: %v\n%s", name, err, got)
	}
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update to create it)", name, err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), bytes.TrimSpace(buf.Bytes())) {
		t.Errorf("%s: response differs from %s (go test -update rewrites it)\ngot:\n%s", name, path, buf.String())
	}
}

// Short names for test doubles that embed a store.
type (
	socialStore = social.Store
	pageReq     = social.PageReq
	postPage    = social.Page[social.Post]
)
