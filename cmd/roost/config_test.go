package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettingsPrecedence: a flag beats the environment, which beats the
// config file, which beats the default; bad values name their setting and
// source.
func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "roost.yaml")
	os.WriteFile(file, []byte("rate-limit: 7\naddr: 127.0.0.1:9000\ncors-origins: [https://a.example, https://b.example]\ndemo: false\n"), 0o600)
	cases := []struct {
		name       string
		args       []string
		env        map[string]string
		rate       int
		addr, cors string
		demo       bool
		src        string // where rate-limit came from
	}{
		{"default", nil, nil, 120, "127.0.0.1:8080", "", true, "default"},
		{"file", []string{"--config", file}, nil, 7, "127.0.0.1:9000", "https://a.example,https://b.example", false, "config " + file},
		{"file by env", nil, map[string]string{"ROOST_CONFIG": file}, 7, "127.0.0.1:9000", "https://a.example,https://b.example", false, "config " + file},
		{"env over file", []string{"--config", file}, map[string]string{"ROOST_RATE_LIMIT": "9", "ROOST_CORS_ORIGINS": "https://c.example,https://d.example"},
			9, "127.0.0.1:9000", "https://c.example,https://d.example", false, "env ROOST_RATE_LIMIT"},
		{"flag over env", []string{"--config", file, "--rate-limit", "11", "--demo"}, map[string]string{"ROOST_RATE_LIMIT": "9", "ROOST_DEMO": "false"},
			11, "127.0.0.1:9000", "https://a.example,https://b.example", true, "flag"},
		{"env alone", nil, map[string]string{"ROOST_ADDR": "127.0.0.1:7000", "ROOST_TEST_POSTGRES": "ignored"}, 120, "127.0.0.1:7000", "", true, "default"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := testEnv(c.env)
			cfg, _, src, err := loadServe(e, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.rate != c.rate || cfg.addr != c.addr || cfg.origins.String() != c.cors || cfg.demo != c.demo || src["rate-limit"] != c.src {
				t.Errorf("rate %d addr %s cors %q demo %v (rate from %s); want %d %s %q %v (%s)",
					cfg.rate, cfg.addr, cfg.origins.String(), cfg.demo, src["rate-limit"], c.rate, c.addr, c.cors, c.demo, c.src)
			}
		})
	}
	bad := filepath.Join(dir, "bad.yaml")
	for _, c := range []struct {
		name, yaml string
		args       []string
		env        map[string]string
		want       string
	}{
		{"env value", "", nil, map[string]string{"ROOST_RATE_LIMIT": "fast"}, `invalid value "fast" for rate-limit from environment variable ROOST_RATE_LIMIT`},
		{"env range", "", nil, map[string]string{"ROOST_RATE_LIMIT": "0"}, "--rate-limit must be more than 0"},
		{"file value", "search-timeout: soon\n", []string{"--config", bad}, nil, `invalid value "soon" for search-timeout from config file ` + bad},
		{"file unknown", "rate_limit: 5\n", []string{"--config", bad}, nil, `config file ` + bad + `: unknown setting "rate_limit"`},
		{"file list", "addr: [a, b]\n", []string{"--config", bad}, nil, "invalid value for addr in config file " + bad + ": a list"},
		{"file not yaml", "rate-limit: [\n", []string{"--config", bad}, nil, "config file " + bad},
		{"file sets print-config", "print-config: true\n", []string{"--config", bad}, nil, `unknown setting "print-config"`},
		{"log format", "log-format: xml\n", []string{"--config", bad}, nil, "--log-format must be text or json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(bad, []byte(c.yaml), 0o600)
			_, _, _, err := loadServe(testEnv(c.env), c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}

func testEnv(vars map[string]string) *env {
	return &env{stdout: io.Discard, stderr: io.Discard, log: slog.New(slog.DiscardHandler),
		lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok }}
}

// TestPrintConfig: the effective settings, with their sources and no
// secret in clear.
func TestPrintConfig(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("s3cret-admin-token-value\n"), 0o600)
	t.Setenv("ROOST_RATE_LIMIT", "33")
	t.Setenv("ROOST_DB_PASSWORD_IS_NOT_A_SETTING", "x")
	code, out, errOut := roost(t, "serve", "--print-config", "--db", "postgres://roost:hunter2@db:5432/roost", "--admin-token-file", tokenFile)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"rate-limit: 33  # env ROOST_RATE_LIMIT", "db: postgres://roost:xxxxx@db:5432/roost  # flag",
		"addr: 127.0.0.1:8080  # default", "# admin-token: xxxxx (from file " + tokenFile + ")"} {
		if !strings.Contains(out, want) {
			t.Errorf("print-config lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "s3cret") {
		t.Errorf("print-config shows a secret:\n%s", out)
	}
	os.WriteFile(tokenFile, []byte("short"), 0o600)
	if code, _, errOut := roost(t, "serve", "--print-config", "--admin-token-file", tokenFile); code != 2 || !strings.Contains(errOut, "at least 16 characters") {
		t.Errorf("short token: %d %s", code, errOut)
	}
}

// TestDBReadMultiHost: --db-read keeps the commas of a multi-host URL in
// it, from a flag, the environment and a config file alike, and splits
// URLs given together at their schemes.
func TestDBReadMultiHost(t *testing.T) {
	const (
		db = "postgres://h1:5432,h2:5432,h3:5432/roost?target_session_attrs=read-write"
		r1 = "postgres://h2:5432,h3:5432,h1:5432/roost?target_session_attrs=prefer-standby"
		r2 = "postgresql://h3:5432,h2:5432/roost?target_session_attrs=prefer-standby"
	)
	dir := t.TempDir()
	file := filepath.Join(dir, "roost.yaml")
	os.WriteFile(file, []byte("db: '"+db+"'\ndb-read: ['"+r1+"', '"+r2+"']\n"), 0o600)
	for name, c := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"flags":    {[]string{"--db", db, "--db-read", r1, "--db-read", r2}, nil},
		"one flag": {[]string{"--db", db, "--db-read", r1 + "," + r2}, nil},
		"env":      {nil, map[string]string{"ROOST_DB": db, "ROOST_DB_READ": r1 + "," + r2}},
		"file":     {[]string{"--config", file}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, _, _, err := loadServe(testEnv(c.env), c.args)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.db != db || len(cfg.dbRead) != 2 || cfg.dbRead[0] != r1 || cfg.dbRead[1] != r2 {
				t.Errorf("db %q db-read %q", cfg.db, []string(cfg.dbRead))
			}
		})
	}
}
