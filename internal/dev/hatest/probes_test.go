package hatest

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// probes are the answers of /readyz and /healthz of every replica, asked
// every 200 ms while the load runs.
type probes struct {
	wg            sync.WaitGroup
	mu            sync.Mutex
	ready, health map[string]int // answers by "status Retry-After"
	healthUnavail int            // /healthz answers saying the database is unavailable
}

// probeHealth asks the probes until stop is set.
func probeHealth(tp *topology, stop *atomic.Bool) *probes {
	p := &probes{ready: map[string]int{}, health: map[string]int{}}
	probe := &http.Client{Timeout: 5 * time.Second}
	for _, base := range tp.urls {
		p.wg.Go(func() {
			for !stop.Load() {
				for _, path := range []string{"/readyz", "/healthz"} {
					code, body, retry := -1, "", ""
					if resp, err := probe.Get(base + path); err == nil {
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						code, body, retry = resp.StatusCode, string(b), resp.Header.Get("Retry-After")
					}
					p.mu.Lock()
					answer := http.StatusText(code) + " " + retry
					if path == "/readyz" {
						p.ready[answer]++
					} else {
						p.health[answer]++
						if strings.Contains(body, `"database":"unavailable"`) {
							p.healthUnavail++
						}
					}
					p.mu.Unlock()
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
	return p
}

// check wants /readyz 503 with Retry-After during the failover and
// /healthz 200 throughout (saying the database is unavailable).
func (p *probes) check(t *testing.T) {
	t.Helper()
	p.wg.Wait()
	t.Logf("/readyz answers %v; /healthz answers %v (%d saying the database is unavailable)", p.ready, p.health, p.healthUnavail)
	notReady := 0
	for answer, n := range p.ready {
		switch {
		case strings.HasPrefix(answer, "Service Unavailable ") && answer != "Service Unavailable ":
			notReady += n
		case answer != "OK ":
			t.Errorf("/readyz answered %q %d times", answer, n)
		}
	}
	if notReady == 0 {
		t.Errorf("/readyz never said not ready (503 with Retry-After) while no primary was reachable")
	}
	for answer, n := range p.health {
		if answer != "OK " {
			t.Errorf("/healthz answered %q %d times; it stays 200 in a failover", answer, n)
		}
	}
	if p.healthUnavail == 0 {
		t.Errorf("/healthz never said the database was unavailable")
	}
}

// checkSettled reads the replicas' logs: no debit is left of unknown
// outcome, and the debits whose replies the old primary took with it
// were settled on the new one (counted).
func checkSettled(t *testing.T, tp *topology) {
	t.Helper()
	var committed, refused int
	for _, name := range []string{"roost1.log", "roost2.log"} {
		b, err := os.ReadFile(filepath.Join(tp.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.Contains(line, "debit outcome unknown"):
				t.Errorf("%s: %s", name, line)
			case strings.Contains(line, "the debit had committed"):
				committed++
			case strings.Contains(line, "(not charged)"):
				refused++
			}
		}
	}
	t.Logf("debits whose reply was lost with the primary, settled on the new one: %d had committed (served as paid), %d had not (503, not charged)", committed, refused)
}
