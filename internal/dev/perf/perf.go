// Package perf measures what a user of roost waits for: the latency of
// timeline and search pages served in-process through the whole HTTP
// handler (auth, rate limit, store, shapes, billing), and the memory the
// process holds while serving. `roost bench` prints its report; the
// benchmarks in this package report the same figures to `go test -bench`.
package perf

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
)

// Config says how much to measure.
type Config struct {
	// Requests per class of page (default 500).
	Requests int
	// Seed makes the choice of users, words and pages repeatable.
	Seed uint64
}

// Rig is a handler over a store with a key that can pay for every request.
type Rig struct {
	Handler http.Handler
	// reg holds the handler's metrics (the debits' waits).
	reg     *prometheus.Registry
	store   social.Store
	key     string
	keyID   int64
	users   []sample
	words   []string
	replies []int64 // posts that answer another: their threads have more than one post
}

// sample is an author found in the data.
type sample struct {
	id   int64
	name string
}

// NewRig builds the handler (logging nothing: a log line per request would
// be measured too) with a key of its own (revoked by Close) and samples users and words from the data by
// searching for common words, so it works on any database, generated or
// imported.
func NewRig(ctx context.Context, s social.Store) (*Rig, error) {
	return NewRigConfig(ctx, s, RigConfig{})
}

// RigConfig tunes the handler a rig serves.
type RigConfig struct {
	// PageCacheBytes is httpapi.Config.PageCacheBytes (0: the default
	// size, negative: no page cache).
	PageCacheBytes int64
}

// NewRigConfig is NewRig with a handler tuned by cfg.
func NewRigConfig(ctx context.Context, s social.Store, cfg RigConfig) (*Rig, error) {
	key, digest, prefix := billing.NewKey()
	k, err := s.CreateKey(ctx, social.APIKey{Name: "bench", Prefix: prefix, Digest: digest}, 1_000_000*billing.MicrosPerUSD)
	if err != nil {
		return nil, fmt.Errorf("perf: create bench key: %w", err)
	}
	reg := prometheus.NewRegistry()
	r := &Rig{Handler: httpapi.New(httpapi.Config{RateLimit: -1, PageCacheBytes: cfg.PageCacheBytes, Registry: reg}, s, nil,
		slog.New(slog.DiscardHandler)), reg: reg, store: s, key: key, keyID: k.ID}
	if err := r.sample(); err != nil {
		return nil, errors.Join(err, r.Close(ctx))
	}
	return r, nil
}

// Close revokes the rig's key: it stays in the ledger, but nobody can use
// it (its secret was never shown anyway).
func (r *Rig) Close(ctx context.Context) error {
	if err := r.store.Revoke(ctx, r.keyID); err != nil {
		return fmt.Errorf("perf: revoke bench key: %w", err)
	}
	return nil
}

// Get serves one GET request and returns its status and body.
func (r *Rig) Get(path string) (int, []byte) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+r.key)
	rec := httptest.NewRecorder()
	r.Handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

type page struct {
	NextCursor *string `json:"next_cursor"`
	Tweets     []struct {
		IDStr     string  `json:"id_str"`
		InReplyTo *string `json:"in_reply_to_status_id_str"`
		FullText  string  `json:"full_text"`
		User      struct {
			IDStr      string `json:"id_str"`
			ScreenName string `json:"screen_name"`
			Protected  bool   `json:"protected"`
		} `json:"user"`
	} `json:"tweets"`
}

func (r *Rig) sample() error {
	seenUser := map[int64]bool{}
	seenWord := map[string]bool{}
	for _, q := range []string{"the", "a", "de", "is", "and", "to"} {
		path := "/social/search?query=" + url.QueryEscape(q)
		for range 15 {
			code, body := r.Get(path)
			if code != http.StatusOK {
				return fmt.Errorf("perf: sample search %q: status %d: %s", q, code, body)
			}
			var p page
			if err := json.Unmarshal(body, &p); err != nil {
				return fmt.Errorf("perf: sample search: %w", err)
			}
			for _, t := range p.Tweets {
				if t.InReplyTo != nil {
					if id, err := strconv.ParseInt(t.IDStr, 10, 64); err == nil {
						r.replies = append(r.replies, id)
					}
				}
				id, err := strconv.ParseInt(t.User.IDStr, 10, 64)
				if err == nil && !t.User.Protected && !seenUser[id] {
					seenUser[id] = true
					r.users = append(r.users, sample{id: id, name: t.User.ScreenName})
				}
				for _, w := range strings.Fields(t.FullText) {
					w = strings.Trim(w, ".,!?;:\"'()")
					if len([]rune(w)) >= 3 && isWord(w) && !seenWord[w] {
						seenWord[w] = true
						r.words = append(r.words, w)
					}
				}
			}
			if p.NextCursor == nil {
				break
			}
			path = "/social/search?query=" + url.QueryEscape(q) + "&cursor=" + url.QueryEscape(*p.NextCursor)
		}
	}
	if len(r.users) == 0 || len(r.words) == 0 {
		return fmt.Errorf("perf: the database has no public posts with common words to sample")
	}
	return nil
}

// Class is one kind of page and how to pick a request of it.
type Class struct {
	Name string
	// Path returns the path of the i-th request.
	Path func(rng *rand.Rand) string
}

