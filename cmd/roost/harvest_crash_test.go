package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/ingest/harvest"
	"github.com/roostapi/roost/internal/syncbuf"
)

// harvestCase is a walk and the output a crash test harvests it into.
type harvestCase struct {
	kind, arg string
	out       string // a file name; .db: a database (--db)
}

func (c harvestCase) db() bool { return strings.HasSuffix(c.out, ".db") }

// args are roost harvest's arguments for the case in dir.
func (c harvestCase) args(u *tappedUpstream, dir string, resume bool, ahead int) []string {
	args := []string{"harvest", "--base-url", u.url, "--key", u.key, c.kind, c.arg, "--ahead", strconv.Itoa(ahead)}
	if c.db() {
		args = append(args, "--db", filepath.Join(dir, c.out))
	} else {
		args = append(args, "--out", filepath.Join(dir, c.out))
	}
	if resume {
		args = append(args, "--resume")
	}
	return args
}

// checkpointPath is where roost harvest keeps the case's checkpoint when
// run in dir: beside --out, or the one harvest-*.checkpoint in dir.
func (c harvestCase) checkpointPath(t *testing.T, dir string) string {
	t.Helper()
	if !c.db() {
		return filepath.Join(dir, c.out) + ".checkpoint"
	}
	m, err := filepath.Glob(filepath.Join(dir, "harvest-"+c.kind+"-*.checkpoint"))
	if err != nil || len(m) > 1 {
		t.Fatalf("checkpoints %v (%v)", m, err)
	}
	if len(m) == 0 {
		return filepath.Join(dir, "none.checkpoint")
	}
	return m[0]
}

// checkpoint loads the case's checkpoint; nil when there is none yet.
func (c harvestCase) checkpoint(t *testing.T, dir string) *harvest.Checkpoint {
	t.Helper()
	cp, err := harvest.LoadCheckpoint(c.checkpointPath(t, dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return cp
}

// checkStored checks that what a checkpoint names is stored: the first
// Offset bytes of the file are whole pages holding exactly the walk's
// first Items items; the database holds the walk's first Items items.
// Pages stored beyond the checkpoint are allowed (a crash between a write
// and its checkpoint).
func (c harvestCase) checkStored(t *testing.T, dir string, cp *harvest.Checkpoint, w harvestWant) {
	t.Helper()
	if cp == nil {
		return
	}
	if cp.Stats.Items > len(w.served) {
		t.Fatalf("the checkpoint names %d items, the walk has %d", cp.Stats.Items, len(w.served))
	}
	if !c.db() {
		data, err := os.ReadFile(filepath.Join(dir, c.out))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) < cp.Offset {
			t.Fatalf("the checkpoint names %d bytes, the file holds %d", cp.Offset, len(data))
		}
		if got := harvestLineIDs(t, c.out, data[:cp.Offset]); !slices.Equal(got, w.served[:cp.Stats.Items]) {
			t.Fatalf("the checkpointed part of the file holds %d items, not the walk's first %d", len(got), cp.Stats.Items)
		}
		return
	}
	path := filepath.Join(dir, c.out)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the checkpoint names %d items, the database: %v", cp.Stats.Items, err)
	}
	var got []int64
	if w.rel != "" {
		got = sqlInts(t, path, w.rel, w.relArg)
	} else {
		got = sqlInts(t, path, "SELECT id FROM posts")
	}
	have := map[int64]bool{}
	for _, v := range got {
		have[v] = true
	}
	for i, s := range w.served[:cp.Stats.Items] {
		if !have[mustID(t, s)] {
			t.Fatalf("the checkpoint names %d items; item %d (%s) is not stored", cp.Stats.Items, i, s)
		}
	}
}

