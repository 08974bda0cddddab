package httpapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"roost/gen"
	"roost/sqlite"
)

// The generated network: small, fixed seed, made once per test binary.
var genCfg = gen.Config{Seed: 42, Users: 300, Posts: 20000}

var generated struct {
	once  sync.Once
	dir   string
	env   *env
	sum   gen.Summary
	err   error
	setup time.Duration
}

func TestMain(m *testing.M) {
	code := m.Run()
	if generated.env != nil {
		generated.env.store.Close()
	}
	if generated.dir != "" {
		os.RemoveAll(generated.dir)
	}
	os.Exit(code)
}

// genEnv is a handler over the generated network, shared by the tests
// that use it (each makes its own keys).
func genEnv(t testing.TB) (*env, gen.Summary) {
	t.Helper()
	if raceEnabled {
		t.Skip("the generated network takes minutes to build under -race; these tests run without it")
	}
	generated.once.Do(func() {
		start := time.Now()
		ctx := context.Background()
		generated.dir, generated.err = os.MkdirTemp("", "roost-httpapi-*")
		if generated.err != nil {
			return
		}
		st, err := sqlite.Open(ctx, filepath.Join(generated.dir, "gen.db"), nil)
		if err != nil {
			generated.err = err
			return
		}
		generated.sum, err = gen.Generate(ctx, st, genCfg, nil)
		if err != nil {
			st.Close()
			generated.err = fmt.Errorf("generate: %w", err)
			return
		}
		now := func() time.Time { return testNow }
		generated.env = &env{store: st, h: New(Config{Now: now, RateLimit: -1}, st, nil, nil), reg: prometheus.NewRegistry()}
		generated.setup = time.Since(start)
	})
	if generated.err != nil {
		t.Fatal(generated.err)
	}
	return generated.env, generated.sum
}
