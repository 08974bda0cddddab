package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// bulkTables are the tables whose secondary indexes a large load drops and
// builds again at the end: those a load of posts fills most (follows,
// reposts and likes come with generated networks and graph captures).
// Primary keys stay: the upserts need them.
// posts comes first: when it is too large, nothing is dropped.
var bulkTables = []string{"posts", "post_mentions", "post_tags", "follows", "reposts", "likes"}

// bulkMaintenanceMem is maintenance_work_mem for the index builds at the end
// of a load: a GIN build gathers entries in memory and writes them sorted,
// so more memory means fewer, larger flushes.
const bulkMaintenanceMem = "512MB"

// bulkKeep are the secondary indexes of bulkTables that a load keeps and
// fills row by row: building one at the end reads the whole table again,
// which costs more than its inserts when it indexes a minority of the rows
// (the partial indexes of replies, quotes, native reposts and community posts) or when the
// load adds its keys in rising order, at the right edge of the tree (the
// rows that name a post by id: mentions, tags, reposts, likes, and
// conversations, keyed by their root post). Measured on 1M generated posts: dropping and
// building them took the load from 21.5 s to 26.1 s.
var bulkKeep = map[string]bool{
	"posts_community": true, "posts_community_top": true, "posts_quoted": true, "posts_reply_to": true,
	"posts_to": true, "posts_conversation": true, "post_mentions_post": true, "post_tags_post": true,
	"reposts_by_time": true, "likes_by_post": true, "posts_repost_of": true,
}

// bulkLockSQL takes (or tries) the session advisory lock held for the whole
// of a load, named after the schema: while a session holds it, what
// bulk_restore records belongs to a load in progress, not to a dead one.
const (
	bulkLockSQL    = `SELECT pg_advisory_lock(hashtext('roost bulk ' || current_schema()))`
	bulkTryLockSQL = `SELECT pg_try_advisory_lock(hashtext('roost bulk ' || current_schema()))`
)

