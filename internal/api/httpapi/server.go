package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// DefaultRateLimit is the requests per minute a key may make unless its
// own limit says otherwise.
const DefaultRateLimit = 120

// DefaultSearchTimeout is how long one search page may take before it is
// answered with 422 Query too expensive.
const DefaultSearchTimeout = 30 * time.Second

// Config tunes the API. The zero value is ready to use.
type Config struct {
	// Price is micro-USD per returned item; 0 means billing.DefaultPrice.
	Price int64
	// RateLimit is the default requests per minute per key (a key's own
	// RateLimit overrides it); 0 means DefaultRateLimit, negative means
	// no limit.
	RateLimit int
	// Now is the clock (search operators relative to now); nil: time.Now.
	Now func() time.Time
	// Registry receives the metrics served at /metrics; nil: a private
	// registry of this handler. Never the global default registry.
	Registry *prometheus.Registry
	// SearchTimeout bounds the work of one search page (see
	// DefaultSearchTimeout, the value of 0).
	SearchTimeout time.Duration
	// CORSOrigins are the origins whose browser clients may call the API
	// ("*": any); none by default.
	CORSOrigins []string
	// Upstream, when set, answers every data route (gateway mode).
	Upstream Upstream
	// Version names the build in the OpenAPI document.
	Version string
	// MaxConcurrent caps the requests served at once; one beyond it is
	// answered 503 with Retry-After at once (0: DefaultMaxConcurrent,
	// negative: no cap). Health, readiness and metrics are not counted,
	// nor is a request while its body arrives.
	MaxConcurrent int
	// MaxPerKey caps the requests one key has under way at once, its body
	// arriving included; one beyond it is answered 429 with Retry-After at
	// once (0: a quarter of MaxConcurrent, none when that is 0; negative:
	// no cap).
	MaxPerKey int
	// Sleep waits out a delay a fault plan adds, or until ctx is done
	// (nil: a timer; tests count the delays instead).
	Sleep func(ctx context.Context, d time.Duration) error
	// Monitors runs the monitoring endpoints (built and run by the
	// caller over the store's monitor.Store); nil: they answer 503.
	Monitors *monitor.Service
	// PageCacheBytes bounds the cache of rendered pages (0:
	// DefaultPageCacheBytes, negative: none). Pages are kept by request
	// for the store's content version, which every data write moves
	// (social.Versioned); a store without versions caches nothing, nor
	// does gateway mode (its own cache serves there).
	PageCacheBytes int64
}

// DefaultMaxConcurrent is the cap on requests served at once.
const DefaultMaxConcurrent = 256

// server is the handler New returns.
type server struct {
	store     social.Store
	limiter   billing.Limiter
	biller    billing.Biller
	log       *slog.Logger
	now       func() time.Time
	rateLimit int
	// searchTimeout bounds one search page (Config.SearchTimeout).
	searchTimeout time.Duration
	metrics       *metrics
	cors          cors
	mux           *http.ServeMux
	buffers       bufferPool
	upstream      Upstream
	// slots holds a token per request being served (Config.MaxConcurrent);
	// nil: no cap.
	slots chan struct{}
	// holds counts each key's requests under way (Config.MaxPerKey).
	holds *keyHolds
	// dice decide the sandbox's injected failures per key; sleep waits
	// out its delays (Config.Sleep).
	dice  *fault.Dice
	sleep func(ctx context.Context, d time.Duration) error
	// mon keeps the monitors (nil: the monitoring endpoints answer 503).
	mon *monitor.Service
	// versioned is the store's change counters (nil: the store keeps
	// none, and neither keys nor pages are cached); keys and pages are
	// kept for the versions they were read under (cache.go).
	versioned *versionReader
	keys      *keyCache
	pages     *pageCache
}

