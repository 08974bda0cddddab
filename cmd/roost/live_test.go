package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/world/live"
)

// TestLiveCommand: roost live makes the events asked for, one JSON line
// each, from the seed roost gen recorded, and a second run continues the
// ticks.
func TestLiveCommand(t *testing.T) {
	db := filepath.Join(t.TempDir(), "l.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--seed", "3", "--users", "120", "--posts", "1500"); code != 0 {
		t.Fatal(errOut)
	}
	for _, run := range []struct{ events, first int64 }{{30, 1}, {5, 31}} {
		code, out, errOut := roost(t, "live", "--db", db, "--events", strconv.FormatInt(run.events, 10))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "living world of seed 3 (the seed roost gen recorded)") {
			t.Errorf("stderr does not name the recorded seed: %s", errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if int64(len(lines)) != run.events {
			t.Fatalf("%d lines for %d events:\n%s", len(lines), run.events, out)
		}
		for i, l := range lines {
			var ev live.Event
			if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Tick != run.first+int64(i) || ev.Kind == "" || ev.UserID == 0 {
				t.Fatalf("line %d: %s (%+v, %v); want tick %d", i, l, ev, err, run.first+int64(i))
			}
		}
	}
	// A copy lives on as the original does: the same next events.
	cp := filepath.Join(t.TempDir(), "copy.db")
	if code, _, errOut := roost(t, "copy", "--from", db, "--to", cp); code != 0 {
		t.Fatal(errOut)
	}
	_, want, _ := roost(t, "live", "--db", db, "--events", "4")
	code, got, errOut := roost(t, "live", "--db", cp, "--events", "4")
	if code != 0 || got != want || !strings.Contains(got, `"tick":36`) {
		t.Errorf("the copy's next events:\n%s\nthe original's:\n%s\n%s", got, want, errOut)
	}
}

// TestServeLive: roost serve --live writes ticks while it serves, and
// stops them when it stops.
func TestServeLive(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	if code, _, errOut := roost(t, "gen", "--db", db, "--users", "120", "--posts", "1500"); code != 0 {
		t.Fatal(errOut)
	}
	_, errb := serve(t, "--db", db, "--live", "100/s")
	if !strings.Contains(errb.String(), "living world on: at most 100/s events") {
		t.Errorf("no start-up line for --live: %s", errb.String())
	}
	s, err := sqlite.Open(context.Background(), db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.World().State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Tick >= 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s at 100/s the world is at tick %d:\n%s", st.Tick, errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
