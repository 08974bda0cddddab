// Package server wires roost's HTTP faces over one store: the public API
// (package httpapi), the monitors' service that delivers its webhooks,
// and, with an admin token, the admin API with the world control and
// snapshots (package admin), each face on its own listener. `roost serve`
// and package roosttest both start roost through it.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/api/admin"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/world/edit"
)

// ShutdownWait bounds a graceful shutdown: the requests under way have
// this long to finish.
const ShutdownWait = 10 * time.Second

// Config is what New wires.
type Config struct {
	// API configures the public API. New sets its Monitors, and its
	// Registry when nil (a registry of this server's own).
	API httpapi.Config
	// Webhooks configures the monitors' deliveries; New sets its Price
	// to API.Price and its Registry to API.Registry.
	Webhooks monitor.Options
	// AdminToken is the admin API's bearer token; "": no admin API.
	AdminToken string
	// Limiter counts the keys' requests; nil: NewLimiter of the store.
	Limiter billing.Limiter
}

// Server is roost's handlers over one store, and the monitors' service
// that runs beside them.
type Server struct {
	// API is the public API.
	API http.Handler
	// Admin is the admin API; nil without an admin token.
	Admin http.Handler
	// Monitors is the monitors' service the API registers monitors with
	// and Run runs.
	Monitors *monitor.Service
}

// New builds the handlers of a server over s; log receives their
// records (nil: none).
func New(s Store, cfg Config, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.API.Registry == nil {
		cfg.API.Registry = prometheus.NewRegistry()
	}
	if cfg.Limiter == nil {
		cfg.Limiter = NewLimiter(s)
	}
	cfg.Webhooks.Price, cfg.Webhooks.Registry = cfg.API.Price, cfg.API.Registry
	mon := monitor.New(s.Monitors(), s, s, httpapi.NewRenderer(s), cfg.Webhooks, log)
	cfg.API.Monitors = mon
	srv := &Server{API: httpapi.New(cfg.API, s, cfg.Limiter, log), Monitors: mon}
	if cfg.AdminToken != "" {
		// The world control writes as the living world does, and renders
		// as the public API (and the monitors) do.
		world := &admin.World{Editor: edit.New(s.World(), s), Render: httpapi.NewRenderer(s)}
		srv.Admin = admin.Handler(&admin.Service{Store: s, World: world, Data: s, Snapshots: s}, cfg.AdminToken, log)
	}
	return srv
}

// Run serves the API on ln and, when the server has an admin API and
// adminLn is not nil, the admin API on adminLn, and runs the monitors'
// deliveries, until ctx ends or a listener fails. Then it shuts both
// down gracefully (within ShutdownWait), stops the monitors and waits for
// their deliveries under way (each bounded by the webhooks' timeout). It
// returns nil after a shutdown that ctx asked for.
func (s *Server) Run(ctx context.Context, ln, adminLn net.Listener) error {
	monCtx, stopMonitors := context.WithCancel(ctx)
	monitorsDone := make(chan struct{})
	go func() { defer close(monitorsDone); s.Monitors.Run(monCtx) }()
	defer func() { stopMonitors(); <-monitorsDone }()
	servers, listeners := []*http.Server{newHTTPServer(s.API)}, []net.Listener{ln}
	if s.Admin != nil && adminLn != nil {
		servers, listeners = append(servers, newHTTPServer(s.Admin)), append(listeners, adminLn)
	}
	return serve(ctx, servers, listeners)
}

// newHTTPServer wraps a handler with the timeouts that drop slow clients.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

// serve serves each listener until ctx ends or one fails, then shuts
// every server down gracefully.
func serve(ctx context.Context, servers []*http.Server, listeners []net.Listener) error {
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	var failed error
	select {
	case err := <-errc:
		failed = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), ShutdownWait)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutdown); err != nil && failed == nil {
			failed = fmt.Errorf("shut down: %w", err)
		}
	}
	if failed != nil {
		return failed
	}
	for range servers {
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
	}
	return nil
}