// New returns the API handler over store. A nil limiter is an in-memory
// one (one replica); a nil log discards.
func New(cfg Config, store social.Store, limiter billing.Limiter, log *slog.Logger) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = DefaultRateLimit
	}
	if cfg.SearchTimeout <= 0 {
		cfg.SearchTimeout = DefaultSearchTimeout
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if limiter == nil {
		limiter = billing.NewMemoryLimiter(0, cfg.Now)
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepCtx
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{
		store:         store,
		limiter:       limiter,
		biller:        billing.Biller{Accounts: store, Price: cfg.Price},
		log:           log,
		now:           cfg.Now,
		rateLimit:     cfg.RateLimit,
		searchTimeout: cfg.SearchTimeout,
		metrics:       newMetrics(cfg.Registry),
		cors:          cors(cfg.CORSOrigins),
		mux:           http.NewServeMux(),
		upstream:      cfg.Upstream,
		dice:          fault.NewDice(),
		sleep:         cfg.Sleep,
		mon:           cfg.Monitors,
	}
	if v, ok := store.(social.Versioned); ok {
		s.versioned, s.keys = &versionReader{read: v.Versions}, newKeyCache()
		if cfg.PageCacheBytes == 0 {
			cfg.PageCacheBytes = DefaultPageCacheBytes
		}
		if cfg.Upstream == nil {
			s.pages = newPageCache(cfg.PageCacheBytes)
		}
	}
	registerReads(cfg.Registry, store)
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent
	}
	if cfg.MaxConcurrent > 0 {
		s.slots = make(chan struct{}, cfg.MaxConcurrent)
	}
	if cfg.MaxPerKey == 0 {
		cfg.MaxPerKey = cfg.MaxConcurrent / 4
		if cfg.MaxPerKey <= 0 {
			cfg.MaxPerKey = -1
		}
	}
	s.holds = newKeyHolds(cfg.MaxPerKey)
	// Registered for every method: the endpoint answers a wrong one (HEAD
	// too) 405 with its own Allow. A path of several routes (a monitor's
	// GET, PATCH and DELETE) picks its route by method.
	byPath := map[string][]*route{}
	var paths []string
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			_, path, _ := strings.Cut(p, " ")
			if byPath[path] == nil {
				paths = append(paths, path)
			}
			byPath[path] = append(byPath[path], rt)
		}
	}
	for _, path := range paths {
		s.mux.Handle(path, s.endpoints(byPath[path]))
	}
	s.mux.HandleFunc("GET /healthz", s.health)
	s.mux.HandleFunc("GET /readyz", s.ready)
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	docs, err := newDocEndpoints(cfg.Version)
	if err != nil {
		panic("httpapi: " + err.Error()) // only this package's own types and template reach here
	}
	s.mux.HandleFunc("GET /openapi.json", docs.serveJSON)
	s.mux.HandleFunc("GET /docs", docs.serveHTML)
	s.handleUI()
	metricsHandler := promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})
	s.mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		infoFrom(r.Context()).route = "metrics"
		metricsHandler.ServeHTTP(w, r)
	})
	return s
}

// AccessLogMessage is the message of the access line logged at info level
// for every request (roost serve --access-log drops it by this message).
const AccessLogMessage = "request"

// reqInfo is what one request's layers tell each other and the log.
type reqInfo struct {
	id      string
	route   string // endpoint name; routeUnmatched until a handler claims it
	keyID   int64
	items   int
	charged int64
	fault   string // what the sandbox injected: "429", "500", "delay", "delay+429", …
	// gone: the client closed the connection before its answer; logged
	// and counted as StatusClientClosed, whatever was written.
	gone bool
}

// StatusClientClosed is the status logged and counted for a request whose
// client went away before its answer (nginx's 499): never a 5xx, since
// the server did not fail.
const StatusClientClosed = 499

// routeUnmatched is the route of a request no handler claimed.
const routeUnmatched = "unmatched"

type infoKey struct{}

// infoFrom is the request's info; an empty one outside ServeHTTP.
func infoFrom(ctx context.Context) *reqInfo {
	if i, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return i
	}
	return &reqInfo{}
}

// newRequestID is 24 hex digits: the time in nanoseconds, then 4 random
// bytes. Ids of one server rise with time, so the ledger's index of them
// grows at its end rather than at a random page per debit (fewer pages
// written per commit).
func newRequestID() string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixNano()))
	rand.Read(b[8:]) //nolint:errcheck // never fails (Go ≥ 1.24)
	return hex.EncodeToString(b[:])
}

