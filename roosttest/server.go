package roosttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/admin"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/server"
	"github.com/roostapi/roost/internal/store/pgschema"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// Server is a roost serving one world on loopback ports.
type Server struct {
	// URL is the public API's base URL, http://127.0.0.1:PORT.
	URL string
	// Key is an API key of the server with 100 USD of credit (Credit).
	Key string
	// AdminURL is the admin API's base URL (the world control, the
	// snapshots, the keys), on a port of its own.
	AdminURL string
	// AdminToken is the admin API's bearer token.
	AdminToken string
	// IDs are the ids the fixtures given to New were seeded with, by the
	// names they used.
	IDs IDs

	tb    testing.TB // panicking for a server of Start
	store server.Store
	hc    *http.Client
	// closers release what Start made, last made first.
	closers   []func(context.Context) error
	closeOnce sync.Once
	closeErr  error
}

// Bounds of the server's start and stop.
const (
	// setupWait bounds opening the store and seeding the fixtures.
	setupWait = 2 * time.Minute
	// stopWait bounds the server's stop: the shutdown of its listeners
	// (server.ShutdownWait), the webhook deliveries under way, and the
	// store's close.
	stopWait = server.ShutdownWait + monitorTimeout + 15*time.Second
	// monitorTimeout bounds one webhook delivery.
	monitorTimeout = 5 * time.Second
)

// New starts a roost for t and stops it when t ends (t.Cleanup): its
// listeners, its monitors' deliveries and its store, whose file or schema
// goes with it. A failure to start fails t.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("roosttest: %v", err)
	}
	s.tb = t
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("roosttest: %v", err)
		}
	})
	return s
}

// Start starts a roost outside a test (an example, a TestMain, a
// program), as httptest.NewServer does: the caller must Close it. The
// world control's methods of a server of Start panic where those of a
// server of New fail the test.
func Start(opts ...Option) (*Server, error) {
	cfg := config{credit: defaultCredit}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{tb: panicking{}, hc: &http.Client{Timeout: time.Minute}}
	if err := s.start(cfg); err != nil {
		return nil, errors.Join(err, s.Close())
	}
	return s, nil
}

// start opens the store, seeds it, makes the key and serves; each thing
// made is added to s.closers as soon as it is.
func (s *Server) start(cfg config) error {
	ctx, cancel := context.WithTimeout(context.Background(), setupWait)
	defer cancel()
	st, err := s.open(ctx, cfg)
	if err != nil {
		return err
	}
	s.store = st
	if s.IDs, err = seed(ctx, st, cfg.fixtures, cfg.docs); err != nil {
		return err
	}
	if s.Key, _, err = (&admin.Service{Store: st}).Create(ctx, "roosttest", cfg.credit, cfg.rateLimit, ""); err != nil {
		return fmt.Errorf("the key: %w", err)
	}
	s.AdminToken = newToken()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	adminLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return fmt.Errorf("listen: %w", err)
	}
	s.URL, s.AdminURL = "http://"+ln.Addr().String(), "http://"+adminLn.Addr().String()
	srv := server.New(st, server.Config{
		API:        httpapi.Config{RateLimit: -1, Version: "roosttest"},
		AdminToken: s.AdminToken,
		Webhooks:   monitor.Options{AllowPrivate: true, Timeout: monitorTimeout, Backoff: 100 * time.Millisecond},
	}, cfg.log)
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx, ln, adminLn) }()
	s.closers = append(s.closers, func(ctx context.Context) error {
		stop()
		defer s.hc.CloseIdleConnections()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return fmt.Errorf("the server at %s did not stop within %v", s.URL, stopWait)
		}
	})
	return nil
}

// open opens a store in a fresh SQLite file of a new temporary
// directory, or in a fresh schema of cfg.postgres.
func (s *Server) open(ctx context.Context, cfg config) (server.Store, error) {
	var db string
	if cfg.postgres != "" {
		u, drop, err := pgschema.Create(ctx, cfg.postgres, "roosttest_")
		if err != nil {
			return nil, err
		}
		s.closers, db = append(s.closers, drop), u
	} else {
		dir, err := os.MkdirTemp("", "roosttest-*")
		if err != nil {
			return nil, fmt.Errorf("temporary directory: %w", err)
		}
		s.closers = append(s.closers, func(context.Context) error { return os.RemoveAll(dir) })
		db = filepath.Join(dir, "roost.db")
	}
	st, err := server.Open(ctx, db, server.Options{SQLite: sqlite.TuningOn()}, cfg.log)
	if err != nil {
		return nil, fmt.Errorf("open the store: %w", err)
	}
	s.closers = append(s.closers, func(context.Context) error { return st.Close() })
	return st, nil
}

// Close stops the server, then closes and removes its store (the SQLite
// file, or the PostgreSQL schema with its snapshots), within about 30 s.
// New's servers are closed when their test ends; Close may be called
// more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), stopWait)
		defer cancel()
		var errs []error
		for i := len(s.closers) - 1; i >= 0; i-- {
			if err := s.closers[i](ctx); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// newToken is a random admin token.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return "roosttest_" + hex.EncodeToString(b[:])
}

// fail fails the test of a server of New, or panics for one of Start.
func (s *Server) fail(format string, args ...any) {
	s.tb.Helper()
	s.tb.Fatalf("roosttest: "+format, args...)
}

// panicking is the testing.TB of a server of Start: its failures panic.
// Only Helper and Fatalf are called on it.
type panicking struct{ testing.TB }

func (panicking) Helper() {}

func (panicking) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// Client is a client of the server's public API with its key; opts
// configure it further (client.WithPrefix, client.WithRetry…).
func (s *Server) Client(opts ...client.Option) *client.Client {
	s.tb.Helper()
	c, err := client.New(s.URL, s.Key, opts...)
	if err != nil {
		s.fail("client: %v", err)
	}
	return c
}