// checkDone checks the end of a harvest: the checkpoint is done with the
// walk's items, and the output holds exactly the walk (the file its items
// in order, each page once; the database its posts, users and relation
// rows in order).
func (c harvestCase) checkDone(t *testing.T, dir string, w harvestWant) {
	t.Helper()
	cp := c.checkpoint(t, dir)
	if cp == nil || !cp.Done || cp.Stats.Items != len(w.served) {
		t.Errorf("final checkpoint %+v, want done with %d items", cp, len(w.served))
	}
	if c.db() {
		checkHarvestDB(t, filepath.Join(dir, c.out), w)
		return
	}
	got := harvestFileIDs(t, filepath.Join(dir, c.out))
	if !slices.Equal(got, w.served) {
		seen, dups := map[string]bool{}, 0
		for _, s := range got {
			if seen[s] {
				dups++
			}
			seen[s] = true
		}
		var missing []string
		for _, s := range w.served {
			if !seen[s] {
				missing = append(missing, s)
			}
		}
		t.Errorf("the file holds %d items (%d repeated, %d missing: %.10v), the walk %d", len(got), dups, len(missing), missing, len(w.served))
	}
}

// harvestProc is a roost harvest process.
type harvestProc struct {
	cmd    *exec.Cmd
	stdout syncbuf.Buffer
	stderr syncbuf.Buffer
	exited chan error    // its Wait's result
	done   chan struct{} // closed when it has exited
}