// ServeHTTP gives every request an id (X-Request-Id), recovers panics into
// a 500, answers unknown paths and wrong methods in JSON, and records
// metrics and one log line.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	info := &reqInfo{id: newRequestID(), route: routeUnmatched}
	r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
	sw := &statusWriter{ResponseWriter: w, info: info}
	sw.Header().Set("X-Request-Id", info.id)
	defer func() {
		p := recover()
		if p != nil && p != http.ErrAbortHandler {
			err := fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			if sw.status == 0 {
				writeError(sw, r, s.log, err)
			} else {
				s.log.ErrorContext(r.Context(), "panic after the response began", "request_id", info.id, "err", err)
			}
		}
		status := sw.code()
		if info.gone {
			status = StatusClientClosed
		}
		elapsed := time.Since(start)
		s.metrics.observe(info, status, elapsed)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, AccessLogMessage,
			slog.String("request_id", info.id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("route", info.route),
			slog.Int("status", status), slog.Duration("duration", elapsed),
			slog.Int64("key_id", info.keyID), slog.Int("items", info.items),
			slog.Int64("charged_micro_usd", info.charged), slog.String("fault", info.fault))
		if p == http.ErrAbortHandler {
			panic(p) // a streamed answer cut short: net/http drops the connection
		}
	}()
	if s.cors.apply(sw, r) {
		info.route = "preflight"
		sw.WriteHeader(http.StatusNoContent)
		return
	}
	// ServeMux would redirect a path with "//", "." or ".." segments to
	// its clean form; an API client is better told that there is no such
	// endpoint (no endpoint ends in "/" either).
	if p := r.URL.Path; p == "" || p[0] != '/' || path.Clean(p) != p {
		writeError(sw, r, s.log, errUnknown)
		return
	}
	// The API's endpoints take a slot of the server themselves, once
	// their request is read (handler.go: admit); the other paths (probes,
	// metrics, the API's description, the search page's files) are cheap
	// and must answer while the API is busy.
	s.mux.ServeHTTP(sw, r)
}

// statusWriter remembers the status written. While no handler of this
// package has claimed the request (ServeMux answering by itself: 404, 405
// with its Allow header, a redirect to the cleaned path with its Location
// header, all in plain text or HTML), it turns the answer into a JSON body.
type statusWriter struct {
	http.ResponseWriter
	info     *reqInfo
	status   int
	replaced bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status != 0 {
		return
	}
	w.status = code
	if w.info.route != routeUnmatched {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	if code >= 300 && code < 400 {
		w.ResponseWriter.WriteHeader(code) // a redirect: Location, no body
		w.replaced = true
		return
	}
	msg := http.StatusText(code)
	switch code {
	case http.StatusNotFound:
		msg = msgUnknownEndpoint
	case http.StatusMethodNotAllowed:
		msg = msgMethod
	}
	w.replaced = true
	w.Header().Del("X-Content-Type-Options")
	writeJSON(w.ResponseWriter, code, wire.ErrorBody{Status: "error", Message: msg})
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if w.replaced {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer beneath (flushes and
// write deadlines of streamed answers).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// health is GET /healthz, the liveness of the process: 200 while it
// serves, also while its database is out of reach (a failover: restarting
// the process would not bring the database back), when the answer says so
// with "database":"unavailable". Readiness, which does depend on the
// database, is /readyz.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	info := infoFrom(r.Context())
	info.route = "healthz"
	body := struct {
		Status   string `json:"status"`
		Database string `json:"database,omitempty"`
	}{Status: "ok"}
	ctx, cancel := context.WithTimeout(r.Context(), healthPing)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		s.log.WarnContext(r.Context(), "health check: database unavailable", "request_id", info.id, "err", err)
		body.Database = "unavailable"
	}
	writeJSON(w, http.StatusOK, body)
}

// healthPing bounds /healthz's look at the database, so that a database
// that does not answer (a lost host) never makes the liveness check slow.
const healthPing = 2 * time.Second

// readiness is an optional store method: nil once the database answers
// and its schema is migrated to what this binary expects.
type readiness interface {
	Ready(ctx context.Context) error
}

// ready is GET /readyz: 200 when the store answers and its migrations are
// done, 503 with Retry-After when not (a load balancer sends no traffic
// until then; while no primary is reachable in a failover, too).
func (s *server) ready(w http.ResponseWriter, r *http.Request) {
	info := infoFrom(r.Context())
	info.route = "readyz"
	check := s.store.Ping
	if rd, ok := s.store.(readiness); ok {
		check = rd.Ready
	}
	if err := check(r.Context()); err != nil {
		s.log.WarnContext(r.Context(), "not ready", "request_id", info.id, "err", err)
		w.Header().Set("Retry-After", seconds(unavailableRetry))
		writeJSON(w, http.StatusServiceUnavailable, wire.ErrorBody{Status: "error", Message: "Not ready"})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
	}{"ready"})
}
