package roosttest

import (
	"log/slog"

	"github.com/roostapi/roost/internal/billing"
)

// Option configures New.
type Option func(*config)

// config is what the options set.
type config struct {
	fixtures  []string // files
	docs      [][]byte // JSON documents
	postgres  string
	log       *slog.Logger
	credit    int64 // micro-USD
	rateLimit int
}

// defaultCredit is the key's opening credit: 100 USD.
const defaultCredit = 100 * billing.MicrosPerUSD

// Fixtures seeds the fixture files at paths (JSON, or YAML for .yaml and
// .yml; docs/testing.md describes them) into the new world, in one
// transaction, names shared between the files. Relative times count from
// each file's "now", or 2026-06-01T00:00:00Z, as `roost serve --fixtures`
// counts them.
func Fixtures(paths ...string) Option {
	return func(c *config) { c.fixtures = append(c.fixtures, paths...) }
}

// FixtureJSON seeds a fixture document written in JSON, as Fixtures seeds
// a file (after the files, in the same transaction).
func FixtureJSON(doc []byte) Option {
	return func(c *config) { c.docs = append(c.docs, doc) }
}

// Postgres serves the world from a fresh schema of the PostgreSQL
// database at url (a postgres:// URL; the schema is dropped, with its
// snapshots, when the test ends) instead of a SQLite file.
func Postgres(url string) Option {
	return func(c *config) { c.postgres = url }
}

// Logger receives the server's log records (default: none).
func Logger(log *slog.Logger) Option {
	return func(c *config) { c.log = log }
}

// Credit sets the key's opening credit in micro-USD (default 100 USD,
// 100,000,000).
func Credit(micros int64) Option {
	return func(c *config) { c.credit = micros }
}

// RateLimit gives the key a rate limit of perMinute requests a minute
// (default: none).
func RateLimit(perMinute int) Option {
	return func(c *config) { c.rateLimit = perMinute }
}
