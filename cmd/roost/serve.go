package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/server"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/world/fixture"
	"github.com/roostapi/roost/internal/world/gen"
	"github.com/roostapi/roost/internal/world/live"
)

// maxSearchTimeout leaves a stopped search time to be answered within the
// server's write timeout (60 s).
const maxSearchTimeout = 50 * time.Second

// serveConfig is what `roost serve` runs with (see settingSources for
// where each value may come from).
type serveConfig struct {
	db             string
	dbRead         urlList
	maxReplicaLag  time.Duration
	addr           string
	adminAddr      string
	adminTokenFile string
	price          usdFlag
	rate           int
	demo           bool
	searchTimeout  time.Duration
	origins        listValue
	logFormat      string
	accessLog      bool
	maxConcurrent  int
	maxPerKey      int
	pageCacheMiB   int
	config         string
	printConfig    bool
	live           string
	liveEvery      time.Duration
	fixtures       listValue
	printReady     bool
	gw             *gatewayFlags
	hooks          webhookFlags
}

// webhookFlags tune the monitors' webhook deliveries.
type webhookFlags struct {
	private  bool
	workers  int
	timeout  time.Duration
	attempts int
	backoff  time.Duration
}

// listValue is a repeatable, comma-separated flag value.
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }
func (l *listValue) isList()        {}
func (l *listValue) Set(v string) error {
	for _, o := range strings.Split(v, ",") {
		if o = strings.TrimSpace(o); o != "" {
			*l = append(*l, o)
		}
	}
	return nil
}

// urlList is a repeatable list of database URLs: commas separate URLs
// where a new one begins (postgres:// or postgresql://), so the commas of
// a multi-host URL (postgres://h1,h2/db) stay in it.
type urlList []string

func (l *urlList) String() string { return strings.Join(*l, ",") }
func (l *urlList) isList()        {}
func (l *urlList) Set(v string) error {
	for _, u := range splitURLs(v) {
		if u = strings.TrimSpace(u); u != "" {
			*l = append(*l, u)
		}
	}
	return nil
}

