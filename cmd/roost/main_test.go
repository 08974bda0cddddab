package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/syncbuf"
)

// roost runs the command line in-process.
func roost(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb syncbuf.Buffer
	code = run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpAndUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string // in stdout for 0, stderr otherwise
	}{
		{[]string{"--help"}, 0, "Commands:"},
		{[]string{}, 2, "Commands:"},
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"serve", "--help"}, 0, "-addr"},
		{[]string{"gen", "--help"}, 0, "-posts"},
		{[]string{"import", "--help"}, 0, "-strict"},
		{[]string{"keys", "--help"}, 0, "create --credits USD"},
		{[]string{"copy", "--help"}, 0, "-from"},
		{[]string{"bench", "--help"}, 0, "-requests"},
		{[]string{"bench", "--help"}, 0, "Commit time: when the living world's Write returned"},
		{[]string{"bench", "--db", "x.db", "--live", "fast"}, 2, "--live: rate \"fast\""},
		{[]string{"bench", "--db", "x.db", "--live", "200/s", "--http"}, 2, "--live and --http are two different measures"},
		{[]string{"bench", "--db", "x.db", "--live", "200/s", "--monitors", "-1"}, 2, "--monitors must be 0 or more"},
		{[]string{"bench", "--db", "x.db", "--page-cache", "-1"}, 2, "--page-cache must be 0 (none) or more MiB"},
		{[]string{"serve", "--page-cache", "-1"}, 2, "--page-cache must be 0 (none) or more MiB"},
		{[]string{"harvest", "--help"}, 0, "-ahead"},
		{[]string{"serve", "--help"}, 0, "-cache-max-age"},
		{[]string{"serve", "--upstream", "http://127.0.0.1:1", "--cache-max-age", "2m"}, 2, "--cache-max-age 2m0s is shorter than --fresh lists=1h0m0s"},
		{[]string{"serve", "--upstream", "http://127.0.0.1:1", "--upstream-timeout", "1s"}, 2, "--upstream-timeout must be at least 10s"},
		{[]string{"harvest", "--base-url", "http://127.0.0.1:1", "--key", "k", "search", "x", "--out", "o.jsonl", "--ahead", "-1"}, 2, "--ahead must be between 0 and 1000"},
		{[]string{"serve", "--bogus"}, 2, "flag provided but not defined: -bogus\nRun 'roost serve --help' for usage.\n"},
		{[]string{"keys", "create", "--bogus"}, 2, "flag provided but not defined: -bogus\nRun 'roost keys --help' for usage.\n"},
		{[]string{"--version"}, 0, "roost "},
		{[]string{"serve", "--log-format", "xml"}, 2, `--log-format must be text or json, not "xml"`},
		{[]string{"serve", "--max-concurrent", "0"}, 2, "--max-concurrent must be more than 0"},
		{[]string{"serve", "--config", "missing.yaml"}, 2, "config file: open missing.yaml"},
		{[]string{"gen"}, 2, "--db is required"},
		{[]string{"gen", "--db", "x.db", "--posts", "-1"}, 2, "must be more than 0"},
		{[]string{"keys"}, 2, "missing subcommand"},
		{[]string{"keys", "create", "--db", "x.db"}, 2, "--credits is required"},
		{[]string{"keys", "create", "--db", "x.db", "--credits", "1.0000001"}, 2, "more than 6 decimals"},
		{[]string{"keys", "create", "--db", "x.db", "--credits", "-3"}, 2, "not a plain decimal"},
		{[]string{"keys", "create", "--db", "x.db", "--credits", "1", "--name", "ab\x00c"}, 2, "--name contains a NUL byte at byte 2"},
		{[]string{"keys", "create", "--db", "x.db", "--credits", "1", "--name", "ab\xffc"}, 2, "--name is not valid UTF-8 at byte 2"},
		{[]string{"keys", "ledger", "--db", "x.db", "--id", "1", "--endpoint", "se\xffarch"}, 2, "--endpoint is not valid UTF-8 at byte 2"},
		{[]string{"keys", "usage", "--db", "x.db", "--endpoint", "\x00"}, 2, "--endpoint contains a NUL byte at byte 0"},
		{[]string{"counts", "--db", "x.db", "url:abc\x00def"}, 2, "query: at position 7: NUL byte"},
		{[]string{"import", "--db", "x.db"}, 2, "no files to import"},
		{[]string{"import", "--db", "x.db", "--format", "csv", "f"}, 2, `unknown --format "csv"`},
		{[]string{"copy", "--from", "a.db"}, 2, "--from and --to are both required"},
		{[]string{"serve", "--price", "0"}, 2, "--price must be more than 0"},
		{[]string{"serve", "--search-timeout", "0s"}, 2, "--search-timeout must be more than 0"},
		{[]string{"serve", "--search-timeout", "2m"}, 2, "at most 50s"},
		{[]string{"serve", "--search-timeout", "soon"}, 2, "invalid value"},
		{[]string{"serve", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "--addr", "nope"}, 1, "missing port in address"},
		{[]string{"live", "--help"}, 0, "-events"},
		{[]string{"live"}, 2, "--db is required"},
		{[]string{"live", "--db", "x.db"}, 2, "--events must be more than 0"},
		{[]string{"live", "--db", "x.db", "--events", "3", "--rate", "fast"}, 2, `--rate: rate "fast": want N/s, N/m or N/h`},
		{[]string{"serve", "--live", "5/d"}, 2, `--live: rate "5/d": want N/s, N/m or N/h`},
		{[]string{"serve", "--live", "20000/s"}, 2, "at most 10000 events a second"},
		{[]string{"serve", "--live", "5/s", "--upstream", "http://127.0.0.1:1"}, 2, "use one or the other"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, out, errOut := roost(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errOut)
			}
			got := out
			if c.code != 0 {
				got = errOut
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("output lacks %q:\nstdout: %s\nstderr: %s", c.want, out, errOut)
			}
			if n := strings.Count(out+errOut, "Usage:"); n > 1 || c.code == 2 && len(c.args) > 0 && n > 0 {
				t.Fatalf("usage printed %d times:\nstdout: %s\nstderr: %s", n, out, errOut)
			}
			if _, err := os.Stat("roost.db"); err == nil && c.code != 0 {
				t.Fatalf("a failed command left roost.db behind")
			}
		})
	}
}