// startHarvest starts the built binary in dir with args; a test that ends
// before it does kills it.
func startHarvest(t *testing.T, dir string, args []string) *harvestProc {
	t.Helper()
	p := &harvestProc{cmd: exec.Command(roostBinary(t), args...), exited: make(chan error, 1), done: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.exited <- p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// untap disarms the upstream's tap when a test ends, also when it fails
// with a hook armed or a request held.
func untap(t *testing.T, u *tappedUpstream) {
	t.Cleanup(func() {
		u.tap.arm(nil)
		u.tap.releaseAll()
		u.walks.CloseIdleConnections() // a walk that failed left its own
		u.tap.quiet()
	})
}

// execHarvest runs the built binary with args to its end.
func execHarvest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb syncbuf.Buffer
	cmd := exec.Command(roostBinary(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if code = exitStatus(err); code < 0 {
		t.Fatalf("roost %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return code, out.String(), errb.String()
}

// killedBy9 reports whether err is the exit of a process killed by SIGKILL.
func killedBy9(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// exitStatus is a process's exit status (-1: killed by a signal).
func exitStatus(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -2
}

// harvestSeed is the seed of a crash test's random choices, logged so that
// a failure can be replayed with ROOST_HARVEST_SEED.
func harvestSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ROOST_HARVEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ROOST_HARVEST_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (ROOST_HARVEST_SEED replays it)", seed)
	return seed
}

// TestHarvestKillResume runs roost harvest as a process and kills it with
// SIGKILL (or, one time in three, stops it with SIGINT, Ctrl-C) at random
// points, then resumes it with --resume (8 times, then once to the end):
// into a JSON-lines file, a gzip one and a database; a walk of posts, one
// of users, one of ids. Each run has a random --ahead and is stopped once
// the upstream has seen a random number of its requests, either while that
// request is held at the upstream or right as it is served (the signal
// then lands wherever the run is: fetching, storing, checkpointing); the
// first run, --ahead 0, is killed while its second request is held.
//
// After each stop what the checkpoint names must be stored (after Ctrl-C,
// every page fetched), and the next run's first request must be the
// checkpoint's next one. At the end the output holds exactly the
// upstream's items (the file each once, in order; the database its posts,
// users and relation rows in the walk's order), every id of a by-ids file
// was answered (found or missing, in order), and the runs together fetched no more pages again
// than docs/harvesting.md allows (at most 2×ahead+4 a stop).
func TestHarvestKillResume(t *testing.T) {
	u := newTappedUpstream(t)
	rng := rand.New(rand.NewPCG(harvestSeed(t), 1))
	uid := strconv.FormatInt(u.ex.UserID, 10)
	// 1,200 ids, 12 requests: posts, and every second an id no post has.
	var ids strings.Builder
	for i, id := range u.query(t, "SELECT id FROM posts ORDER BY id DESC LIMIT 600") {
		fmt.Fprintf(&ids, "%d\n%d\n", id, 1000+i)
	}
	idFile := filepath.Join(t.TempDir(), "posts.ids")
	if err := os.WriteFile(idFile, []byte(ids.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []harvestCase{
		{"search", "the", "out.jsonl"},
		{"search", "the", "out.jsonl.gz"},
		{"search", "the", "h.db"},
		{"followers", uid, "h.db"},
		{"posts-by-ids", idFile, "out.jsonl"},
	} {
		t.Run(c.kind+"/"+c.out, func(t *testing.T) {
			untap(t, u)
			var ids []int64
			if c.kind == "posts-by-ids" {
				ids = readIDFile(t, c.arg)
			}
			w := walkKind(t, u, c.kind, c.arg, ids)
			answered := 0 // how many of w.answers the runs printed, from the first
			if w.requests < 8 {
				t.Fatalf("the walk takes %d pages; want at least 8", w.requests)
			}
			dir := t.TempDir()
			start := u.tap.total.Load()
			var stops, refetchable int64
			for run := 0; ; run++ {
				ahead := []int{0, 1, harvest.DefaultAhead}[rng.IntN(3)]
				// Up to 8 runs are killed within their first quarter of the
				// walk's pages (or 3); the next one runs to the end.
				at := 1 + rng.Int64N(max(3, w.requests/4))
				if run == 8 {
					at = 1 << 62
				}
				hold := rng.IntN(2) == 0
				// One run in three is stopped by Ctrl-C rather than kill -9.
				interrupt := rng.IntN(3) == 0
				if run == 0 {
					// The first is killed while its second request is held,
					// --ahead 0: the first page is stored and checkpointed
					// then (and its ids answered), no other.
					ahead, at, hold, interrupt = 0, 2, true, false
				}
				reached := make(chan struct{})
				var once sync.Once
				var held chan struct{}
				if hold {
					held = u.tap.hold()
				}
				// The first request of a run must be the checkpoint's next one.
				prev := c.checkpoint(t, dir)
				var first url.Values // its query, and the ids it asks for ("ids")
				var mu sync.Mutex
				u.tap.arm(func(n int64, _ http.ResponseWriter, r *http.Request) bool {
					if n == 1 {
						q := r.URL.Query()
						if r.Method == http.MethodPost {
							body, _ := io.ReadAll(r.Body)
							r.Body = io.NopCloser(bytes.NewReader(body))
							var req struct {
								IDs []string `json:"ids"`
							}
							json.Unmarshal(body, &req)
							q["ids"] = req.IDs
						}
						mu.Lock()
						first = q
						mu.Unlock()
					}
					if n >= at {
						once.Do(func() { close(reached) })
						if hold {
							<-held
						}
					}
					return false
				})
				p := startHarvest(t, dir, c.args(u, dir, run > 0, ahead))
				var err error
				select {
				case <-reached:
					if interrupt {
						p.cmd.Process.Signal(os.Interrupt)
					} else {
						p.cmd.Process.Kill()
					}
					err = <-p.exited
				case err = <-p.exited:
				}
				// The run answers the ids from the checkpoint's next one on,
				// in order (a killed run may have left a line cut short).
				out := p.stdout.String()
				if err != nil {
					out = out[:strings.LastIndex(out, "\n")+1]
				}
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if out == "" {
					lines = nil
				}
				from := 0
				if prev != nil {
					from = prev.Batch
				}
				if from > answered {
					t.Fatalf("run %d began at id %d; the runs before it answered %d ids only", run, from, answered)
				}
				if end := from + len(lines); end > len(w.answers) || !slices.Equal(lines, w.answers[from:end]) {
					t.Fatalf("run %d printed %d lines from id %d: %.200q; want %.200q", run, len(lines), from, lines,
						w.answers[from:min(end, len(w.answers))])
				}
				answered = max(answered, from+len(lines))
				served := u.tap.served.Load() // before the held request goes on
				u.tap.releaseAll()
				u.tap.quiet()
				u.tap.arm(nil)
				mu.Lock()
				if first != nil {
					wantCursor, wantQuery, batch := "", c.arg, 0
					if prev != nil {
						wantCursor, wantQuery, batch = prev.Cursor, prev.Query, prev.Batch
					}
					if first.Get("cursor") != wantCursor || c.kind == "search" && first.Get("query") != wantQuery {
						t.Fatalf("run %d began with %v; the checkpoint's next request is cursor %q, query %q",
							run, first, wantCursor, wantQuery)
					}
					if ids != nil && first.Get("ids") != strconv.FormatInt(ids[batch], 10) {
						t.Fatalf("run %d began with the ids from %s; the checkpoint's next id is %d (index %d)",
							run, first.Get("ids"), ids[batch], batch)
					}
				}
				mu.Unlock()
				if err == nil {
					t.Logf("run %d (--ahead %d) ended the walk after %d stops", run, ahead, stops)
					break
				}
				how := "killed"
				switch {
				case run == 8:
					t.Fatalf("run %d: %v\n%s", run, err, p.stderr.String())
				case interrupt:
					how = "interrupted"
					if exitStatus(err) != 1 || !strings.Contains(p.stderr.String(), "run again with --resume") {
						t.Fatalf("run %d, interrupted: %v, want exit status 1 naming --resume\n%s", run, err, p.stderr.String())
					}
				case !killedBy9(err):
					t.Fatalf("run %d: %v\n%s", run, err, p.stderr.String())
				}
				stops++
				refetchable += int64(2*ahead + 4)
				cp := c.checkpoint(t, dir)
				c.checkStored(t, dir, cp, w)
				from, to := 0, 0
				if prev != nil {
					from = prev.Stats.Pages
				}
				if cp != nil {
					to = cp.Stats.Pages
				}
				// After Ctrl-C every page fetched is stored and checkpointed:
				// every page the upstream served, but for the one in flight
				// when the signal came (when no request was held).
				if interrupt && (int64(to-from) > served || int64(to-from) < served-1 || hold && int64(to-from) != served) {
					t.Fatalf("run %d (--ahead %d) interrupted at request %d (held: %v): the upstream served %d pages, the checkpoint moved from %d to %d pages",
						run, ahead, at, hold, served, from, to)
				}
				if run == 0 && to != 1 {
					t.Fatalf("run 0 (--ahead 0) killed while its second request was held: the checkpoint names %d pages, want 1", to)
				}
				t.Logf("run %d (--ahead %d) %s at request %d; the checkpoint names %d pages", run, ahead, how, at, to)
			}
			c.checkDone(t, dir, w)
			if answered != len(w.answers) {
				t.Errorf("the runs answered %d ids of %d", answered, len(w.answers))
			}
			if stops < 2 {
				t.Errorf("%d runs stopped; the test wants at least 2", stops)
			}
			if n := u.tap.total.Load() - start; n > w.requests+refetchable {
				t.Errorf("%d requests for a walk of %d pages and %d stops; at most %d pages may be fetched again",
					n, w.requests, stops, refetchable)
			}
		})
	}
}

// TestHarvestNetworkLoss: the upstream drops connections under roost
// harvest (closing them before answering, or half way through a body).
// A lost request now and then is retried through; a network down for good
// makes the client give up after its retries, and the run fails naming
// --resume; Ctrl-C while the client waits to retry stops the run; kill -9
// during the loss stops it too. Whatever fetched before the loss or the
// Ctrl-C is stored, and resumed runs end with exactly the upstream's items.
func TestHarvestNetworkLoss(t *testing.T) {
	u := newTappedUpstream(t)
	rng := rand.New(rand.NewPCG(harvestSeed(t), 2))
	for _, tc := range []struct {
		harvestCase
		// events are how each run ends, in turn: "give up" (the client
		// exhausts its retries, 4-8 s), "interrupt" (SIGINT once a request
		// was retried), "kill" (SIGKILL at the first lost request), "through"
		// (the run must end the walk, losing single requests only).
		events []string
	}{
		{harvestCase{"search", "the", "out.jsonl.gz"}, []string{"give up", "interrupt", "kill", "through"}},
		{harvestCase{"search", "the", "h.db"}, []string{"interrupt", "kill", "interrupt", "through"}},
	} {
		t.Run(tc.kind+"/"+tc.out, func(t *testing.T) {
			untap(t, u)
			w := walkKind(t, u, tc.kind, tc.arg, nil)
			dir := t.TempDir()
			// Each outage starts within the first sixth of the walk's pages:
			// three of them leave the last run pages to lose.
			maxAt := max(2, w.requests/6)
			for run, ev := range tc.events {
				at := 1 + rng.Int64N(maxAt)
				if ev == "through" {
					at = 1 << 62
				}
				// Two single losses before the outage (or anywhere in a run
				// that must go through).
				blips := map[int64]bool{}
				for range 2 {
					if before := min(at-1, 3*maxAt); before > 0 {
						blips[1+rng.Int64N(before)] = true
					}
				}
				salt := rng.Int64N(2) // which requests are closed, which cut
				var mu sync.Mutex
				lost := 0
				second := make(chan struct{}, 1) // the outage lost a retried request
				first := make(chan struct{}, 1)  // the outage began
				u.tap.arm(func(n int64, rw http.ResponseWriter, r *http.Request) bool {
					mu.Lock()
					defer mu.Unlock()
					switch {
					case n >= at:
						lost++
						if lost == 1 {
							first <- struct{}{}
						}
						if lost == 2 {
							second <- struct{}{}
						}
					case blips[n]:
					default:
						return false
					}
					if (n+salt)%2 == 0 {
						dropConn(t, rw)
					} else {
						cutBody(t, u.tap.next, rw, r)
					}
					return true
				})
				before := tc.checkpoint(t, dir)
				p := startHarvest(t, dir, tc.args(u, dir, run > 0, harvest.DefaultAhead))
				var err error
				switch ev {
				case "interrupt":
					select {
					case <-second:
						p.cmd.Process.Signal(os.Interrupt)
					case err = <-p.exited:
						t.Fatalf("run %d (%s) ended before the loss: %v\n%s", run, ev, err, p.stderr.String())
					}
				case "kill":
					select {
					case <-first:
						p.cmd.Process.Kill()
					case err = <-p.exited:
						t.Fatalf("run %d (%s) ended before the loss: %v\n%s", run, ev, err, p.stderr.String())
					}
				}
				err = <-p.exited
				u.tap.quiet()
				served := u.tap.served.Load()
				u.tap.arm(nil)
				stderr := p.stderr.String()
				switch ev {
				case "through":
					if err != nil {
						t.Fatalf("run %d (%s) lost %v: %v\n%s", run, ev, blips, err, stderr)
					}
				case "kill":
					if !killedBy9(err) {
						t.Fatalf("run %d (%s): %v\n%s", run, ev, err, stderr)
					}
					tc.checkStored(t, dir, tc.checkpoint(t, dir), w)
				default:
					if exitStatus(err) != 1 || !strings.Contains(stderr, "run again with --resume") {
						t.Fatalf("run %d (%s): %v, want exit status 1 naming --resume\n%s", run, ev, err, stderr)
					}
					// Every page served before the loss was fetched, and is
					// stored and checkpointed.
					after := tc.checkpoint(t, dir)
					tc.checkStored(t, dir, after, w)
					from, to := 0, 0 // no checkpoint before the first page is stored
					if before != nil {
						from = before.Stats.Pages
					}
					if after != nil {
						to = after.Stats.Pages
					}
					if int64(to-from) != served {
						t.Fatalf("run %d (%s): the upstream served %d pages, the checkpoint moved from %d to %d pages",
							run, ev, served, from, to)
					}
				}
				mu.Lock()
				if ev == "through" {
					t.Logf("run %d: %s, single losses at %v", run, ev, slices.Sorted(maps.Keys(blips)))
				} else {
					t.Logf("run %d: %s, the outage from request %d (%d lost), single losses at %v", run, ev, at, lost, slices.Sorted(maps.Keys(blips)))
				}
				mu.Unlock()
			}
			tc.checkDone(t, dir, w)
		})
	}
}