// splitURLs splits v at the commas followed by a postgres:// or
// postgresql:// scheme.
func splitURLs(v string) []string {
	var out []string
	start := 0
	for i := 0; i < len(v); i++ {
		if v[i] != ',' {
			continue
		}
		rest := strings.TrimSpace(v[i+1:])
		if strings.HasPrefix(rest, "postgres://") || strings.HasPrefix(rest, "postgresql://") {
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// serveFlags defines the flags of serve over c.
func serveFlags(e *env, c *serveConfig) *flag.FlagSet {
	fs := newFlags(e, "serve", "serve [--db PATH|URL] [--addr HOST:PORT] [flags]")
	fs.StringVar(&c.db, "db", defaultDB, "database: SQLite file path or postgres:// URL")
	tuningFlag(fs, e)
	fs.Var(&c.dbRead, "db-read", "postgres:// URL of a streaming standby of --db for the data endpoints' reads (repeatable; several hosts with target_session_attrs=prefer-standby follow a failover)")
	fs.DurationVar(&c.maxReplicaLag, "max-replica-lag", postgres.DefaultMaxReplicaLag,
		"a standby further behind the primary is skipped until it catches up")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	fs.StringVar(&c.adminAddr, "admin-addr", "127.0.0.1:8081",
		"address of the admin API, on its own listener (on when an admin token is set)")
	fs.StringVar(&c.adminTokenFile, "admin-token-file", "",
		"file holding the admin API's token (or set ROOST_ADMIN_TOKEN); at least 16 characters")
	c.price = usdFlag{micros: billing.DefaultPrice, set: true}
	fs.Var(&c.price, "price", "price of one returned item in US dollars")
	fs.IntVar(&c.rate, "rate-limit", httpapi.DefaultRateLimit, "default requests per minute per key (a key's own limit wins)")
	fs.BoolVar(&c.demo, "demo", true, "fill an empty database with the demo network and create a demo key (with --upstream: only the key, in a database without keys)")
	fs.DurationVar(&c.searchTimeout, "search-timeout", httpapi.DefaultSearchTimeout,
		"longest work for one search page; a slower one is answered 422 Query too expensive (at most "+maxSearchTimeout.String()+")")
	fs.Var(&c.origins, "cors-origins", "comma-separated origins whose browser clients may call the API (* for any; default none)")
	fs.StringVar(&c.logFormat, "log-format", "text", "log format on stderr: text or json")
	fs.BoolVar(&c.accessLog, "access-log", false, "log one line per API request on stderr (default: on, but off with "+
		"--log-format text on a terminal, where the lines would push the demo key and start-up messages away)")
	fs.IntVar(&c.maxConcurrent, "max-concurrent", httpapi.DefaultMaxConcurrent,
		"requests served at once; beyond it 503 with Retry-After (health, readiness and metrics excepted; a request body still arriving takes no slot)")
	fs.IntVar(&c.maxPerKey, "max-concurrent-per-key", 0,
		"requests one key may have under way at once, bodies still arriving included; beyond it 429 with Retry-After (0: a quarter of --max-concurrent)")
	fs.IntVar(&c.pageCacheMiB, "page-cache", httpapi.DefaultPageCacheBytes>>20,
		"MiB of rendered paid pages kept for repeated requests (0: none); any data write empties it, so no page is older "+
			"than the data (not with --upstream, which has its own cache, nor with --db-read replicas, whose lag would outlive it)")
	fs.BoolVar(&c.hooks.private, "webhook-private", false, "let webhooks reach loopback, private and link-local addresses "+
		"(a local twin); off, such targets are refused at registration and at every connection (default: on when --addr is "+
		"a loopback address, 127.0.0.0/8, ::1 or localhost; off otherwise)")
	fs.IntVar(&c.hooks.workers, "webhook-workers", monitor.DefaultWorkers, "webhook deliveries at once (a slow receiver holds one)")
	fs.DurationVar(&c.hooks.timeout, "webhook-timeout", monitor.DefaultTimeout, "time limit of one webhook delivery")
	fs.IntVar(&c.hooks.attempts, "webhook-attempts", monitor.DefaultMaxAttempts,
		"attempts of an event before it is dead (retried on 5xx, 408, 429, timeouts and connection errors)")
	fs.DurationVar(&c.hooks.backoff, "webhook-backoff", monitor.DefaultBackoff,
		"wait after a failed delivery, doubled per failure up to 10m, with jitter")
	fs.StringVar(&c.config, "config", "", "YAML file of settings named as these flags (or ROOST_CONFIG)")
	fs.BoolVar(&c.printConfig, "print-config", false, "print the effective settings (secrets masked) and exit")
	fs.Var(&c.fixtures, "fixtures", "fill an empty database with these fixture files (comma-separated or repeated; "+
		"docs/testing.md) instead of the demo network, and make the demo key (unless --demo=false)")
	fs.BoolVar(&c.printReady, "print-ready", false, "once listening, print one line of JSON on stdout, "+
		"{\"url\", \"admin_url\", \"key\", \"admin_token\"}, and nothing else on stdout (the demo key's block goes to stderr): "+
		"for a test harness that starts roost on port 0 (docs/testing.md)")
	fs.StringVar(&c.live, "live", "", "keep the network moving while serving: at most RATE events (N/s, N/m or N/h, e.g. 5/s; default off; see roost live --help)")
	c.gw = addGatewayFlags(fs)
	usage := fs.Usage
	fs.Usage = func() { usage(); fmt.Fprint(e.stdout, sandboxNote) }
	return fs
}

// sandboxNote ends serve's help: the faults a client under test can ask
// for.
const sandboxNote = `
Sandbox: for client code under test, the X-Roost-Fault request header, or a
key's stored fault plan ('roost keys fault', PUT /admin/keys/{id}/fault),
makes roost fail a share of that key's requests, e.g.
  X-Roost-Fault: 429=0.1,500=0.05,delay=200ms,seed=7,latest_cursor_pages=5
429s carry Retry-After, 500s are "Failed to fetch data from Twitter", and a
Latest search gives no cursor from its 5th page on (continue with max_id:).
Injected failures are never charged; roost_injected_faults_total counts them.
'roost keys --help' describes every item.
`

// loadServe reads serve's settings from args, the environment and the
// config file, and checks them; an error names the setting.
func loadServe(e *env, args []string) (*serveConfig, *flag.FlagSet, map[string]string, error) {
	c := &serveConfig{}
	fs := serveFlags(e, c)
	if err := parse(fs, args, false); err != nil {
		return nil, nil, nil, err
	}
	src, err := settingSources(fs, e.lookupEnv, configFileOf(fs, e.lookupEnv), "config", "print-config")
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case c.searchTimeout <= 0 || c.searchTimeout > maxSearchTimeout:
		return nil, nil, nil, usageError("--search-timeout must be more than 0 and at most %v", maxSearchTimeout)
	case c.price.micros <= 0:
		return nil, nil, nil, usageError("--price must be more than 0")
	case c.rate <= 0:
		return nil, nil, nil, usageError("--rate-limit must be more than 0")
	case c.maxConcurrent <= 0:
		return nil, nil, nil, usageError("--max-concurrent must be more than 0")
	case c.maxPerKey < 0:
		return nil, nil, nil, usageError("--max-concurrent-per-key must be 0 (a quarter of --max-concurrent) or more")
	case c.pageCacheMiB < 0:
		return nil, nil, nil, usageError("--page-cache must be 0 (none) or more MiB")
	case c.logFormat != "text" && c.logFormat != "json":
		return nil, nil, nil, usageError("--log-format must be text or json, not %q", c.logFormat)
	case c.db == "":
		return nil, nil, nil, usageError("--db must not be empty")
	case c.hooks.workers <= 0 || c.hooks.attempts <= 0 || c.hooks.timeout <= 0 || c.hooks.backoff <= 0:
		return nil, nil, nil, usageError("--webhook-workers, --webhook-attempts, --webhook-timeout and --webhook-backoff must be more than 0")
	case len(c.dbRead) > 0 && !isPostgres(c.db):
		return nil, nil, nil, usageError("--db-read needs a postgres:// --db (a SQLite file has no standbys)")
	case c.maxReplicaLag <= 0:
		return nil, nil, nil, usageError("--max-replica-lag must be more than 0")
	}
	if c.live != "" {
		if c.liveEvery, err = live.ParseRate(c.live); err != nil {
			return nil, nil, nil, usageError("--live: %v", err)
		}
		if *c.gw.url != "" {
			return nil, nil, nil, usageError("--live moves the local network, but with --upstream the data endpoints answer from upstream: use one or the other")
		}
	}
	if err := c.gw.validate(); err != nil {
		return nil, nil, nil, err
	}
	if len(c.fixtures) > 0 && *c.gw.url != "" {
		return nil, nil, nil, usageError("--fixtures fills the local database, but with --upstream the data endpoints answer from upstream: use one or the other")
	}
	for _, u := range c.dbRead {
		if !isPostgres(u) {
			return nil, nil, nil, usageError("--db-read %q is not a postgres:// URL", maskURLs(u))
		}
	}
	// Defaults that depend on other settings; a value set anywhere wins.
	if src["webhook-private"] == "default" {
		c.hooks.private = loopback(c.addr)
		src["webhook-private"] = "default: --addr is not a loopback address"
		if c.hooks.private {
			src["webhook-private"] = "default: --addr is a loopback address"
		}
	}
	if src["access-log"] == "default" {
		c.accessLog = c.logFormat == "json" || !isTerminal(e.stderr)
		src["access-log"] = "default: stderr is not a terminal, or the log is JSON"
		if !c.accessLog {
			src["access-log"] = "default: text log on a terminal"
		}
	}
	return c, fs, src, nil
}

// loopback reports whether addr's host is a loopback address (127.0.0.0/8,
// ::1) or localhost: a server no other machine reaches.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// roostCommand is how the person who started the binary at exe runs
// roost: "go run ./cmd/roost" when go run built it (in a temporary go-build
// directory), else "roost".
func roostCommand(exe string) string {
	if strings.Contains(exe, "go-build") {
		return "go run ./cmd/roost"
	}
	return "roost"
}

// self is the path of the running binary.
func self() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}

// keyHint tells how to make a key for db, in the words cmd runs roost
// with.
func keyHint(cmd, db string) string {
	return "This database already holds data, so no demo key was made. Make a key with:\n\n" +
		"  " + cmd + " keys create --db " + db + " --credits 10\n\n"
}

// quietAccess drops the API's access lines (httpapi.AccessLogMessage) and
// passes every other record on.
type quietAccess struct{ slog.Handler }

func (h quietAccess) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == httpapi.AccessLogMessage {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietAccess) WithAttrs(as []slog.Attr) slog.Handler {
	return quietAccess{h.Handler.WithAttrs(as)}
}

func (h quietAccess) WithGroup(name string) slog.Handler {
	return quietAccess{h.Handler.WithGroup(name)}
}

// minAdminToken is the shortest admin token accepted.
const minAdminToken = 16

// adminToken is the admin API's token from ROOST_ADMIN_TOKEN or
// --admin-token-file, and where it came from; "" when neither is set.
func adminToken(c *serveConfig, lookup func(string) (string, bool)) (string, string, error) {
	token, from := "", ""
	if v, ok := lookup("ROOST_ADMIN_TOKEN"); ok && v != "" {
		token, from = v, "environment variable ROOST_ADMIN_TOKEN"
	} else if c.adminTokenFile != "" {
		b, err := os.ReadFile(c.adminTokenFile)
		if err != nil {
			return "", "", usageError("--admin-token-file: %v", err)
		}
		token, from = strings.TrimSpace(string(b)), "file "+c.adminTokenFile
	}
	if token != "" && len(token) < minAdminToken {
		return "", "", usageError("the admin token (from %s) must be at least %d characters", from, minAdminToken)
	}
	return token, from, nil
}

func cmdServe(ctx context.Context, e *env, args []string) error {
	c, fs, src, err := loadServe(e, args)
	if err != nil {
		return err
	}
	token, tokenFrom, err := adminToken(c, e.lookupEnv)
	if err != nil {
		return err
	}
	if c.printConfig {
		extra := map[string]string{"admin-token": "not set: the admin API is off"}
		if token != "" {
			extra["admin-token"] = "xxxxx (from " + tokenFrom + ")"
		}
		printConfig(e.stdout, fs, src, extra)
		return nil
	}
	// Fixtures are read before anything starts: a bad one stops serve.
	var fixtures []fixture.File
	if len(c.fixtures) > 0 {
		if fixtures, err = fixture.ReadFiles(c.fixtures, fixture.DefaultNow); err != nil {
			return err
		}
	}
	if c.logFormat == "json" {
		e.log = slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	if !c.accessLog {
		e.log = slog.New(quietAccess{e.log.Handler()})
	}
	// Listen first: a bad or busy address fails before the database is
	// created or any demo data generated.
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen on --addr: %w", err)
	}
	defer ln.Close()
	var adminLn net.Listener
	if token != "" {
		if adminLn, err = net.Listen("tcp", c.adminAddr); err != nil {
			return fmt.Errorf("listen on --admin-addr: %w", err)
		}
		defer adminLn.Close()
	}
	s, err := openStoreOptions(ctx, e, c.db, postgres.Options{ReadReplicas: c.dbRead, MaxReplicaLag: c.maxReplicaLag})
	if err != nil {
		return err
	}
	defer s.Close()
	reg := prometheus.NewRegistry()
	upstream, err := c.gw.build(s, e, reg)
	if err != nil {
		return err
	}
	if upstream != nil {
		// Reservations a crash left and pages past --cache-max-age.
		if err := upstream.Maintain(ctx); err != nil {
			return err
		}
	}
	var demoKey string
	var examples *gen.Examples
	switch {
	case fixtures != nil:
		demoKey, examples, err = fillFixtures(ctx, e, s, c.db, fixtures, c.demo)
	case c.demo && upstream != nil:
		demoKey, err = demoKeyOnly(ctx, s)
	case c.demo:
		demoKey, examples, err = fillDemo(ctx, e, s)
	}
	if err != nil {
		return err
	}
	if c.live != "" {
		lw, err := openLive(ctx, e, s)
		if err != nil {
			return fmt.Errorf("--live: %w", err)
		}
		liveCtx, stopLive := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); lw.Run(liveCtx, c.liveEvery) }()
		defer func() { stopLive(); <-done }()
		fmt.Fprintf(e.stderr, "living world on: at most %s events\n", c.live)
	}
	cfg := httpapi.Config{Price: c.price.micros, RateLimit: c.rate, SearchTimeout: c.searchTimeout,
		CORSOrigins: c.origins, MaxConcurrent: c.maxConcurrent, MaxPerKey: c.maxPerKey, Version: version(), Registry: reg,
		PageCacheBytes: int64(c.pageCacheMiB) << 20}
	if c.pageCacheMiB == 0 {
		cfg.PageCacheBytes = -1
	}
	if upstream != nil {
		cfg.Upstream = upstream
		fmt.Fprintln(e.stderr, c.gw.describe())
	}
	srv := server.New(s, server.Config{API: cfg, AdminToken: token, Webhooks: monitor.Options{AllowPrivate: c.hooks.private,
		Workers: c.hooks.workers, Timeout: c.hooks.timeout, MaxAttempts: c.hooks.attempts, Backoff: c.hooks.backoff}}, e.log)
	if adminLn != nil {
		fmt.Fprintf(e.stderr, "roost admin API on http://%s (token from %s)\n", adminLn.Addr(), tokenFrom)
	} else {
		fmt.Fprintln(e.stderr, "roost admin API off: set ROOST_ADMIN_TOKEN or --admin-token-file to serve it on --admin-addr")
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(e.stderr, "roost serving %s on %s (API description: %s/docs, search page: %s/ui)\n", c.db, base, base, base)
	if !c.accessLog {
		fmt.Fprintln(e.stderr, "access log off: --access-log writes a line per API request")
	}
	cmd := roostCommand(self())
	out := e.stdout
	if c.printReady {
		// stdout carries the ready line alone.
		out = e.stderr
	}
	if demoKey != "" {
		printDemo(out, base, demoKey, examples, cmd)
	} else if c.demo {
		fmt.Fprint(out, keyHint(cmd, c.db))
	}
	if c.printReady {
		r := readyLine{URL: base, Key: demoKey}
		if adminLn != nil {
			r.AdminURL, r.AdminToken = "http://"+adminLn.Addr().String(), token
		}
		if err := json.NewEncoder(e.stdout).Encode(r); err != nil {
			return fmt.Errorf("--print-ready: %w", err)
		}
	}
	if err := srv.Run(ctx, ln, adminLn); err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, "roost stopped")
	return nil
}

