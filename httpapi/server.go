package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"roost/billing"
	"roost/social"
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
}

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
	}
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			s.mux.Handle(p, s.endpoint(rt))
		}
	}
	s.mux.HandleFunc("GET /healthz", s.health)
	s.handleUI()
	metricsHandler := promhttp.HandlerFor(cfg.Registry, promhttp.HandlerOpts{})
	s.mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		infoFrom(r.Context()).route = "metrics"
		metricsHandler.ServeHTTP(w, r)
	})
	return s
}

// reqInfo is what one request's layers tell each other and the log.
type reqInfo struct {
	id      string
	route   string // endpoint name; routeUnmatched until a handler claims it
	keyID   int64
	items   int
	charged int64
}

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

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:]) //nolint:errcheck // never fails (Go ≥ 1.24)
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
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			err := fmt.Errorf("panic: %v\n%s", p, debug.Stack())
			if sw.status == 0 {
				writeError(sw, r, s.log, err)
			} else {
				s.log.ErrorContext(r.Context(), "panic after the response began", "request_id", info.id, "err", err)
			}
		}
		elapsed := time.Since(start)
		s.metrics.observe(info, sw.code(), elapsed)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", info.id), slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.String("route", info.route),
			slog.Int("status", sw.code()), slog.Duration("duration", elapsed),
			slog.Int64("key_id", info.keyID), slog.Int("items", info.items),
			slog.Int64("charged_micro_usd", info.charged))
	}()
	if s.cors.apply(sw, r) {
		info.route = "preflight"
		sw.WriteHeader(http.StatusNoContent)
		return
	}
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
	msg := http.StatusText(code)
	switch code {
	case http.StatusNotFound:
		msg = msgUnknownEndpoint
	case http.StatusMethodNotAllowed:
		msg = msgMethod
	}
	w.replaced = true
	w.Header().Del("X-Content-Type-Options")
	writeJSON(w.ResponseWriter, code, errorBody{Status: "error", Message: msg})
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

// health is GET /healthz: 200 when the store answers, 503 when not.
func (s *server) health(w http.ResponseWriter, r *http.Request) {
	info := infoFrom(r.Context())
	info.route = "healthz"
	if err := s.store.Ping(r.Context()); err != nil {
		s.log.ErrorContext(r.Context(), "health check failed", "request_id", info.id, "err", err)
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Status: "error", Message: "Store unavailable"})
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
	}{"ok"})
}
