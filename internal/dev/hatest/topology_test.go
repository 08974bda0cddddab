package hatest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/world/gen"
)

// topology is what deploy/local-ha up wrote into its state directory.
type topology struct {
	dir      string
	db       string   // the multi-host read-write URL roost uses
	urls     []string // the roost replicas' public API
	admins   []string // their admin API
	token    string   // the admin token
	ctl      string   // deploy/local-ha
	examples gen.Examples
}

// loadTopology reads the env file of ROOST_HA_DIR (default
// $TMPDIR/roost-ha); the test is skipped without ROOST_TEST_HA=1.
func loadTopology(t *testing.T) *topology {
	t.Helper()
	if os.Getenv("ROOST_TEST_HA") != "1" {
		t.Skip("ROOST_TEST_HA is not 1: the HA failover test needs deploy/local-ha up (.ci/run's HA phase)")
	}
	dir := os.Getenv("ROOST_HA_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "roost-ha")
	}
	f, err := os.Open(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatalf("no topology (deploy/local-ha up first): %v", err)
	}
	defer f.Close()
	tp := &topology{dir: dir}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), "=")
		value = strings.Trim(value, "'")
		switch name {
		case "ROOST_HA_DB":
			tp.db = value
		case "ROOST_HA_URLS":
			tp.urls = strings.Split(value, ",")
		case "ROOST_HA_ADMIN_URLS":
			tp.admins = strings.Split(value, ",")
		case "ROOST_HA_ADMIN_TOKEN_FILE":
			b, err := os.ReadFile(value)
			if err != nil {
				t.Fatal(err)
			}
			tp.token = strings.TrimSpace(string(b))
		case "ROOST_HA_CTL":
			tp.ctl = value
		}
	}
	if tp.db == "" || len(tp.urls) < 2 || len(tp.admins) == 0 || tp.token == "" || tp.ctl == "" {
		t.Fatalf("incomplete topology in %s/env", dir)
	}
	sum, err := os.ReadFile(filepath.Join(dir, "gen.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Examples json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(sum, &s); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(s.Examples, &tp.examples); err != nil || tp.examples.UserID == 0 {
		t.Fatalf("gen.json has no example user: %v", err)
	}
	return tp
}

// paths are paid pages of the generated network.
func (tp *topology) paths() []string { return tp.examples.PaidPages() }

// ctlRun runs deploy/local-ha with args and returns its standard output.
func (tp *topology) ctlRun(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tp.ctl, args...)
	cmd.Env = append(os.Environ(), "ROOST_HA_DIR="+tp.dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("local-ha %v: %v\n%s", args, err, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

var admin = &http.Client{Timeout: 90 * time.Second}

// adminCall sends a request to the admin API of the first replica that
// answers it (a replica's admin API needs the primary too: it is retried
// while the database is out of reach) and decodes its 2xx answer into out.
func (tp *topology) adminCall(t *testing.T, method, path, body string, out any) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; ; i++ {
		req, err := http.NewRequest(method, tp.admins[i%len(tp.admins)]+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tp.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := admin.Do(req)
		if err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				if err := json.Unmarshal(data, out); err != nil {
					t.Fatalf("%s %s: %v", method, path, err)
				}
				return
			}
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, data)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %s: no answer within 2 minutes (%v)", method, path, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// ledgerRow is a row of the admin API's ledger.
type ledgerRow struct {
	Kind      string      `json:"kind"`
	RequestID string      `json:"request_id"`
	Items     int         `json:"items"`
	AmountUSD json.Number `json:"amount_usd"`
}

// account reads a key's balance and its whole ledger in micro-USD.
func (tp *topology) account(t *testing.T, id int64) (balance int64, rows []ledgerRow) {
	t.Helper()
	var acc struct {
		BalanceUSD json.Number `json:"balance_usd"`
	}
	tp.adminCall(t, http.MethodGet, fmt.Sprintf("/admin/keys/%d", id), "", &acc)
	balance = micros(t, acc.BalanceUSD)
	cursor := ""
	for {
		var page struct {
			Entries    []ledgerRow `json:"entries"`
			NextCursor *string     `json:"next_cursor"`
		}
		tp.adminCall(t, http.MethodGet, fmt.Sprintf("/admin/keys/%d/ledger?limit=1000&cursor=%s", id, cursor), "", &page)
		rows = append(rows, page.Entries...)
		if page.NextCursor == nil {
			return balance, rows
		}
		cursor = *page.NextCursor
	}
}

func micros(t *testing.T, n json.Number) int64 {
	t.Helper()
	v, err := billing.ParseUSD(n.String())
	if err != nil {
		t.Fatalf("amount %q: %v", n, err)
	}
	return v
}
