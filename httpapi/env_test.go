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

	"roost/billing"
	"roost/social"
	"roost/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testNow is the fixed clock of the tests.
var testNow = time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)

// env is a handler over a real SQLite store.
type env struct {
	t     *testing.T
	store *sqlite.Store
	h     http.Handler
	reg   *prometheus.Registry
}

// newEnv opens a fresh store in a temporary directory, fills it with
// batch (when not nil) and builds the handler.
func newEnv(t testing.TB, cfg Config, batch *social.Batch) *env {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
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
