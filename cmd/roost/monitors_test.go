package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/storetest"
)

// hookLog is a webhook receiver that is slow on purpose (so that a kill
// lands mid-delivery) and keeps the event id and post of every request.
type hookLog struct {
	mu     sync.Mutex
	ids    []string // event ids, in arrival order
	posts  []string // post ids, in arrival order
	secret string
	badSig int
}

func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	time.Sleep(15 * time.Millisecond)
	var p struct {
		EventID string `json:"event_id"`
		Data    struct {
			IDStr string `json:"id_str"`
		} `json:"data"`
	}
	json.Unmarshal(body, &p)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.secret != "" && !monitor.Verify(h.secret, body, r.Header.Get(monitor.HeaderSignature)) {
		h.badSig++
	}
	h.ids = append(h.ids, p.EventID)
	h.posts = append(h.posts, p.Data.IDStr)
}

func (h *hookLog) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]bool{}
	for _, id := range h.ids {
		seen[id] = true
	}
	return len(seen)
}

func postJSON(t *testing.T, url, key, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// TestMonitorsAfterKill: `roost serve` killed with -9 while it delivers
// a monitor's events, with posts written while it is down, and started
// again: every event arrives at least once, in order, with no gap, and a
// duplicate only ever with the same event id. Both engines.
func TestMonitorsAfterKill(t *testing.T) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			ctx := context.Background()
			var db string
			var st social.Store
			var err error
			if engine == "sqlite" {
				db = filepath.Join(t.TempDir(), "m.db")
				st, err = sqlite.Open(ctx, db, nil)
			} else {
				db = storetest.FreshSchema(t, storetest.PostgresURL(t))
				st, err = postgres.Open(ctx, db, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			const user = 777
			t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			if _, err := st.Write(ctx, &social.Batch{Users: []social.User{{ID: user, ScreenName: "watched", Name: "W", CreatedAt: t0}}}); err != nil {
				t.Fatal(err)
			}
			key := strings.TrimSpace(roostExec(t, "keys", "create", "--db", db, "--credits", "10"))
			hooks := &hookLog{}
			rc := httptest.NewServer(hooks)
			defer rc.Close()

			base, cmd := startKillable(t, "--db", db, "--webhook-backoff", "20ms", "--webhook-timeout", "2s")
			var set struct {
				Secret string `json:"signing_secret"`
			}
			json.Unmarshal(postJSON(t, base+"/user/webhook", key, `{"url":"`+rc.URL+`"}`), &set)
			hooks.mu.Lock()
			hooks.secret = set.Secret
			hooks.mu.Unlock()
			postJSON(t, base+"/social/monitors/user-tweets", key, fmt.Sprintf(`{"user_id":%d}`, user))

			const total = 60
			write := func(from, to int) {
				for i := from; i < to; i++ {
					p := social.Post{ID: int64(1_000_000 + i), AuthorID: user, CreatedAt: t0.Add(time.Duration(i) * time.Minute),
						Text: fmt.Sprint("post ", i), Lang: "en"}
					if _, err := st.Write(ctx, &social.Batch{Posts: []social.Post{p}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			write(0, 40)
			deadline := time.Now().Add(30 * time.Second)
			for hooks.distinct() < 10 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Kill() // mid-delivery: the receiver is still answering
			cmd.Wait()
			write(40, total)
			startKillable(t, "--db", db, "--webhook-backoff", "20ms", "--webhook-timeout", "2s")
			deadline = time.Now().Add(60 * time.Second)
			for hooks.distinct() < total && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}

			hooks.mu.Lock()
			defer hooks.mu.Unlock()
			postOf := map[string]string{}
			var order []string
			for i, id := range hooks.ids {
				if p, seen := postOf[id]; seen {
					if p != hooks.posts[i] {
						t.Errorf("event %s came with post %s and with %s", id, p, hooks.posts[i])
					}
					continue
				}
				postOf[id] = hooks.posts[i]
				order = append(order, hooks.posts[i])
			}
			if len(order) != total {
				t.Fatalf("%d distinct events arrived, want %d", len(order), total)
			}
			for i, p := range order {
				if want := fmt.Sprint(1_000_000 + i); p != want {
					t.Fatalf("event %d is post %s, want %s: a gap or out of order", i, p, want)
				}
			}
			if hooks.badSig != 0 {
				t.Errorf("%d deliveries failed the signature check", hooks.badSig)
			}
			t.Logf("%d deliveries for %d events", len(hooks.ids), total)
		})
	}
}