func TestKeysLifecycle(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	code, key, errOut := roost(t, "keys", "create", "--db", db, "--credits", "2.5", "--name", "ci")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errOut)
	}
	key = strings.TrimSpace(key)
	if !regexp.MustCompile(`^roost_[0-9A-Za-z]{43}$`).MatchString(key) {
		t.Fatalf("create printed %q, want only the key", key)
	}
	code, out, _ := roost(t, "keys", "topup", "--db", db, "--id", "1", "--credits", "0.000001")
	if code != 0 || !strings.Contains(out, "balance 2.500001 USD") {
		t.Fatalf("topup: %d %q", code, out)
	}
	code, out, _ = roost(t, "keys", "list", "--db", db)
	if code != 0 || !strings.Contains(out, "ci") || !strings.Contains(out, "2.500001") || !strings.Contains(out, key[:10]) || strings.Contains(out, key) {
		t.Fatalf("list: %d\n%s", code, out)
	}
	if code, out, _ = roost(t, "keys", "limit", "--db", db, "--id", "1", "--rate-limit", "45"); code != 0 || !strings.Contains(out, "45 per minute") {
		t.Fatalf("limit: %d %q", code, out)
	}
	code, rotated, _ := roost(t, "keys", "rotate", "--db", db, "--id", "1")
	if rotated = strings.TrimSpace(rotated); code != 0 || rotated == key || !strings.HasPrefix(rotated, "roost_") {
		t.Fatalf("rotate: %d %q", code, rotated)
	}
	if code, out, _ = roost(t, "keys", "ledger", "--db", db, "--id", "1"); code != 0 || strings.Count(out, "credit") != 2 ||
		!strings.Contains(out, "2.500001") {
		t.Fatalf("ledger: %d\n%s", code, out)
	}
	if code, out, _ = roost(t, "keys", "usage", "--db", db, "--since", "2020-01-01"); code != 0 || !strings.HasPrefix(out, "KEY") {
		t.Fatalf("usage: %d\n%s", code, out)
	}
	if code, _, errOut = roost(t, "keys", "ledger", "--db", db, "--id", "1", "--since", "soon"); code != 2 || !strings.Contains(errOut, "RFC 3339") {
		t.Fatalf("ledger --since soon: %d %s", code, errOut)
	}
	if code, _, errOut = roost(t, "keys", "revoke", "--db", db, "--id", "1"); code != 0 {
		t.Fatalf("revoke: %s", errOut)
	}
	if _, out, _ = roost(t, "keys", "list", "--db", db); !strings.Contains(out, "revoked") {
		t.Fatalf("list after revoke:\n%s", out)
	}
	if code, _, errOut = roost(t, "keys", "revoke", "--db", db, "--id", "9"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Fatalf("revoke unknown: %d %s", code, errOut)
	}
}

