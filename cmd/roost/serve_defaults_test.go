package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestWebhookPrivateDefault: --webhook-private is on by default only when
// --addr is a loopback address; a value set anywhere wins.
func TestWebhookPrivateDefault(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want bool
	}{
		{[]string{"--addr", "127.0.0.1:8080"}, nil, true},
		{[]string{"--addr", "127.8.9.10:0"}, nil, true},
		{[]string{"--addr", "[::1]:8080"}, nil, true},
		{[]string{"--addr", "localhost:8080"}, nil, true},
		{nil, nil, true}, // the default --addr, 127.0.0.1:8080
		{[]string{"--addr", "0.0.0.0:8080"}, nil, false},
		{[]string{"--addr", ":8080"}, nil, false},
		{[]string{"--addr", "[::]:8080"}, nil, false},
		{[]string{"--addr", "192.168.1.4:8080"}, nil, false},
		{[]string{"--addr", "roost.example:8080"}, nil, false},
		{nil, map[string]string{"ROOST_ADDR": "0.0.0.0:8080"}, false},
		{[]string{"--addr", "127.0.0.1:8080", "--webhook-private=false"}, nil, false},
		{[]string{"--addr", "0.0.0.0:8080", "--webhook-private"}, nil, true},
		{[]string{"--addr", "0.0.0.0:8080"}, map[string]string{"ROOST_WEBHOOK_PRIVATE": "true"}, true},
	} {
		cfg, _, src, err := loadServe(testEnv(c.env), c.args)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.hooks.private != c.want {
			t.Errorf("%v %v: webhook-private %v (%s), want %v", c.args, c.env, cfg.hooks.private, src["webhook-private"], c.want)
		}
	}
}

// TestAccessLogDefault: the access log is on unless the log is text on a
// terminal; a value set anywhere wins.
func TestAccessLogDefault(t *testing.T) {
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no terminal to test with: %v", err)
	}
	defer tty.Close()
	for _, c := range []struct {
		terminal bool
		args     []string
		want     bool
	}{
		{false, nil, true},
		{true, nil, false},
		{true, []string{"--log-format", "json"}, true},
		{true, []string{"--access-log"}, true},
		{false, []string{"--access-log=false"}, false},
	} {
		e := testEnv(nil)
		if c.terminal {
			e.stderr = tty
		}
		cfg, _, _, err := loadServe(e, c.args)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.accessLog != c.want {
			t.Errorf("terminal %v %v: access log %v, want %v", c.terminal, c.args, cfg.accessLog, c.want)
		}
	}
}

// TestServeAccessLogOff: --access-log=false drops the lines of requests
// and keeps the others.
func TestServeAccessLogOff(t *testing.T) {
	db := t.TempDir() + "/q.db"
	base, errb := serve(t, "--db", db, "--demo=false", "--log-format", "json", "--access-log=false")
	if code, _ := get(t, base+"/user/balance", "roost_wrong"); code != 401 {
		t.Fatalf("balance with a wrong key: %d", code)
	}
	if code, _ := get(t, base+"/healthz", ""); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(errb.String()), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil {
			msgs = append(msgs, rec["msg"].(string))
		}
	}
	if strings.Contains(strings.Join(msgs, "\n"), "request") || !strings.Contains(errb.String(), "access log off") ||
		!strings.Contains(strings.Join(msgs, "\n"), "applied migrations") {
		t.Errorf("log with --access-log=false:\n%s", errb.String())
	}
}

// TestRoostCommand: a binary go run built is named as go run runs it,
// everywhere else as roost; the key hint of a second start says so.
func TestRoostCommand(t *testing.T) {
	for exe, want := range map[string]string{
		"/tmp/go-build2385711913/b001/exe/roost": "go run ./cmd/roost",
		"/home/me/go/bin/roost":                  "roost",
		"/usr/local/bin/roost":                   "roost",
		"roost":                                  "roost",
	} {
		if got := roostCommand(exe); got != want {
			t.Errorf("roostCommand(%q) = %q, want %q", exe, got, want)
		}
	}
	hint := keyHint(roostCommand("/tmp/go-build1/b001/exe/roost"), "roost.db")
	if !strings.Contains(hint, "\n  go run ./cmd/roost keys create --db roost.db --credits 10\n") {
		t.Errorf("hint %q", hint)
	}
}
