// Package postgres is roost's shared store: one PostgreSQL database (or one
// schema of it) used by any number of roost processes at once, through a
// pgxpool pool. It behaves like package sqlite in every respect the
// social.Store interface describes; the schema is migrated on open under an
// advisory lock, bulk writes go through COPY, and full-text search uses a
// GIN-indexed tsvector of tokens folded in Go exactly as SQLite folds them.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Store is a social.Store on PostgreSQL.
type Store struct {
	// Reader answers the API's reads.
	sqlstore.Reader
	// Research answers counts, top values and walks.
	sqlstore.Research

	pool *pgxpool.Pool
	log  *slog.Logger
	// reads sends the data reads to read replicas (nil: none); primary
	// reads what must be current (keys, the ledger, kept responses).
	reads   *readRouter
	primary sqlstore.Reader
	name    string // the database for logs, without credentials

	runes tsRunes // what the server's text-search parser makes of characters

	kept atomic.Uint64 // responses kept for Idempotency-Keys (expireResponses)

	// loseDebitReply, set by tests only, replaces the outcome of every
	// committed debit statement, as a connection lost before the reply.
	loseDebitReply func() error
	// beforeDebitWrites, set by tests only, runs in a debit batch's
	// transaction after its look-ups, before its decisions; an error
	// fails the transaction there.
	beforeDebitWrites func() error

	// debits commits concurrent debits of this process together
	// (debitBatch).
	debits *sqlstore.DebitBatcher

	// gatherMin is the estimate up to which a search is always gathered
	// (gatherLimit; tests lower it);
	// floor is the planner's estimate of a word it does not know.
	gatherMin float64
	floor     textFloor

	// parts creates the month partitions of the post tables; nil when
	// they are not partitioned.
	parts *partitions
}

var (
	_ social.Store      = (*Store)(nil)
	_ social.BulkLoader = (*Store)(nil)
)

// Open connects to the database at url (postgres://… or a key=value
// connection string) and migrates it to the current schema. Tables live in
// the first schema of the URL's search_path (default: public). Several
// processes may open the same database at once.
func Open(ctx context.Context, url string, log *slog.Logger) (*Store, error) {
	return OpenOptions(ctx, url, Options{}, log)
}

// OpenOptions is Open with read replicas (see Options).
func OpenOptions(ctx context.Context, url string, opts Options, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if strings.TrimSpace(url) == "" {
		return nil, fmt.Errorf("postgres: empty database URL: %w", social.ErrInvalid)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database URL: %w", social.ErrInvalid)
	}
	if opts.Partition, err = partitionParam(cfg, opts.Partition); err != nil {
		return nil, err
	}
	if opts.Tracer != nil {
		cfg.ConnConfig.Tracer = opts.Tracer
	}
	if cfg.ConnConfig.RuntimeParams["application_name"] == "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = "roost"
	}
	if cfg.MaxConnLifetime == time.Hour { // pgxpool's default: keep connections longer
		cfg.MaxConnLifetime = 4 * time.Hour
	}
	name := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	if sp := cfg.ConnConfig.RuntimeParams["search_path"]; sp != "" {
		name += "?search_path=" + sp
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to %s: %w", name, err)
	}
	s := &Store{pool: pool, log: log, name: name, gatherMin: gatherLimit}
	numbered := &sync.Map{}
	s.primary = sqlstore.Reader{DB: pgDB{pool: pool, numbered: numbered}, Dialect: dialect}
	s.Reader = s.primary
	s.Research = sqlstore.Research{DB: pgDB{pool: pool, planned: true}, Compile: s.researchMatch}
	if err := s.migrate(ctx, opts.Partition); err != nil {
		pool.Close()
		return nil, err
	}
	if s.parts != nil {
		if err := s.parts.ahead(ctx, time.Now()); err != nil {
			pool.Close()
			return nil, err
		}
	}
	if err := s.restoreLeftovers(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if s.reads, err = newReadRouter(ctx, pool, opts, log); err != nil {
		pool.Close()
		return nil, err
	}
	s.Reader = sqlstore.Reader{DB: pgDB{pool: pool, numbered: numbered, reads: s.reads}, Dialect: dialect}
	s.debits = sqlstore.NewDebitBatcher(s.debitBatch)
	return s, nil
}

// Close releases the pool.
func (s *Store) Close() error {
	if s.debits != nil {
		s.debits.Close()
	}
	s.reads.close()
	s.pool.Close()
	return nil
}

// Pool is the store's connection pool, for tools and tests that need SQL
// the store does not offer.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// countedTables are the tables Counts reports, as in package sqlite.
var countedTables = []string{"users", "posts", "follows", "reposts", "affiliations", "highlights", "likes",
	"lists", "list_members", "list_subscribers", "communities", "community_members", "spaces", "tombstones", "api_keys", "ledger"}

// Counts reports how many values of each kind are stored.
func (s *Store) Counts(ctx context.Context) (map[string]int64, error) {
	out := make(map[string]int64, len(countedTables))
	for _, t := range countedTables {
		var n int64
		if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("postgres: count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// notFound maps pgx.ErrNoRows to social.ErrNotFound naming what is missing.
func notFound(err error, what string) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%s: %w", what, social.ErrNotFound)
	}
	return fmt.Errorf("postgres: %s: %w", what, unavailable(err))
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", unavailable(err))
	}
	return nil
}

// Gateway is the storage of the gateway (roost serve --upstream).
func (s *Store) Gateway() sqlstore.Gateway {
	db := pgDB{pool: s.pool, numbered: &sync.Map{}}
	return sqlstore.Gateway{Read: db, Write: db, Data: s.primary}
}

// World is the living world's storage; its reads go to the primary.
func (s *Store) World() sqlstore.World {
	return sqlstore.World{Reader: s.primary, Write: pgDB{pool: s.pool, numbered: &sync.Map{}}}
}