// Classes are the measured kinds of pages: timeline pages (first and
// deeper pages) and a mix of search queries.
func (r *Rig) Classes() []Class {
	user := func(rng *rand.Rand) sample { return r.users[rng.IntN(len(r.users))] }
	word := func(rng *rand.Rand) string { return r.words[rng.IntN(len(r.words))] }
	search := func(q string) string { return "/social/search?query=" + url.QueryEscape(q) }
	queries := []func(rng *rand.Rand) string{
		func(rng *rand.Rand) string { return word(rng) },
		func(rng *rand.Rand) string { return word(rng) + " " + word(rng) },
		func(rng *rand.Rand) string { return `"` + word(rng) + " " + word(rng) + `"` },
		func(rng *rand.Rand) string { return "from:" + user(rng).name },
		func(rng *rand.Rand) string { return "from:" + user(rng).name + " " + word(rng) },
		func(rng *rand.Rand) string { return word(rng) + " OR " + word(rng) },
		func(rng *rand.Rand) string { return word(rng) + " -" + word(rng) },
		func(rng *rand.Rand) string { return word(rng) + " since:2026-01-01 until:2026-03-01" },
		func(rng *rand.Rand) string { return "min_faves:100 " + word(rng) },
		func(rng *rand.Rand) string { return "from:" + user(rng).name + " -filter:replies" },
	}
	return []Class{
		{"timeline", func(rng *rand.Rand) string { return fmt.Sprintf("/social/user/%d/tweets", user(rng).id) }},
		{"timeline+replies", func(rng *rand.Rand) string {
			return fmt.Sprintf("/social/user/%d/tweets-and-replies", user(rng).id)
		}},
		{"search Latest", func(rng *rand.Rand) string { return search(queries[rng.IntN(len(queries))](rng)) }},
		{"search Top", func(rng *rand.Rand) string { return search(queries[rng.IntN(len(queries))](rng)) + "&type=Top" }},
	}
}

// Stats are the latencies of one class.
type Stats struct {
	Class    string
	Requests int
	P50, P90 time.Duration
	P99, Max time.Duration
	Slowest  string
}

// Measure serves n requests of a class, following next_cursor for a
// second page on every fourth request, and returns the latencies.
func (r *Rig) Measure(c Class, n int, seed uint64) (Stats, error) {
	var sm samples
	if err := r.serve(c, n, seed, &sm); err != nil {
		return Stats{}, err
	}
	return sm.stats(c.Name), nil
}

// samples are the latencies of the requests of one class.
type samples struct {
	lat     []time.Duration
	max     time.Duration
	slowest string
}

func (sm *samples) add(path string, d time.Duration) {
	sm.lat = append(sm.lat, d)
	if d > sm.max {
		sm.max, sm.slowest = d, path
	}
}

func (sm *samples) stats(class string) Stats {
	lat := slices.Sorted(slices.Values(sm.lat))
	if len(lat) == 0 {
		return Stats{Class: class}
	}
	return Stats{Class: class, Requests: len(lat), P50: quantile(lat, 0.50), P90: quantile(lat, 0.90), P99: quantile(lat, 0.99), Max: sm.max, Slowest: sm.slowest}
}

// serve serves n requests of a class (and the second pages of every
// fourth) and adds their latencies to sm.
func (r *Rig) serve(c Class, n int, seed uint64, sm *samples) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := 0; i < n; i++ {
		path := c.Path(rng)
		start := time.Now()
		code, body := r.Get(path)
		d := time.Since(start)
		if code != http.StatusOK {
			return fmt.Errorf("perf: %s: GET %s: status %d: %s", c.Name, path, code, body)
		}
		sm.add(path, d)
		if i%4 == 3 {
			var p page
			if err := json.Unmarshal(body, &p); err == nil && p.NextCursor != nil {
				sep := "?"
				if strings.Contains(path, "?") {
					sep = "&"
				}
				next := path + sep + "cursor=" + url.QueryEscape(*p.NextCursor)
				start := time.Now()
				if code, body := r.Get(next); code != http.StatusOK {
					return fmt.Errorf("perf: %s: GET %s: status %d: %s", c.Name, next, code, body)
				}
				sm.add(next, time.Since(start))
			}
		}
	}
	return nil
}

// Memory reads the process's resident memory now and at its peak, in
// bytes, from /proc (Linux); zero where unavailable.
func Memory() (rss, peak int64) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

// Report measures every class and writes a table.
func (r *Rig) Report(w io.Writer, cfg Config) error {
	if cfg.Requests <= 0 {
		cfg.Requests = 500
	}
	fmt.Fprintf(w, "%-18s %8s %9s %9s %9s %9s\n", "page", "requests", "p50", "p90", "p99", "max")
	var slow []string
	for i, c := range r.Classes() {
		st, err := r.Measure(c, cfg.Requests, cfg.Seed+uint64(i))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-18s %8d %9s %9s %9s %9s\n", st.Class, st.Requests, round(st.P50), round(st.P90), round(st.P99), round(st.Max))
		slow = append(slow, fmt.Sprintf("slowest %s: %s (%s)", st.Class, st.Slowest, round(st.Max)))
	}
	for _, s := range slow {
		fmt.Fprintln(w, s)
	}
	rss, peak := Memory()
	fmt.Fprintf(w, "resident memory: %d MB now, %d MB peak\n", rss>>20, peak>>20)
	return nil
}

// quantile is the f-quantile (0 to 1) of sorted, which is not empty.
func quantile(sorted []time.Duration, f float64) time.Duration {
	return sorted[min(len(sorted)-1, int(f*float64(len(sorted))))]
}

func round(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	default:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	}
}

// isWord reports whether s is letters only: a plain search word.
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}
