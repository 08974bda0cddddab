package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world/gen"
)

// The generated network: small, fixed seed, made once per test binary and
// engine.
var genCfg = gen.Config{Seed: 42, Users: 300, Posts: 20000}

// genShared is the generated network of one engine, shared by the tests
// over it and released by TestMain.
type genShared struct {
	once    sync.Once
	env     *env
	sum     gen.Summary
	err     error
	setup   time.Duration
	release func() // closes the store and removes its database
}

// generated holds one genShared per engine name; the map itself is never
// written after initialization.
var generated = map[string]*genShared{"sqlite": {}, "postgres": {}}

func TestMain(m *testing.M) {
	code := m.Run()
	// Every response the end-to-end tests received must match the
	// OpenAPI document.
	if bad := checkRecorded(); len(bad) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d responses do not match /openapi.json:\n%s\n", len(bad), strings.Join(bad, "\n\n"))
		code = 1
	}
	for _, g := range generated {
		if g.release != nil {
			g.release()
		}
	}
	os.Exit(code)
}

// genEnv is a handler over the generated network on eng, shared by the
// tests that use it (each makes its own keys).
func genEnv(t testing.TB, eng engine) (*env, gen.Summary) {
	t.Helper()
	if raceEnabled {
		t.Skip("the generated network takes minutes to build under -race; these tests run without it")
	}
	var pgBase string
	if eng.name == "postgres" {
		pgBase = storetest.PostgresURL(t) // skips (or fails under CI) first
	}
	g := generated[eng.name]
	g.once.Do(func() {
		start := time.Now()
		ctx := context.Background()
		var st social.Store
		st, g.release, g.err = openShared(ctx, eng.name, pgBase)
		if g.err != nil {
			return
		}
		g.sum, g.err = gen.Generate(ctx, st, genCfg, nil)
		if g.err != nil {
			g.err = fmt.Errorf("generate on %s: %w", eng.name, g.err)
			return
		}
		now := func() time.Time { return testNow }
		g.env = &env{store: st, h: New(Config{Now: now, RateLimit: -1}, st, nil, nil), reg: prometheus.NewRegistry()}
		g.setup = time.Since(start)
	})
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.env, g.sum
}

// openShared opens an empty store of the named engine that outlives the
// test asking for it, and the function that closes and removes it.
func openShared(ctx context.Context, name, pgBase string) (social.Store, func(), error) {
	switch name {
	case "sqlite":
		dir, err := os.MkdirTemp("", "roost-httpapi-*")
		if err != nil {
			return nil, nil, err
		}
		st, err := sqlite.Open(ctx, filepath.Join(dir, "gen.db"), nil)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		return st, func() { st.Close(); os.RemoveAll(dir) }, nil
	case "postgres":
		var b [6]byte
		rand.Read(b[:])
		schema := "roost_test_gen_" + hex.EncodeToString(b[:])
		exec := func(sql string) error {
			conn, err := pgx.Connect(ctx, pgBase)
			if err != nil {
				return fmt.Errorf("connect to the test database: %w", err)
			}
			defer conn.Close(ctx)
			_, err = conn.Exec(ctx, sql)
			return err
		}
		if err := exec("CREATE SCHEMA " + schema); err != nil {
			return nil, nil, fmt.Errorf("create schema %s: %w", schema, err)
		}
		drop := func() {
			if err := exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
				fmt.Fprintf(os.Stderr, "drop schema %s: %v\n", schema, err)
			}
		}
		u, err := url.Parse(pgBase)
		if err != nil {
			drop()
			return nil, nil, fmt.Errorf("parse ROOST_TEST_POSTGRES: %w", err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		if p := os.Getenv("ROOST_TEST_PG_PARTITION"); p != "" {
			q.Set("partition", p)
		}
		u.RawQuery = q.Encode()
		st, err := postgres.Open(ctx, u.String(), nil)
		if err != nil {
			drop()
			return nil, nil, err
		}
		return st, func() { st.Close(); drop() }, nil
	}
	return nil, nil, fmt.Errorf("unknown engine %q", name)
}
