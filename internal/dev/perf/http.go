package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// HTTPConfig says how the served pages are measured against the ceiling.
type HTTPConfig struct {
	Connections int           // kept-alive connections of the load generator (default 16)
	Duration    time.Duration // of each measured run (default 6 s)
	Warmup      time.Duration // before each run, not measured (default 1 s)
	// Settle drives roost with the first kind's pages before anything is
	// measured (default 3 s): a fresh process grows its write-ahead log,
	// heap and caches first, which made the first kind measured come out
	// up to a fifth lower.
	Settle time.Duration
	Rounds int      // alternations of roost and the ceiling per page kind (default 2)
	Paths  int      // distinct pages of each kind (default 64)
	Kinds  []string // page kinds to measure by name; all when empty
	Seed   uint64
}

func (c *HTTPConfig) defaults() {
	if c.Connections <= 0 {
		c.Connections = 16
	}
	if c.Duration <= 0 {
		c.Duration = 6 * time.Second
	}
	if c.Warmup < 0 {
		c.Warmup = 0
	} else if c.Warmup == 0 {
		c.Warmup = time.Second
	}
	if c.Settle < 0 {
		c.Settle = 0
	} else if c.Settle == 0 {
		c.Settle = 3 * time.Second
	}
	if c.Rounds <= 0 {
		c.Rounds = 2
	}
	if c.Paths <= 0 {
		c.Paths = 64
	}
}

// PageKind is one kind of page the ceiling comparison serves: a fixed set
// of paths, each requested in turn.
type PageKind struct {
	Name  string
	Paths []string
}

// PageKinds are the kinds of pages compared with the ceiling: timeline,
// list, search Latest (the bench mix), thread and profile pages, n paths
// each (fewer where the data holds fewer lists or threads).
func (r *Rig) PageKinds(ctx context.Context, n int, seed uint64) ([]PageKind, error) {
	rng := rand.New(rand.NewPCG(seed, 0xce11))
	pick := func(c Class) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = c.Path(rng)
		}
		return out
	}
	classes := r.Classes()
	kinds := []PageKind{{Name: "timeline", Paths: pick(classes[0])}, {Name: "search Latest", Paths: pick(classes[2])}}
	var lists, threads, profiles []string
	for _, u := range r.users {
		if len(profiles) < n {
			profiles = append(profiles, "/social/user/"+u.name)
		}
		if len(lists) < n {
			page, err := r.store.UserLists(ctx, u.id, social.PageReq{Limit: 5})
			if err != nil {
				return nil, fmt.Errorf("perf: lists of %d: %w", u.id, err)
			}
			for _, l := range page.Items {
				lists = append(lists, fmt.Sprintf("/social/list/%d/tweets", l.ID))
			}
		}
	}
	for _, id := range r.replies {
		if len(threads) < n {
			threads = append(threads, fmt.Sprintf("/social/thread/%d", id))
		}
	}
	for _, k := range []PageKind{{"list", lists}, {"thread", threads}, {"profile", profiles}} {
		if len(k.Paths) > 0 {
			kinds = append(kinds, k)
		}
	}
	return kinds, nil
}

// staticPage is a page's bytes as roost served them.
type staticPage struct {
	contentType string
	body        []byte
}

// Ceiling is a plain net/http handler that sends pre-encoded pages: the
// fastest any server could answer with the same bytes.
type Ceiling struct {
	pages map[string]staticPage
}

// NewCeiling fetches each path once through the rig (paying for it) and
// keeps the bytes.
func (r *Rig) NewCeiling(kinds []PageKind) (*Ceiling, error) {
	c := &Ceiling{pages: map[string]staticPage{}}
	for _, k := range kinds {
		for _, p := range k.Paths {
			if _, ok := c.pages[p]; ok {
				continue
			}
			code, body := r.Get(p)
			if code != http.StatusOK {
				return nil, fmt.Errorf("perf: %s: GET %s: status %d: %.200s", k.Name, p, code, body)
			}
			c.pages[p] = staticPage{contentType: "application/json; charset=utf-8", body: slices.Clone(body)}
		}
	}
	return c, nil
}

// ServeHTTP sends the kept bytes of the request's path and query.
func (c *Ceiling) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p, ok := c.pages[req.URL.RequestURI()]
	if !ok {
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", p.contentType)
	w.Write(p.body) //nolint:errcheck // the client went away
}

// loadGrace bounds the wait for the requests in flight when a run's time
// is up.
const loadGrace = 30 * time.Second

// RunStats are one measured run of a page kind against one server.
type RunStats struct {
	Requests     int
	PerSecond    float64
	P50, P99     time.Duration
	AllocsPerReq float64 // the whole process's allocations (server and load generator) per request
	BytesPerReq  float64
	// CPUPerReq is the whole process's processor time (servers and load
	// generator) per request; Busy that time as a share of every core's
	// time: near 1, the run was bound by processor time.
	CPUPerReq     time.Duration
	Busy          float64
	ResponseBytes int64 // body bytes received, per request
}

