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
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxReplicaLag is how far behind the primary a read replica may
// be before its reads go to the primary instead.
const DefaultMaxReplicaLag = 10 * time.Second

// Options are the optional settings of a store.
type Options struct {
	// ReadReplicas are URLs of streaming standbys of the primary: the data
	// endpoints' reads go to them, keys, debits, rate limits and the
	// ledger stay on the primary. A URL may list several hosts with
	// target_session_attrs=prefer-standby: while it reaches the primary
	// (a standby promoted), it is skipped and reconnects at each check.
	ReadReplicas []string
	// MaxReplicaLag (0: DefaultMaxReplicaLag) skips a standby whose replay
	// is further behind the primary.
	MaxReplicaLag time.Duration
	// Partition, PartitionMonth, makes a new database's post tables
	// partitioned by month of post id (also the URL parameter
	// partition=month). It is read when the schema is created, or while
	// its post tables are empty; a database created partitioned stays so
	// without it.
	Partition string
	// Tracer, when set, traces every query of the primary's pool (tests
	// read the plans of the statements a store runs through it).
	Tracer pgx.QueryTracer
}

// replicaCheckEvery is how often each standby's health and lag are read.
const replicaCheckEvery = 500 * time.Millisecond

// replica is one read replica and what its last check found.
type replica struct {
	name    string // host:port/database, without credentials
	pool    *pgxpool.Pool
	healthy atomic.Bool
	reads   atomic.Int64 // reads it answered
}

// readRouter sends reads to a healthy replica in turn, or to the primary
// when none is healthy; a read a replica fails for want of the replica
// (down, stopping, lost connection, recovery conflict) is retried on the
// primary, and the replica is skipped until a check finds it well.
type readRouter struct {
	primary      *pgxpool.Pool
	primaryReads atomic.Int64
	replicas     []*replica
	next         atomic.Uint64
	maxLag       time.Duration
	log          *slog.Logger
	stop         chan struct{}
	done         sync.WaitGroup
}

// pick is the pool of the next read and its replica (nil: the primary).
func (r *readRouter) pick() (*pgxpool.Pool, *replica) {
	if r == nil {
		return nil, nil
	}
	n := len(r.replicas)
	start := int(r.next.Add(1))
	for i := range n {
		rep := r.replicas[(start+i)%n]
		if rep.healthy.Load() {
			return rep.pool, rep
		}
	}
	return r.primary, nil
}

// readOn runs a read on a replica when one is healthy, else on the
// primary; a read the replica failed for its own reasons runs again on
// the primary (retry reports whether it may: nothing was handed on yet).
func readOn[T any](ctx context.Context, r *readRouter, primary *pgxpool.Pool, read func(*pgxpool.Pool) (T, error), retry func() bool) (T, error) {
	pool, rep := r.pick()
	if pool == nil {
		pool = primary
	}
	v, err := read(pool)
	if rep == nil {
		if r != nil {
			r.primaryReads.Add(1)
		}
		return v, err
	}
	if err == nil {
		rep.reads.Add(1)
		return v, nil
	}
	if !replicaFault(err) || ctx.Err() != nil || (retry != nil && !retry()) {
		return v, err
	}
	if rep.healthy.Swap(false) {
		r.log.Warn("read replica failed; reads go to the primary until it recovers", "replica", rep.name, "err", err)
	}
	r.primaryReads.Add(1)
	return read(r.primary)
}

// replicaFault reports whether a read failed because of the replica
// rather than the query: no answer (connection refused or lost), the
// server shutting down or out of resources, or a query cancelled by a
// conflict with recovery on the standby.
func replicaFault(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	class := pe.Code[:2]
	return class == "08" || class == "57" || class == "53" || pe.Code == "40001"
}

// newReadRouter connects to the replicas and checks them once before it
// returns, then every replicaCheckEvery until close.
func newReadRouter(ctx context.Context, primary *pgxpool.Pool, opts Options, log *slog.Logger) (*readRouter, error) {
	if len(opts.ReadReplicas) == 0 {
		return nil, nil
	}
	r := &readRouter{primary: primary, maxLag: opts.MaxReplicaLag, log: log, stop: make(chan struct{})}
	if r.maxLag <= 0 {
		r.maxLag = DefaultMaxReplicaLag
	}
	for _, u := range opts.ReadReplicas {
		cfg, err := pgxpool.ParseConfig(u)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("postgres: parse read replica URL: %w", err)
		}
		delete(cfg.ConnConfig.RuntimeParams, partitionKey)
		cfg.ConnConfig.RuntimeParams["application_name"] = "roost-read"
		name := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("postgres: read replica %s: %w", name, err)
		}
		r.replicas = append(r.replicas, &replica{name: name, pool: pool})
	}
	r.checkAll(ctx)
	r.done.Add(1)
	go r.watch()
	return r, nil
}

func (r *readRouter) watch() {
	defer r.done.Done()
	t := time.NewTicker(replicaCheckEvery)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 2*replicaCheckEvery)
			r.checkAll(ctx)
			cancel()
		}
	}
}

// checkAll reads each replica's lag behind the primary's current WAL
// position: none when it has replayed that far, else the time since the
// last transaction it replayed. A replica that does not answer, is not a
// standby, or lags past maxLag is skipped until a check finds it well.
func (r *readRouter) checkAll(ctx context.Context) {
	var lsn string
	if err := r.primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return // the primary is away: leave the replicas as they were
	}
	for _, rep := range r.replicas {
		var standby, caughtUp bool
		var lag *float64
		err := rep.pool.QueryRow(ctx, `SELECT pg_is_in_recovery(),
			coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false),
			extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8`, lsn).Scan(&standby, &caughtUp, &lag)
		var problem string
		switch {
		case err != nil:
			problem = "does not answer: " + err.Error()
		case !standby:
			problem = "is not a standby (pg_is_in_recovery() is false)"
		case caughtUp:
		case lag == nil || time.Duration(*lag*float64(time.Second)) > r.maxLag:
			problem = "lags behind the primary by more than " + r.maxLag.String()
		}
		if err == nil && !standby {
			// A URL that lists several hosts with
			// target_session_attrs=prefer-standby connected to the
			// primary (a standby promoted, or none up): its next
			// connections look for a standby again.
			rep.pool.Reset()
		}
		well := problem == ""
		if was := rep.healthy.Swap(well); was != well {
			if well {
				r.log.Info("read replica serves reads", "replica", rep.name)
			} else {
				r.log.Warn("read replica skipped", "replica", rep.name, "problem", strings.TrimSpace(problem))
			}
		}
	}
}

func (r *readRouter) close() {
	if r == nil {
		return
	}
	if r.stop != nil {
		select {
		case <-r.stop:
		default:
			close(r.stop)
		}
	}
	r.done.Wait()
	for _, rep := range r.replicas {
		rep.pool.Close()
	}
}

// ReadsServed counts the reads each database answered, by name ("primary"
// and each replica's host:port/database).
func (s *Store) ReadsServed() map[string]int64 {
	out := map[string]int64{}
	if s.reads == nil {
		return out
	}
	out["primary"] = s.reads.primaryReads.Load()
	for _, rep := range s.reads.replicas {
		out[rep.name] = rep.reads.Load()
	}
	return out
}
