package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func TestCountItems(t *testing.T) {
	for in, want := range map[string]int{
		`[{"a":1},{"a":2}]`: 2, `{"tweets":[{},{},{}],"next_cursor":"x"}`: 3, `{"users":[]}`: 0,
		`{"lists":[{}]}`: 1, `{"id_str":"1"}`: 1, ``: 0, `nope`: 0, `null`: 0,
	} {
		if got := CountItems([]byte(in)); got != want {
			t.Errorf("CountItems(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestRaw sends the path, query and body as given, retries a 503 and
// returns the body as served.
func TestRaw(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/twitter/tweets-by-ids" || r.URL.Query().Get("x") != "y" || string(b) != `{"ids":["1"]}` {
			t.Errorf("got %s %s %s", r.URL.Path, r.URL.RawQuery, b)
		}
		io.WriteString(w, `[{"id_str":"1"}]`)
	}))
	defer srv.Close()
	c, err := New(srv.URL, "k", WithRetry(Retry{Max: 2}))
	if err != nil {
		t.Fatal(err)
	}
	body, items, err := c.Raw(context.Background(), "POST", "/tweets-by-ids", url.Values{"x": {"y"}}, []byte(`{"ids":["1"]}`), 1)
	if err != nil || items != 1 || string(body) != `[{"id_str":"1"}]` || n != 2 {
		t.Fatalf("%s %d %v after %d calls", body, items, err, n)
	}
}