// Bulk runs load with a writer meant for loading many posts: roost gen and
// roost import use it. expectPosts is about how many posts load will write.
//
// When posts holds at most twice expectPosts rows, each table of posts,
// post_mentions, post_tags, follows, reposts and likes that holds at most that
// many rows too has its secondary indexes (b-trees, and the two GIN
// full-text indexes of posts) dropped for the load, but those of bulkKeep,
// and built again at the end by CREATE INDEX with maintenance_work_mem
// raised: a build sorts once instead of inserting entry by entry, which for
// GIN is many times cheaper. The writer takes bulkWriters Writes at once
// (social.ConcurrentWriter), each in a transaction on a connection of its
// own. The builds run on two connections at once (see
// bulkRestoreConns), each in a transaction of its own, and the tables are
// analysed the same way.
//
// Every write of the load stays one atomic, idempotent transaction with
// exact stats (see Store.Write: new posts, with their full-text vectors
// made in Go, and their mention and tag rows are copied straight into
// their tables). On top of that, relation rows (follows, reposts, list
// members, …) are copied straight in under a savepoint until a copy of a
// table meets a row that exists already; that batch and every later one
// upsert that table's rows (see writeRows). Writes commit with
// synchronous_commit=off, so they do not wait for their log to reach the
// disk (a server crash can lose the last few commits, never corrupt
// anything or half-apply a batch). Bulk ends with a synchronous commit:
// flushing the log up to that commit flushes every earlier commit of the
// load, so when Bulk returns nil the whole load is durable. A load is a
// sequence of idempotent writes, so one cut short is completed by running
// it again.
//
// Readers keep working during the load, in this process and in any other
// serving the same database: every query stays correct without the
// dropped indexes, only slower (sequential scans of posts, text search
// without GIN) until the indexes are back. Dropping takes a brief exclusive
// lock on the tables; the builds at the end block other writers of those
// tables (not readers) while they run. What was dropped is recorded in
// bulk_restore in the transaction that drops it, and a session advisory
// lock is held for the whole load: when the load fails or is cancelled,
// Bulk builds the indexes before returning, and if the process dies, the
// next Open (which finds the lock free) builds those not built yet. Loads
// run one at a time per schema: a second Bulk waits for the first.
//
// Measured (BenchmarkGenerate, 1M generated posts, PostgreSQL 15 on a
// 2-core machine): 46,500–48,700 posts/s (15,000 before the bulk path,
// 30,000–35,000 with one writer and every index rebuilt), of which the
// index builds take 5.5–6 s at the end (the GIN build of posts.tsv, one
// core, is the longest); see the package README.
func (s *Store) Bulk(ctx context.Context, expectPosts int64, load func(social.Writer) error) error {
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: bulk: connect: %w", err)
	}
	// The connection holds the advisory lock: it never goes back to the
	// pool, and closing it releases the lock whatever happened.
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, bulkLockSQL); err != nil {
		return fmt.Errorf("postgres: bulk: lock: %w", err)
	}
	dropped, err := s.bulkBegin(ctx, conn, expectPosts)
	if err != nil {
		// Nothing was dropped (one transaction), but an earlier load may
		// have left something to put back.
		return errors.Join(err, s.bulkRestore(context.WithoutCancel(ctx), conn))
	}
	err = load(&bulkWriter{s: s, first: copyFirst{log: s.log}})
	// Put everything back even when the load failed or was cancelled: the
	// writes it made are committed.
	if rerr := s.bulkRestore(context.WithoutCancel(ctx), conn); rerr != nil {
		return errors.Join(err, rerr)
	}
	if err == nil && dropped > 0 {
		// Fresh statistics for the planner (see Maintain), posts (the
		// largest) on one connection, the other tables on another.
		jobs := make([]func(*pgx.Conn) error, len(bulkTables))
		for i, t := range bulkTables {
			jobs[i] = func(c *pgx.Conn) error {
				_, err := c.Exec(ctx, "ANALYZE "+pgx.Identifier{t}.Sanitize())
				return err
			}
		}
		if aerr := s.onConns(ctx, conn, jobs); aerr != nil {
			err = fmt.Errorf("postgres: bulk: analyze: %w", aerr)
		}
	}
	return err
}

// bulkBegin records and drops the indexes a load of expectPosts posts does
// without, in one transaction, and records the load itself. It returns how
// many indexes it dropped.
func (s *Store) bulkBegin(ctx context.Context, conn *pgx.Conn, expectPosts int64) (int, error) {
	dropped := 0
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		record := func(name string, seq int, q string) error {
			if _, err := tx.Exec(ctx, `INSERT INTO bulk_restore (name, seq, sql) VALUES ($1, $2, $3)
				ON CONFLICT (name) DO NOTHING`, name, seq, q); err != nil {
				return fmt.Errorf("record %s: %w", name, err)
			}
			return nil
		}
		// The load's own row: deleting it makes the final commit one that
		// writes, hence one that flushes the log.
		if err := record("load", 0, ""); err != nil {
			return err
		}
		if expectPosts <= 0 {
			return nil
		}
		expectPosts = min(expectPosts, sqlstore.MaxInt64/4)
		for _, t := range bulkTables {
			// Whether the table holds at most twice as many rows as the
			// load has posts: counted up to that bound only, so that a
			// small load into a large table stays cheap.
			var stored int64
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM `+pgx.Identifier{t}.Sanitize()+` LIMIT $1) r`,
				2*expectPosts+1).Scan(&stored); err != nil {
				return fmt.Errorf("count %s: %w", t, err)
			}
			if stored > 2*expectPosts {
				if t == bulkTables[0] {
					return nil // a small load: keep every index
				}
				continue
			}
			idx, err := secondaryIndexes(ctx, tx, t)
			if err != nil {
				return err
			}
			for i := 0; i < len(idx); i += 2 {
				name, def := idx[i], idx[i+1]
				if bulkKeep[name] {
					continue
				}
				if err := record("index "+name, 1, def); err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, "DROP INDEX "+pgx.Identifier{name}.Sanitize()); err != nil {
					return fmt.Errorf("drop index %s: %w", name, err)
				}
				dropped++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: bulk: %w", err)
	}
	if dropped > 0 {
		s.log.Info("bulk load: dropped secondary indexes", "db", s.name, "indexes", dropped, "tables", bulkTables)
	}
	return dropped, nil
}

// secondaryIndexes lists name and definition of every index of table that
// no constraint (primary key, unique) owns.
func secondaryIndexes(ctx context.Context, tx pgx.Tx, table string) ([]string, error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::text::regclass AND NOT i.indisprimary AND NOT i.indisunique
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		ORDER BY c.relname`, table)
	if err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	var out []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list indexes of %s: %w", table, err)
		}
		// An index of a partitioned table reads "ON ONLY": made so again it
		// would cover no partition and stay invalid; without ONLY it is
		// built on every partition.
		out = append(out, name, strings.Replace(def, " ON ONLY ", " ON ", 1))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list indexes of %s: %w", table, err)
	}
	return out, nil
}