// Load drives base+paths with cfg.Connections kept-alive connections for
// cfg.Duration after cfg.Warmup, each connection taking the paths in turn
// from its own offset, sending key as a bearer token when it is set. Any
// answer but 200 stops the run with an error. A request in flight when the
// time is up is waited for (up to loadGrace) and counted: a slow page is a
// figure, not a page left out.
func Load(ctx context.Context, base, key string, paths []string, cfg HTTPConfig) (RunStats, error) {
	cfg.defaults()
	tr := &http.Transport{MaxIdleConnsPerHost: cfg.Connections, MaxConnsPerHost: cfg.Connections, DisableCompression: true}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr}
	var (
		measuring atomic.Bool
		failed    atomic.Pointer[error]
		wg        sync.WaitGroup
	)
	lats := make([][]time.Duration, cfg.Connections)
	bytesIn := make([]int64, cfg.Connections)
	ctx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Duration+loadGrace)
	defer cancel()
	end := time.Now().Add(cfg.Warmup + cfg.Duration) // no request starts after it
	one := func(i, n int) (time.Duration, int64, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+paths[(i*7+n)%len(paths)], nil)
		if err != nil {
			return 0, 0, err
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		start := time.Now()
		resp, err := cl.Do(req)
		if err != nil {
			return 0, 0, err
		}
		nb, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return 0, 0, err
		}
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("GET %s: status %d", req.URL.RequestURI(), resp.StatusCode)
		}
		return time.Since(start), nb, nil
	}
	for i := range cfg.Connections {
		wg.Go(func() {
			for n := 0; time.Now().Before(end) && ctx.Err() == nil; n++ {
				d, nb, err := one(i, n)
				if err != nil {
					if ctx.Err() == nil {
						failed.CompareAndSwap(nil, &err)
						cancel()
					}
					return
				}
				if measuring.Load() {
					lats[i] = append(lats[i], d)
					bytesIn[i] += nb
				}
			}
		})
	}
	select {
	case <-time.After(cfg.Warmup):
	case <-ctx.Done():
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	measuring.Store(true)
	start, cpu := time.Now(), processCPU()
	wg.Wait()
	elapsed, used := time.Since(start), processCPU()-cpu
	runtime.ReadMemStats(&after)
	if err := failed.Load(); err != nil {
		return RunStats{}, *err
	}
	var all []time.Duration
	var total int64
	for i := range lats {
		all = append(all, lats[i]...)
		total += bytesIn[i]
	}
	if len(all) == 0 {
		return RunStats{}, errors.New("perf: no request finished in the measured time")
	}
	slices.Sort(all)
	n := float64(len(all))
	return RunStats{Requests: len(all), PerSecond: n / elapsed.Seconds(), P50: quantile(all, 0.5), P99: quantile(all, 0.99),
		AllocsPerReq: float64(after.Mallocs-before.Mallocs) / n, BytesPerReq: float64(after.TotalAlloc-before.TotalAlloc) / n,
		ResponseBytes: total / int64(len(all)), CPUPerReq: time.Duration(float64(used) / n),
		Busy: used.Seconds() / elapsed.Seconds() / float64(runtime.NumCPU())}, nil
}

// Comparison is one page kind served by roost and by the ceiling, over
// the same connections, alternating.
type Comparison struct {
	Kind           string
	Roost, Ceiling RunStats // the best run of each
}

// Ratio is roost's requests per second as a share of the ceiling's.
func (c Comparison) Ratio() float64 { return c.Roost.PerSecond / c.Ceiling.PerSecond }

// CompareHTTP serves the rig's handler and a ceiling of the same bytes on
// loopback ports and drives both, alternating, for every page kind.
func (r *Rig) CompareHTTP(ctx context.Context, cfg HTTPConfig, progress io.Writer) ([]Comparison, error) {
	cfg.defaults()
	kinds, err := r.kinds(ctx, cfg)
	if err != nil {
		return nil, err
	}
	ceiling, err := r.NewCeiling(kinds)
	if err != nil {
		return nil, err
	}
	roostURL, stopRoost, err := listen(r.Handler)
	if err != nil {
		return nil, err
	}
	defer stopRoost()
	ceilingURL, stopCeiling, err := listen(ceiling)
	if err != nil {
		return nil, err
	}
	defer stopCeiling()
	roost := server{"roost", roostURL, r.key}
	if err := settle(ctx, cfg, kinds, roost); err != nil {
		return nil, err
	}
	runs, err := alternate(ctx, cfg, kinds, [2]server{roost, {"ceiling", ceilingURL, ""}}, progress)
	if err != nil {
		return nil, err
	}
	out := make([]Comparison, len(runs))
	for i, c := range runs {
		out[i] = Comparison{Kind: c.Kind, Roost: c.A, Ceiling: c.B}
	}
	return out, nil
}