// readyLine is what --print-ready prints: where the API and the admin
// API listen ("" when off) and the demo key and admin token ("" when
// none).
type readyLine struct {
	URL        string `json:"url"`
	AdminURL   string `json:"admin_url"`
	Key        string `json:"key"`
	AdminToken string `json:"admin_token"`
}

// demoKeyOnly makes the demo key of a database without keys, in gateway
// mode (where the data comes from upstream, never from gen).
func demoKeyOnly(ctx context.Context, s social.Store) (string, error) {
	counts, err := s.Counts(ctx)
	if err != nil || counts["api_keys"] > 0 {
		return "", err
	}
	return server.DemoKey(ctx, s)
}

// fillDemo fills a database that holds nothing at all (no users, posts or
// keys) with the demo network and a demo key. A database that holds
// anything is left as it is, and no key is made.
func fillDemo(ctx context.Context, e *env, s store) (string, *gen.Examples, error) {
	if empty, err := server.Empty(ctx, s); err != nil || !empty {
		return "", nil, err
	}
	fmt.Fprintln(e.stderr, "empty database: generating the demo network (roost gen defaults)")
	sum, err := generate(ctx, e, s, gen.DefaultConfig())
	if err != nil {
		return "", nil, err
	}
	key, err := server.DemoKey(ctx, s)
	if err != nil {
		return "", nil, err
	}
	return key, &sum.Examples, nil
}