// TestKeysFault: roost keys sets, shows and clears a key's fault plan (in
// its canonical form) at creation and with keys fault, and refuses one it
// cannot read with a usage error naming the item.
func TestKeysFault(t *testing.T) {
	db := filepath.Join(t.TempDir(), "f.db")
	if code, _, errOut := roost(t, "keys", "create", "--db", db, "--credits", "1", "--fault", "latest_cursor_pages=4"); code != 0 {
		t.Fatalf("create --fault: %d %s", code, errOut)
	}
	if _, out, _ := roost(t, "keys", "list", "--db", db); !strings.Contains(out, "FAULT") || !strings.Contains(out, "latest_cursor_pages=4") {
		t.Fatalf("list:\n%s", out)
	}
	code, out, errOut := roost(t, "keys", "fault", "--db", db, "--id", "1", "--fault", "500=0.050, 429=0.1,seed=3")
	if code != 0 || strings.TrimSpace(out) != "key 1 fault 429=0.1,500=0.05,seed=3" {
		t.Fatalf("fault: %d %q %s", code, out, errOut)
	}
	if code, out, _ = roost(t, "keys", "fault", "--db", db, "--id", "1", "--fault", "none"); code != 0 || strings.TrimSpace(out) != "key 1 fault none" {
		t.Fatalf("fault none: %d %q", code, out)
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"fault", "--db", db, "--id", "1", "--fault", "429=7"}, "--fault 429: must be a decimal from 0 to 1"},
		{[]string{"fault", "--db", db, "--id", "1"}, "--fault is required"},
		{[]string{"fault", "--db", db, "--fault", "429=0.1"}, "--id is required"},
		{[]string{"create", "--db", db, "--credits", "1", "--fault", "delay=forever"}, "--fault delay: must be a duration"},
	} {
		if code, _, errOut := roost(t, append([]string{"keys"}, bad.args...)...); code != 2 || !strings.Contains(errOut, bad.msg) {
			t.Errorf("keys %v: %d %s, want a usage error with %q", bad.args, code, errOut, bad.msg)
		}
	}
	if code, _, errOut := roost(t, "keys", "fault", "--db", db, "--id", "9", "--fault", "429=1"); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("fault of an unknown key: %d %s", code, errOut)
	}
	if _, out, _ := roost(t, "keys", "--help"); !strings.Contains(out, "latest_cursor_pages=N") || !strings.Contains(out, "X-Roost-Fault") {
		t.Errorf("keys --help does not describe fault plans:\n%s", out)
	}
	if _, out, _ := roost(t, "serve", "--help"); !strings.Contains(out, "X-Roost-Fault: 429=0.1") || !strings.Contains(out, "-rate-limit") {
		t.Errorf("serve --help does not name the sandbox:\n%s", out)
	}
}

