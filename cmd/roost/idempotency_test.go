package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startKillable starts `roost serve` with args and returns its base URL
// and process, for the test to kill -9.
func startKillable(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(roostBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0", "--demo=false"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-found:
		return u, cmd
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not start")
	}
	return "", nil
}

func fetchWith(t *testing.T, url, key, idem string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Idempotency-Key", idem)
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestIdempotencyAfterKill: a paid page whose answer the client never
// got (the server killed with -9 right after) is answered again, after a
// restart, to a retry with the same Idempotency-Key, without a second
// charge.
func TestIdempotencyAfterKill(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	roostExec(t, "gen", "--db", db, "--users", "100", "--posts", "800")
	key := strings.TrimSpace(roostExec(t, "keys", "create", "--db", db, "--credits", "1"))
	base, cmd := startKillable(t, "--db", db)
	path := "/social/search?query=the"
	code, first, _ := fetchWith(t, base+path, key, "crash-1")
	if code != http.StatusOK {
		t.Fatalf("first: %d %s", code, first)
	}
	cmd.Process.Kill() // as if the answer had been lost with the process
	cmd.Wait()
	balance := func(base string) string {
		_, b, _ := fetchWith(t, base+"/user/balance", key, "")
		return b
	}
	base, _ = startKillable(t, "--db", db)
	before := balance(base)
	code, again, h := fetchWith(t, base+path, key, "crash-1")
	if code != http.StatusOK || again != first || h.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after kill -9: %d replayed %q same %v", code, h.Get("Idempotent-Replayed"), again == first)
	}
	if after := balance(base); after != before {
		t.Errorf("the retry was charged: balance %s then %s", before, after)
	}
}

// TestReplicasIdempotency: a retry with the same Idempotency-Key is
// answered from the kept page by another replica, without a charge.
func TestReplicasIdempotency(t *testing.T) {
	c := newCluster(t)
	urls := c.serve(t, c.db, 2)
	st := c.openStore(t)
	key, id := c.newKey(t, st, "1")
	path := c.paths()[0]
	code, first, _ := fetchWith(t, urls[0]+path, key, "replica-retry")
	if code != http.StatusOK {
		t.Fatalf("first: %d %s", code, first)
	}
	k, _ := st.Key(t.Context(), id)
	code, again, h := fetchWith(t, urls[1]+path, key, "replica-retry")
	if code != http.StatusOK || again != first || h.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry on the other replica: %d replayed %q same %v", code, h.Get("Idempotent-Replayed"), again == first)
	}
	if k2, _ := st.Key(t.Context(), id); k2.Balance != k.Balance {
		t.Errorf("the retry was charged: %d then %d", k.Balance, k2.Balance)
	}
}