// fillFixtures writes fixtures into a database that holds nothing at
// all (no users, posts or keys), and makes the demo key unless key is
// false; a database that holds anything is refused.
func fillFixtures(ctx context.Context, e *env, s store, db string, files []fixture.File, key bool) (string, *gen.Examples, error) {
	empty, err := server.Empty(ctx, s)
	if err != nil {
		return "", nil, err
	}
	if !empty {
		return "", nil, fmt.Errorf("--fixtures fills an empty database, and %s holds data already: serve a new one, "+
			"or add the fixtures to it with roost seed", maskURLs(db))
	}
	_, b, err := fixture.Seed(ctx, s.World(), s, files)
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintln(e.stderr, seeded(b))
	if !key {
		return "", nil, nil
	}
	k, err := server.DemoKey(ctx, s)
	return k, fixtureExamples(b), err
}

// printDemo shows the demo key and ready curl lines on stdout, framed so
// that they stand out from the log lines on stderr; cmd is how roost is
// run (roostCommand).
func printDemo(w io.Writer, base, key string, ex *gen.Examples, cmd string) {
	rule := strings.Repeat("=", 78)
	fmt.Fprintf(w, "\n%s\n Demo API key (shown once, %s USD of credit):\n\n   export KEY=%s\n\n Try:\n\n",
		rule, billing.FormatUSD(server.DemoCredit), key)
	line := func(path string, note ...string) {
		fmt.Fprintf(w, "   curl -H \"Authorization: Bearer $KEY\" '%s%s'", base, path)
		for _, n := range note {
			fmt.Fprintf(w, "   # %s", n)
		}
		fmt.Fprintln(w)
	}
	defer func() {
		fmt.Fprintf(w, "\n Every endpoint: %s/docs   More keys: %s keys create --credits USD\n%s\n\n", base, cmd, rule)
	}()
	line("/user/balance")
	if ex == nil {
		return
	}
	if ex.Username != "" {
		line("/social/search?query=from:" + ex.Username)
		line("/social/user/" + ex.Username + "/mentions")
	}
	id := func(v int64) string { return fmt.Sprint(v) }
	if ex.UserID != 0 {
		line("/social/user/" + id(ex.UserID) + "/tweets")
		line("/twitter/user/" + id(ex.UserID) + "/following")
	}
	if ex.ListsUserID != 0 {
		line("/social/user/" + id(ex.ListsUserID) + "/lists")
	}
	if ex.ThreadID != 0 {
		line("/social/thread/" + id(ex.ThreadID))
	}
	if ex.PostID != 0 {
		line("/social/tweets/" + id(ex.PostID) + "/retweeted_by")
	}
	if ex.CommunityID != 0 {
		line("/social/community/" + id(ex.CommunityID) + "/tweets?type=Top")
	}
	if ex.ListID != 0 {
		line("/social/list/" + id(ex.ListID) + "/members")
	}
	if ex.OrganizationUserID != 0 {
		line("/social/user/" + id(ex.OrganizationUserID) + "/affiliates")
	}
	if ex.ProtectedUserID != 0 {
		line("/social/user/"+id(ex.ProtectedUserID)+"/tweets", "403: a protected profile")
	}
	if ex.ShadowBannedUsername != "" {
		line("/social/search?query=from:"+ex.ShadowBannedUsername, "shadow-banned: no results")
	}
	if ex.PostID != 0 {
		fmt.Fprintf(w, "   curl -H \"Authorization: Bearer $KEY\" -H 'Content-Type: application/json' -d '{\"ids\":[\"%d\"]}' '%s/social/tweets-by-ids'\n", ex.PostID, base)
	}
}
