// Package sqlite is roost's embedded store: one SQLite file (WAL mode) read
// through a pool of connections and written through exactly one, with the
// schema migrated on open and full-text search in FTS5.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Store is a social.Store on one SQLite file and its billing file.
type Store struct {
	// Reader answers the API's reads from the read pool.
	sqlstore.Reader
	// Research answers counts, top values and walks from the read pool.
	sqlstore.Research

	path   string
	tuning Tuning  // the pieces past plain SQL it uses (tuning.go)
	read   *sql.DB // query-only pool, the billing file attached
	write  *sql.DB // one connection; transactions BEGIN IMMEDIATE
	bill   *sql.DB // the billing file's one write connection (billing.go)
	log    *slog.Logger

	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt

	wstmts writeStmts // batch writes' statements, on the write connection

	debits *debitBatcher
	// later holds the upstream ledger rows of a gateway's cache hits
	// (upstream_later.go).
	later upstreamLater
	// versions reads the change counters (versions.go).
	versions *versionsReader
	// counts keeps the counts that plan Top pages (search_counts.go).
	counts countCache

	// topSetCap is the planner's topSetCap (search_plan.go); tests lower
	// it to drive every Top page through the score buckets.
	topSetCap int
	// bucketDriverCap is search_top.go's bucketDriverCap; tests lower it
	// to send Top pages through the score windows.
	bucketDriverCap int
	// estimateCap is the planner's estimateCap; tests lower it to plan
	// every Latest page with several drivers as a common query.
	estimateCap int
}

var (
	_ social.Store      = (*Store)(nil)
	_ social.BulkLoader = (*Store)(nil)
)

// Open opens (creating if needed) the database at path and migrates it to
// the current schema, with every tuning piece on (TuningOn). Two processes
// may open the same file at once.
func Open(ctx context.Context, path string, log *slog.Logger) (*Store, error) {
	return OpenOptions(ctx, path, Options{Log: log, Tuning: TuningOn()})
}

// OpenOptions is Open with the tuning of opts (every piece off in its zero
// value).
func OpenOptions(ctx context.Context, path string, opts Options) (*Store, error) {
	log, t := opts.Log, opts.Tuning
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("sqlite: empty database path: %w", social.ErrInvalid)
	}
	write, err := openOne(dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s := &Store{path: path, tuning: t, write: write, log: log, stmts: map[string]*sql.Stmt{},
		wstmts: writeStmts{stmts: map[string]*sql.Stmt{}}}
	if err := s.openBilling(ctx); err != nil {
		write.Close()
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.closeWriters()
		return nil, err
	}
	// A bulk load that died left indexes to rebuild (see Bulk).
	if _, err := s.bulkRestore(ctx); err != nil {
		s.closeWriters()
		return nil, err
	}
	if err := s.liftIndexes(ctx); err != nil {
		s.closeWriters()
		return nil, err
	}
	if err := s.forgetLostSnapshots(ctx); err != nil {
		s.closeWriters()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	read, err := attached(path, true)
	if err != nil {
		s.closeWriters()
		return nil, fmt.Errorf("sqlite: open %s for reading: %w", path, err)
	}
	n := 2 * runtime.GOMAXPROCS(0)
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxLifetime(0)
	s.read = read
	s.Reader = sqlstore.Reader{DB: sqlDB(s.query), Dialect: dialect}
	s.Research = sqlstore.Research{DB: sqlDB(s.read.QueryContext), Compile: s.researchMatch}
	if err := read.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if s.versions, err = newVersionsReader(path, t); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s.debits = newDebitBatcher(s)
	return s, nil
}

// busyTimeout is how long a connection waits for a lock another holds.
const busyTimeout = 10 * time.Second

// sqliteAutocheckpoint is wal_autocheckpoint's default, which the write
// connections keep: SQLite checkpoints at the end of a commit that leaves
// the log at 1,000 pages or more (bulk loads set more for their commits).
const sqliteAutocheckpoint = 1000

// dsn builds the driver's connection string. busy_timeout comes first so
// that every later pragma already waits for locks instead of failing.
func dsn(path string, readOnly bool) string {
	v := url.Values{}
	pragmas := []string{
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"journal_mode(WAL)",
		"synchronous(FULL)",
		"foreign_keys(OFF)",
		"cache_size(-16384)",
		"temp_store(MEMORY)",
		"mmap_size(0)",
	}
	if readOnly {
		pragmas = append(pragmas, "query_only(1)")
	} else {
		v.Set("_txlock", "immediate")
	}
	for _, p := range pragmas {
		v.Add("_pragma", p)
	}
	return "file:" + path + "?" + v.Encode()
}

// Close releases the database.
func (s *Store) Close() error {
	if s.debits != nil {
		s.debits.close()
	}
	lerr := s.closeUpstream(context.Background())
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = nil
	s.stmtMu.Unlock()
	s.wstmts.close()
	var err error
	if s.versions != nil {
		err = s.versions.close()
	}
	if s.read != nil {
		if e := s.read.Close(); e != nil && err == nil {
			err = e
		}
	}
	if e := s.closeWriters(); e != nil && err == nil {
		err = e
	}
	return errors.Join(err, lerr)
}

// closeWriters closes both write connections.
func (s *Store) closeWriters() error {
	return errors.Join(s.write.Close(), s.bill.Close())
}

// maxReadStmts bounds the read statements kept prepared: search pages
// come in as many texts as there are shapes of queries, and past the
// bound a text is prepared for each use.
const maxReadStmts = 2048

// stmt returns a prepared read statement, preparing it once per store; nil
// when the store keeps maxReadStmts already.
func (s *Store) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	if s.stmts == nil {
		return nil, fmt.Errorf("sqlite: store is closed")
	}
	if len(s.stmts) >= maxReadStmts {
		return nil, nil
	}
	st, err := s.read.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare: %w", err)
	}
	s.stmts[query] = st
	return st, nil
}

// query runs a read query through the statement cache.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return s.read.QueryContext(ctx, query, args...)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: query: %w", err)
	}
	return rows, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Counts reports how many values of each kind are stored.
func (s *Store) Counts(ctx context.Context) (map[string]int64, error) {
	tables := []string{"users", "posts", "follows", "reposts", "affiliations", "highlights", "likes",
		"lists", "list_members", "list_subscribers", "communities", "community_members", "spaces", "tombstones", "api_keys", "ledger"}
	out := make(map[string]int64, len(tables))
	for _, t := range tables {
		var n int64
		if err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM "+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("sqlite: count %s: %w", t, err)
		}
		out[t] = n
	}
	return out, nil
}

// Gateway is the storage of the gateway (roost serve --upstream): its
// page cache is written through the database's write connection, its
// upstream ledger and budget through the billing file's.
func (s *Store) Gateway() sqlstore.Gateway {
	return sqlstore.Gateway{Read: sqlDB(s.query), Write: sqlDB(s.bill.QueryContext),
		Pages: sqlDB(s.write.QueryContext), Data: s.Reader, Later: s.holdUpstream, Flush: s.flushUpstream}
}

// World is the living world's storage; its writes go through the one
// write connection.
func (s *Store) World() sqlstore.World {
	return sqlstore.World{Reader: s.Reader, Write: sqlDB(s.write.QueryContext)}
}
