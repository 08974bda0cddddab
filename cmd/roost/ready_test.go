package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServePrintReady: serve --print-ready on port 0 prints one line of
// JSON on stdout, and nothing else there, naming the API, the admin API,
// the demo key and the admin token, all of which work: a post made
// through the world control is gone after the starting world's snapshot
// is restored.
func TestServePrintReady(t *testing.T) {
	db := filepath.Join(t.TempDir(), "r.db")
	const token = "test-admin-token-42-abcdef"
	t.Setenv("ROOST_ADMIN_TOKEN", token)
	_, outb, errb := serveOut(t, "--db", db, "--fixtures", worldFixture, "--admin-addr", "127.0.0.1:0", "--print-ready")
	deadline := time.Now().Add(time.Minute)
	for !strings.HasSuffix(outb.String(), "\n") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	lines := strings.Split(strings.TrimSuffix(outb.String(), "\n"), "\n")
	if len(lines) != 1 {
		t.Fatalf("stdout holds %d lines, want the ready line alone:\n%s\nstderr:\n%s", len(lines), outb.String(), errb.String())
	}
	var ready readyLine
	dec := json.NewDecoder(strings.NewReader(lines[0]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ready); err != nil {
		t.Fatalf("ready line %q: %v", lines[0], err)
	}
	if !strings.HasPrefix(ready.URL, "http://127.0.0.1:") || !strings.HasPrefix(ready.AdminURL, "http://127.0.0.1:") ||
		!strings.HasPrefix(ready.Key, "roost_") || ready.AdminToken != token || ready.URL == ready.AdminURL {
		t.Fatalf("ready line %+v", ready)
	}
	if !strings.Contains(errb.String(), "export KEY="+ready.Key) {
		t.Errorf("the demo block is not on stderr:\n%s", errb.String())
	}
	admin := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, ready.AdminURL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+ready.AdminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get(t, ready.URL+"/readyz", ""); code != 200 {
		t.Fatalf("/readyz: %d", code)
	}
	if code, body := admin("POST", "/admin/world/snapshots", `{"name":"start"}`); code != 201 {
		t.Fatalf("snapshot: %d %s", code, body)
	}
	code, body := admin("POST", "/admin/world/posts", `{"author":"alice","full_text":"made after the snapshot"}`)
	var post struct {
		ID string `json:"id_str"`
	}
	if code != 201 || json.Unmarshal([]byte(body), &post) != nil || post.ID == "" {
		t.Fatalf("post: %d %s", code, body)
	}
	if code, body := get(t, ready.URL+"/twitter/tweets/"+post.ID, ready.Key); code != 200 {
		t.Fatalf("the new post: %d %s", code, body)
	}
	if code, body := admin("POST", "/admin/world/snapshots/start/restore", ""); code != 200 {
		t.Fatalf("restore: %d %s", code, body)
	}
	if code, body := get(t, ready.URL+"/twitter/tweets/"+post.ID, ready.Key); code != 404 {
		t.Errorf("the new post after the restore: %d %s", code, body)
	}
}