// kinds are the page kinds cfg measures on the rig's data.
func (r *Rig) kinds(ctx context.Context, cfg HTTPConfig) ([]PageKind, error) {
	kinds, err := r.PageKinds(ctx, cfg.Paths, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return onlyKinds(kinds, cfg.Kinds)
}

// server is one server a comparison drives: its name in the progress
// lines, its base URL and the key its requests carry (none: "").
type server struct {
	name, url, key string
}

// settle drives each server with the first kind's pages for cfg.Settle
// before anything is measured.
func settle(ctx context.Context, cfg HTTPConfig, kinds []PageKind, servers ...server) error {
	if len(kinds) == 0 || cfg.Settle <= 0 {
		return nil
	}
	s := cfg
	s.Warmup, s.Duration = -1, cfg.Settle
	for _, srv := range servers {
		if _, err := Load(ctx, srv.url, srv.key, kinds[0].Paths, s); err != nil {
			return fmt.Errorf("perf: settling %s: %w", srv.name, err)
		}
	}
	return nil
}

// alternate drives the two servers in turn over each kind's paths,
// cfg.Rounds runs of each, the first server first on even rounds, and
// keeps the best run of each.
func alternate(ctx context.Context, cfg HTTPConfig, kinds []PageKind, servers [2]server, progress io.Writer) ([]PairComparison, error) {
	var out []PairComparison
	for _, k := range kinds {
		c := PairComparison{Kind: k.Name}
		best := [2]*RunStats{&c.A, &c.B}
		for round := range cfg.Rounds {
			order := []int{0, 1}
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, i := range order {
				st, err := Load(ctx, servers[i].url, servers[i].key, k.Paths, cfg)
				if err != nil {
					return nil, fmt.Errorf("perf: %s: %s: %w", k.Name, servers[i].name, err)
				}
				if progress != nil {
					fmt.Fprintf(progress, "  %-14s %-7s round %d: %.0f requests/s\n", k.Name, servers[i].name, round+1, st.PerSecond)
				}
				if st.PerSecond > best[i].PerSecond {
					*best[i] = st
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// onlyKinds keeps the kinds named in names (all when names is empty); an
// unknown name is an error naming the known ones.
func onlyKinds(kinds []PageKind, names []string) ([]PageKind, error) {
	if len(names) == 0 {
		return kinds, nil
	}
	var out []PageKind
	for _, n := range names {
		i := slices.IndexFunc(kinds, func(k PageKind) bool { return k.Name == n })
		if i < 0 {
			known := make([]string, len(kinds))
			for j, k := range kinds {
				known[j] = k.Name
			}
			return nil, fmt.Errorf("perf: no page kind %q (this database has: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, kinds[i])
	}
	return out, nil
}

// listen serves h on a free loopback port.
func listen(h http.Handler) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("perf: listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l) //nolint:errcheck // ends with Close
	return "http://" + l.Addr().String(), func() { srv.Close() }, nil
}

// ReportHTTP writes the comparison as a table: requests per second of
// roost and of the ceiling, their ratio, latencies and allocations.
func ReportHTTP(w io.Writer, cs []Comparison) {
	fmt.Fprintf(w, "%-14s %9s %10s %7s %9s %9s %9s %9s %11s %11s %9s %9s %10s\n", "page", "roost/s", "ceiling/s", "ratio",
		"roost p50", "roost p99", "ceil p50", "ceil p99", "allocs/req", "bytes/page", "roost cpu", "ceil cpu", "busy")
	for _, c := range cs {
		fmt.Fprintf(w, "%-14s %9.0f %10.0f %6.1f%% %9s %9s %9s %9s %11.0f %11d %9s %9s %4.0f%%/%3.0f%%\n", c.Kind, c.Roost.PerSecond,
			c.Ceiling.PerSecond, 100*c.Ratio(), round(c.Roost.P50), round(c.Roost.P99), round(c.Ceiling.P50),
			round(c.Ceiling.P99), c.Roost.AllocsPerReq-c.Ceiling.AllocsPerReq, c.Roost.ResponseBytes,
			c.Roost.CPUPerReq.Round(100*time.Nanosecond), c.Ceiling.CPUPerReq.Round(100*time.Nanosecond), 100*c.Roost.Busy, 100*c.Ceiling.Busy)
	}
	fmt.Fprintln(w, "allocs/req: roost's allocations per page beyond the ceiling's (the load generator's cancel out)")
	fmt.Fprintln(w, "cpu: the process's processor time per request, servers and load generator (roost's beyond the ceiling's is what its page costs);")
	fmt.Fprintln(w, "busy: that time as a share of all cores' time, roost's run / the ceiling's (near 100%: bound by the processors)")
}
