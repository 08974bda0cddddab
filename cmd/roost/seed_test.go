package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/store/sqlite"
)

// worldFixture is the fixture of every kind the fixture package tests.
const worldFixture = "../../internal/world/fixture/testdata/world.json"

// TestSeed: roost seed writes a fixture and prints its ids by name; a
// bad fixture, or one that clashes with the database, is refused with its
// file and JSON path, and nothing of it is written.
func TestSeed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	code, out, errs := roost(t, "seed", "--db", db, worldFixture)
	if code != 0 {
		t.Fatalf("seed: %d %s", code, errs)
	}
	var res struct {
		Users map[string]string
		Posts map[string]string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Users["alice"] != "1" || res.Posts["hello"] == "" {
		t.Fatalf("seed printed %s (%v)", out, err)
	}
	if !strings.Contains(errs, "seeded 3 users, 4 posts, 2 follows, 2 likes, 1 lists, 1 communities and 1 spaces") {
		t.Errorf("stderr %s", errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("users:\n  - screen_name: dave\nposts:\n  - author: dave\n    full_text: hi\n    in_reply_to: nope\n"), 0o644)
	for _, c := range []struct {
		file string
		want string
	}{
		{worldFixture, worldFixture + `: users[0].screen_name: "alice" is user 1 in the database`},
		{bad, bad + `: posts[0].in_reply_to: no post with ref "nope" in the fixture`},
	} {
		code, _, errs := roost(t, "seed", "--db", db, c.file)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("seed %s: %d %s; want %q", c.file, code, errs, c.want)
		}
	}
	s, err := sqlite.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	counts, _ := s.Counts(context.Background())
	if counts["users"] != 3 || counts["posts"] != 4 {
		t.Errorf("after refused seeds: %v; want the first seed's 3 users and 4 posts", counts)
	}
	if code, _, errs := roost(t, "seed", "--db", db, "--now", "yesterday", worldFixture); code != 2 || !strings.Contains(errs, "--now") {
		t.Errorf("--now yesterday: %d %s", code, errs)
	}
}

// TestServeFixtures: serve --fixtures fills an empty database with the
// fixtures instead of the demo network and prints the key as the demo
// does; a database that holds data is refused.
func TestServeFixtures(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	t.Setenv("ROOST_ADMIN_TOKEN", "test-admin-token-42-abcdef")
	base, outb, errb := serveOut(t, "--db", db, "--fixtures", worldFixture, "--admin-addr", "127.0.0.1:0", "--live", "20/s")
	key := regexp.MustCompile(`export KEY=(roost_\w+)`).FindStringSubmatch(outb.String())
	if key == nil || !strings.Contains(errb.String(), "seeded 3 users") || strings.Contains(errb.String(), "demo network") {
		t.Fatalf("stdout: %s\nstderr: %s", outb.String(), errb.String())
	}
	if !strings.Contains(outb.String(), "/social/user/1/tweets'") || !strings.Contains(outb.String(), "/social/user/9001/tweets'   # 403") {
		t.Errorf("the curl lines do not name the fixture's users:\n%s", outb.String())
	}
	code, body := get(t, base+"/social/user/alice", key[1])
	if code != http.StatusOK || !strings.Contains(body, `"screen_name":"alice"`) {
		t.Errorf("alice: %d %s", code, body)
	}
	// The world control, beside the living world: a post made through it
	// is on its author's timeline at once.
	adminBase := regexp.MustCompile(`admin API on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(errb.String())
	if adminBase == nil {
		t.Fatalf("no admin listener:\n%s", errb.String())
	}
	req, _ := http.NewRequest("POST", adminBase[1]+"/admin/world/posts", strings.NewReader(`{"author":"alice","full_text":"made by hand"}`))
	req.Header.Set("Authorization", "Bearer test-admin-token-42-abcdef")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var made struct {
		IDStr string `json:"id_str"`
	}
	json.NewDecoder(resp.Body).Decode(&made) //nolint:errcheck // checked below
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || made.IDStr == "" {
		t.Fatalf("POST /admin/world/posts: %d %+v", resp.StatusCode, made)
	}
	if code, body := get(t, base+"/social/user/1/tweets", key[1]); code != http.StatusOK || !strings.Contains(body, made.IDStr) {
		t.Errorf("alice's timeline: %d %.500s", code, body)
	}
	code, _, errs := roost(t, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--db", db, "--fixtures", worldFixture)
	if code != 1 || !strings.Contains(errs, "--fixtures fills an empty database") {
		t.Errorf("a second serve --fixtures: %d %s", code, errs)
	}
}