func TestGenPrintsSummary(t *testing.T) {
	db := filepath.Join(t.TempDir(), "g.db")
	code, out, errOut := roost(t, "gen", "--db", db, "--users", "300", "--posts", "3000", "--seed", "7")
	if code != 0 {
		t.Fatalf("gen: %d %s", code, errOut)
	}
	var sum struct {
		Posts    int64             `json:"posts"`
		Users    int64             `json:"users"`
		Likes    int64             `json:"likes"`
		Spaces   int64             `json:"spaces"`
		Bios     int64             `json:"extended_bios"`
		Examples map[string]string `json:"examples"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if sum.Posts != 3000 || sum.Users != 300 || sum.Likes == 0 || sum.Spaces == 0 || sum.Bios == 0 {
		t.Fatalf("counts %+v", sum)
	}
	for _, k := range []string{"user_id", "username", "protected_user_id", "shadow_banned_username",
		"organization_user_id", "thread_id", "community_id", "list_id", "post_id", "space_id", "extended_bio_username"} {
		if sum.Examples[k] == "" {
			t.Errorf("examples lack %s: %v", k, sum.Examples)
		}
	}
}

// TestImportNamesLikes imports GraphQL captures of likers and of a user's
// likes with the flags that name their subjects.
func TestImportNamesLikes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "i.db")
	testdata := filepath.Join("..", "..", "internal", "ingest", "importer", "testdata")
	for _, args := range [][]string{
		{"--likers-of", "1785738456069058617", filepath.Join(testdata, "graphql_favoriters.json")},
		{"--likes-of", "42", filepath.Join(testdata, "graphql_likes.json")},
	} {
		if code, _, errOut := roost(t, append([]string{"import", "--db", db}, args...)...); code != 0 {
			t.Fatalf("import %v: %d %s", args, code, errOut)
		}
	}
	s, err := openStore(context.Background(), &env{lookupEnv: os.LookupEnv}, db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.Counts(context.Background())
	if err != nil || c["likes"] != 4 {
		t.Errorf("counts %v, %v; want 4 likes", c, err)
	}
}

// serve starts `roost serve` in-process and returns its base URL and
// stderr; the server stops when the test ends.
func serve(t *testing.T, args ...string) (string, *syncbuf.Buffer) {
	t.Helper()
	base, _, errb := serveOut(t, args...)
	return base, errb
}

// serveOut is serve that also returns stdout.
func serveOut(t *testing.T, args ...string) (string, *syncbuf.Buffer, *syncbuf.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	})
	re := regexp.MustCompile(`roost serving .* on (http://127\.0\.0\.1:\d+)`)
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(errb.String()); m != nil {
			return m[1], &out, &errb
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("serve exited %d: %s", code, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not start: %s", errb.String())
	return "", nil, nil
}

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeDemoOnceThenReuse(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("generates the 100,000-post demo network (minutes under -race; the plain run covers it)")
	}
	t.Chdir(t.TempDir())
	base, outb, errb := serveOut(t)
	key := regexp.MustCompile(`export KEY=(roost_\w+)`).FindStringSubmatch(outb.String())
	if key == nil || strings.Contains(errb.String(), key[1]) {
		t.Fatalf("no demo key on stdout, or the key in the log:\nstdout: %s\nstderr: %s", outb.String(), errb.String())
	}
	if !strings.Contains(outb.String(), strings.Repeat("=", 78)) {
		t.Errorf("the demo key is not framed:\n%s", outb.String())
	}
	user := regexp.MustCompile(`query=from:(\w+)'`).FindStringSubmatch(outb.String())
	if user == nil {
		t.Fatalf("no ready search line printed:\n%s", outb.String())
	}
	for _, prefix := range []string{"/social", "/twitter"} {
		code, body := get(t, base+prefix+"/search?query=from:"+user[1], key[1])
		if code != http.StatusOK || !strings.Contains(body, `"screen_name":"`+user[1]+`"`) {
			t.Fatalf("%s search: %d %.300s", prefix, code, body)
		}
	}
	code, body := get(t, base+"/user/balance", key[1])
	if code != http.StatusOK || !strings.Contains(body, "balance_usd") {
		t.Fatalf("balance: %d %s", code, body)
	}
}

func TestServeSecondStartMakesNoKey(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "s.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "200", "--posts", "2000"); code != 0 {
		t.Fatal(errOut)
	}
	code, key, _ := roost(t, "keys", "create", "--db", db, "--credits", "1")
	if code != 0 {
		t.Fatal("keys create failed")
	}
	base, outb, errb := serveOut(t, "--db", db)
	if strings.Contains(errb.String()+outb.String(), "export KEY=") {
		t.Fatalf("a database with data got a demo key:\n%s", errb.String())
	}
	if !strings.Contains(outb.String(), "roost keys create --db "+db+" --credits") {
		t.Errorf("a second start does not say how to make a key:\n%s", outb.String())
	}
	code, body := get(t, base+"/social/search?query=the", strings.TrimSpace(key))
	if code != http.StatusOK {
		t.Fatalf("search: %d %s", code, body)
	}
	if code, _ := get(t, base+"/social/search?query=the", "roost_wrong"); code != http.StatusUnauthorized {
		t.Fatalf("bad key: %d", code)
	}
}

// TestServeGateway runs a roost over a small network and a gateway roost
// in front of it: a timeline page through the gateway equals upstream's.
func TestServeGateway(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "up.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "200", "--posts", "2000"); code != 0 {
		t.Fatal(errOut)
	}
	code, upKey, errOut := roost(t, "keys", "create", "--db", db, "--credits", "10")
	if code != 0 {
		t.Fatal(errOut)
	}
	upKey = strings.TrimSpace(upKey)
	up, _ := serve(t, "--db", db, "--demo=false")
	keyFile := filepath.Join(dir, "upstream.key")
	if err := os.WriteFile(keyFile, []byte(upKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gw, out, errb := serveOut(t, "--db", filepath.Join(dir, "gw.db"), "--upstream", up, "--upstream-key-file", keyFile,
		"--upstream-budget", "1/day", "--fresh", "timeline=1m")
	var key []string
	for i := 0; key == nil && i < 100; i++ { // the demo block follows the serving line
		key = regexp.MustCompile(`export KEY=(roost_\w+)`).FindStringSubmatch(out.String())
		time.Sleep(20 * time.Millisecond)
	}
	if key == nil || !strings.Contains(errb.String(), "upstream budget 1 USD/day") {
		t.Fatalf("no demo key or budget printed:\n%s\n%s", out.String(), errb.String())
	}
	wantCode, want := get(t, up+"/social/search?query=the", upKey)
	gotCode, got := get(t, gw+"/social/search?query=the", key[1])
	if gotCode != http.StatusOK || got != want || !strings.Contains(got, `"id_str"`) {
		t.Fatalf("gateway %d %.200s\nupstream %d %.200s", gotCode, got, wantCode, want)
	}
	// The page's posts are held: tweets-by-ids of them costs upstream
	// nothing and answers as upstream does.
	var page struct {
		Tweets []struct {
			ID string `json:"id_str"`
		} `json:"tweets"`
	}
	if err := json.Unmarshal([]byte(got), &page); err != nil || len(page.Tweets) == 0 {
		t.Fatalf("search page: %v", err)
	}
	ids := make([]string, len(page.Tweets))
	for i, tw := range page.Tweets {
		ids[i] = tw.ID
	}
	body, _ := json.Marshal(map[string][]string{"ids": ids})
	_, before := get(t, up+"/user/balance", upKey)
	held := postJSON(t, gw+"/social/tweets-by-ids", key[1], string(body))
	if _, after := get(t, up+"/user/balance", upKey); after != before {
		t.Fatalf("tweets-by-ids of held posts cost upstream: balance %s, then %s", before, after)
	}
	if direct := postJSON(t, up+"/social/tweets-by-ids", upKey, string(body)); string(held) != string(direct) {
		t.Fatalf("held posts:\n%.300s\nupstream:\n%.300s", held, direct)
	}
}

func TestServeGatewayNeedsKey(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("ROOST_UPSTREAM_KEY", "")
	code, _, errOut := roost(t, "serve", "--upstream", "http://127.0.0.1:1")
	if code != 2 || !strings.Contains(errOut, "ROOST_UPSTREAM_KEY") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{"--upstream-budget", "5"}, {"--upstream", "ftp://x", "--upstream-key-file", "k"},
		{"--upstream", "http://x", "--upstream-budget", "5/week"}, {"--upstream", "http://x", "--fresh", "later=1s"}} {
		code, _, errOut = roost(t, append([]string{"serve"}, args...)...)
		if code != 2 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if _, err := os.Stat("roost.db"); err == nil {
			t.Fatalf("%v left roost.db behind", args)
		}
	}
}

// TestServeAdminAndJSONLogs: the admin API answers on its own listener
// with its token only, the public listener knows no admin path, and
// --log-format json writes one JSON access line per request.
func TestServeAdminAndJSONLogs(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "100", "--posts", "500"); code != 0 {
		t.Fatal(errOut)
	}
	const token = "test-admin-token-42-abcdef"
	t.Setenv("ROOST_ADMIN_TOKEN", token)
	base, errb := serve(t, "--db", db, "--admin-addr", "127.0.0.1:0", "--log-format", "json")
	m := regexp.MustCompile(`admin API on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no admin listener:\n%s", errb.String())
	}
	adminBase := m[1]
	do := func(method, url, auth, body string) (int, string) {
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", "Bearer "+auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := do("GET", adminBase+"/admin/keys", "", ""); code != http.StatusUnauthorized {
		t.Errorf("admin without token: %d", code)
	}
	if code, body := do("GET", base+"/admin/keys", token, ""); code != http.StatusNotFound || !strings.Contains(body, "Unknown endpoint") {
		t.Errorf("admin path on the public listener: %d %s", code, body)
	}
	code, body := do("POST", adminBase+"/admin/keys", token, `{"name":"ops","credits_usd":"2"}`)
	var made struct{ Key string }
	if code != http.StatusCreated || json.Unmarshal([]byte(body), &made) != nil || made.Key == "" {
		t.Fatalf("create through the admin API: %d %s", code, body)
	}
	if code, body := get(t, base+"/user/balance", made.Key); code != http.StatusOK || !strings.Contains(body, `"balance_usd":2`) {
		t.Errorf("the new key on the public API: %d %s", code, body)
	}
	if strings.Contains(errb.String(), token) {
		t.Errorf("the admin token is in the log")
	}
	found := false
	for _, line := range strings.Split(errb.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" && rec["path"] == "/user/balance" {
			found = rec["status"] == float64(200) && rec["route"] == "balance"
		}
	}
	if !found {
		t.Errorf("no JSON access line for /user/balance:\n%s", errb.String())
	}
}

// TestKeysSaysWhichDatabase: without --db, keys commands say they use
// ./roost.db.
func TestKeysSaysWhichDatabase(t *testing.T) {
	t.Chdir(t.TempDir())
	code, out, errOut := roost(t, "keys", "create", "--credits", "1")
	if code != 0 || !strings.HasPrefix(out, "roost_") || !strings.Contains(errOut, "using database roost.db") {
		t.Fatalf("%d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if _, _, errOut := roost(t, "keys", "list", "--db", "roost.db"); strings.Contains(errOut, "using database") {
		t.Errorf("a given --db is announced: %s", errOut)
	}
}