// bulkRestoreConns is how many connections build indexes (and analyse
// tables) at once at the end of a load. A GIN build runs on one core
// whatever the settings, and posts_tsv is the longest build by far: a
// second connection builds the other indexes meanwhile, one after another.
// The builds use no parallel workers (max_parallel_maintenance_workers=0):
// on a small server they slowed the GIN build down more than they sped
// the b-trees up.
const bulkRestoreConns = 2

// bulkRestore puts back everything bulk_restore records and forgets it.
// conn holds the bulk lock. Each index is built in a transaction of its
// own that also deletes its row, on conn and on one more connection of the
// pool at once (bulkRestoreConns), largest builds first; an index that
// exists already is skipped. A last transaction deletes what is left (the
// load's own row) and commits synchronously: the log is flushed up to it,
// hence every commit of the load and the restore too. When a build fails,
// its row and the load's stay, and the next Open tries again.
func (s *Store) bulkRestore(ctx context.Context, conn *pgx.Conn) error {
	start := time.Now()
	todo, err := s.restoreSteps(ctx, conn)
	if err != nil {
		return fmt.Errorf("postgres: bulk: restore: %w", err)
	}
	if len(todo) == 0 {
		return nil
	}
	var built atomic.Int64
	var jobs []func(*pgx.Conn) error
	for _, step := range todo {
		if step[1] != "" {
			jobs = append(jobs, func(c *pgx.Conn) error {
				ok, err := s.restoreStep(ctx, c, step[0], step[1])
				for try := 1; try < 3 && nameTaken(err); try++ {
					ok, err = s.restoreStep(ctx, c, step[0], step[1])
				}
				if ok {
					built.Add(1)
				}
				return err
			})
		}
	}
	if err := s.onConns(ctx, conn, jobs); err != nil {
		return fmt.Errorf("postgres: bulk: restore: %w", err)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = on"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM bulk_restore`)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: bulk: restore: %w", err)
	}
	if built.Load() > 0 {
		s.log.Info("bulk load: indexes restored", "db", s.name, "indexes", built.Load(),
			"took", time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// onConns runs jobs in their order on conn and, at once, on
// bulkRestoreConns-1 more connections of the pool (fewer if the pool has
// none to give), each job on one connection; it returns when all are done,
// with the errors of those that failed.
func (s *Store) onConns(ctx context.Context, conn *pgx.Conn, jobs []func(*pgx.Conn) error) error {
	next := make(chan func(*pgx.Conn) error)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	worker := func(c *pgx.Conn) {
		for job := range next {
			if err := job(c); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}
	}
	for range bulkRestoreConns - 1 {
		pc, err := s.pool.Acquire(ctx)
		if err != nil {
			break // the others do it all
		}
		wg.Go(func() {
			defer pc.Release()
			worker(pc.Conn())
		})
	}
	wg.Go(func() { worker(conn) })
	for _, job := range jobs {
		next <- job
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// nameTaken reports whether err is a build that chose a name another
// transaction took meanwhile: an index of a partitioned table names its
// partitions' indexes after their columns (posts_y2026m01_author_id_id_idx,
// …_idx1), and two builds on the same columns at once (posts_author,
// posts_author_roots) may choose the same. Run again, it chooses anew.
func nameTaken(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == "pg_class_relname_nsp_index"
}

// restoreSteps lists name and statement of what bulk_restore records, in
// the order to run them: by seq, and of the indexes, the largest builds
// first (GIN indexes, then by the size of their table), so that the
// builds running at once end at about the same time.
func (s *Store) restoreSteps(ctx context.Context, conn *pgx.Conn) ([][2]string, error) {
	rows, err := conn.Query(ctx, `SELECT name, sql FROM bulk_restore
		ORDER BY seq, sql LIKE '% USING gin %' DESC,
			coalesce(pg_relation_size(to_regclass(substring(sql from ' ON (\S+) USING '))), 0) DESC, name`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var v [2]string
		err := r.Scan(&v[0], &v[1])
		return v, err
	})
}

// restoreStep runs the statement q that bulk_restore records as name and
// deletes the record, in one transaction on conn; an index that exists
// already is not built again. built reports whether q ran.
func (s *Store) restoreStep(ctx context.Context, conn *pgx.Conn, name, q string) (built bool, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL max_parallel_maintenance_workers = 0; SET LOCAL maintenance_work_mem = '"+bulkMaintenanceMem+"'"); err != nil {
			return err
		}
		exists := false
		if idx, ok := strings.CutPrefix(name, "index "); ok {
			if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`,
				pgx.Identifier{idx}.Sanitize()).Scan(&exists); err != nil {
				return err
			}
		}
		if !exists {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
			built = true
		}
		_, err := tx.Exec(ctx, `DELETE FROM bulk_restore WHERE name = $1`, name)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	return built, nil
}

// bulkLockGrace is how long Open tries the bulk lock before it leaves a
// load's dropped indexes to the load holding it.
const bulkLockGrace = 2 * time.Second

// restoreLeftovers puts back what a load whose process died left dropped:
// run by Open. A load in progress (its session holds the bulk lock) is left
// alone: it restores by itself.
func (s *Store) restoreLeftovers(ctx context.Context) error {
	var pending bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bulk_restore)`).Scan(&pending); err != nil {
		return fmt.Errorf("postgres: open %s: bulk_restore: %w", s.name, err)
	}
	if !pending {
		return nil
	}
	pc, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: open %s: %w", s.name, err)
	}
	conn := pc.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	// The session of a load whose process just died may hold the lock for
	// a few milliseconds more, until its server process sees the
	// connection closed: the lock is tried for up to bulkLockGrace before
	// the load is taken for one in progress.
	var free bool
	for deadline := time.Now().Add(bulkLockGrace); ; {
		if err := conn.QueryRow(ctx, bulkTryLockSQL).Scan(&free); err != nil {
			return fmt.Errorf("postgres: open %s: bulk lock: %w", s.name, err)
		}
		if free || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("postgres: open %s: bulk lock: %w", s.name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if !free {
		s.log.Info("bulk load in progress: its indexes come back when it ends", "db", s.name)
		return nil
	}
	s.log.Warn("a bulk load was cut short: building its dropped indexes", "db", s.name)
	return s.bulkRestore(ctx, conn)
}

// bulkWriter is the social.Writer of a bulk load.
type bulkWriter struct {
	s     *Store
	first copyFirst
}

// bulkWriters is how many Writes of a load gain from running at once
// (see social.ConcurrentWriter): a server process stores one batch while
// the client makes the rows of another, and each keeps a core busy.
const bulkWriters = 2

// Concurrency reports how many Writes to run at once: bulkWriters.
func (w *bulkWriter) Concurrency() int { return bulkWriters }

// Write stores a batch like Store.Write, committed with
// synchronous_commit=off, copying relation rows straight into their
// tables while they are all new (see writeRows).
func (w *bulkWriter) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return w.s.write(ctx, b, true, &w.first)
}
