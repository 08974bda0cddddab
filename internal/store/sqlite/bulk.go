package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Bulk runs load with a writer meant for loading many posts: roost gen and
// roost import use it. expectPosts is about how many posts load will write.
//
// When that is at least half of what posts holds already, the secondary
// indexes of posts are dropped for the load and built again at the end by
// CREATE INDEX, which sorts once instead of inserting entry by entry; the
// full-text index stops merging segments during the load and is merged
// once at the end. A smaller load keeps both as they are. The relation
// tables (follows, reposts, likes, …) keep their indexes either way.
//
// Each write of the load commits with synchronous=NORMAL: no fsync of the
// log per commit (checkpoints still sync), so in WAL mode a crash or power
// loss can lose the last commits but never corrupts the file. Bulk ends
// with a synchronous=FULL commit, whose fsync of the log makes every write
// of the load durable. A load is a sequence of idempotent Writes, so one
// cut short is completed by running it again.
//
// Every write stays atomic, readers keep working (without the dropped
// indexes they are slower until Bulk returns), and what was dropped or
// changed is recorded in bulk_restore in the transaction that drops it: if
// the process dies, the next Open puts it back. Accounts (debits) share
// the write connection and keep synchronous=FULL: the setting is changed
// around each load transaction only.
func (s *Store) Bulk(ctx context.Context, expectPosts int64, load func(social.Writer) error) error {
	if err := s.bulkBegin(ctx, expectPosts); err != nil {
		return err
	}
	err := load(bulkWriter{s: s})
	// Put everything back even when the load failed or was cancelled: the
	// writes it made are committed.
	restored, rerr := s.bulkRestore(context.WithoutCancel(ctx))
	if rerr == nil && restored {
		rerr = s.liftIndexes(context.WithoutCancel(ctx))
	}
	if rerr != nil {
		err = errors.Join(err, rerr)
	}
	return err
}

// Defaults of the FTS5 settings that a bulk load changes (FTS5's own,
// used where a table holds none), the crisismerge of migration 0034 and
// the leaf size of migration 0038.
const (
	ftsPgsz               = 500
	ftsPgszDefault        = 1000
	ftsAutomergeDefault   = 4
	ftsCrisismergeDefault = 16
	ftsCrisismerge        = 64
	// bulkCrisismerge lets level-0 segments pile up during a load, to be
	// merged once at the end.
	bulkCrisismerge = 1000
)

// bulkBegin records and applies the changes of a bulk load, in one
// transaction.
func (s *Store) bulkBegin(ctx context.Context, expectPosts int64) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: bulk: begin: %w", err)
	}
	defer tx.Rollback()
	var stored int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM posts`).Scan(&stored); err != nil {
		return fmt.Errorf("sqlite: bulk: count posts: %w", err)
	}
	record := func(name string, seq int, q string) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO bulk_restore (name, seq, sql) VALUES (?, ?, ?)`, name, seq, q); err != nil {
			return fmt.Errorf("sqlite: bulk: record %s: %w", name, err)
		}
		return nil
	}
	// Forgetting this row is the load's last commit, with
	// synchronous=FULL: its fsync of the log makes every commit of the
	// load durable.
	if err := record("sync", 9, `SELECT 1`); err != nil {
		return err
	}
	if expectPosts <= 0 || 2*expectPosts < stored {
		// A small load next to what is stored: rebuilding indexes or
		// merging the whole full-text index would cost more than it saves.
		return commitBulk(tx)
	}
	ddl, err := postIndexes(ctx, tx)
	if err != nil {
		return err
	}
	for i := 0; i < len(ddl); i += 2 {
		name, q := ddl[i], ddl[i+1]
		if err := record("index "+name, 1, q); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DROP INDEX `+quoteIdent(name)); err != nil {
			return fmt.Errorf("sqlite: bulk: drop index %s: %w", name, err)
		}
	}
	// Full-text indexes (posts_fts, and the trigram post_urls of
	// migration 0005) stop merging during the load and are merged once at
	// the end. posts_fts keeps the step names of loads recorded before.
	// The load and its merge write FTS5's default leaves of 1000 bytes (a
	// long doclist in fewer leaves), the leaves of migration 0038 come
	// back after the merge (step 4), for the small writes that follow.
	for _, t := range ftsIndexes() {
		for _, c := range []struct {
			key            string
			def, bulk, seq int
		}{{"automerge", ftsAutomergeDefault, 0, 2}, {"crisismerge", ftsCrisismergeDefault, bulkCrisismerge, 2},
			{"pgsz", ftsPgszDefault, ftsPgszDefault, 4}} {
			cur, err := ftsSetting(ctx, tx, t.table, c.key, c.def)
			if err != nil {
				return err
			}
			if err := record(t.prefix+" "+c.key, c.seq, ftsSet(t.table, c.key, cur)); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, ftsSet(t.table, c.key, c.bulk)); err != nil {
				return fmt.Errorf("sqlite: bulk: %s %s: %w", t.table, c.key, err)
			}
		}
		if err := record(t.prefix+" merge", 3, `INSERT INTO `+t.table+` (`+t.table+`) VALUES ('optimize')`); err != nil {
			return err
		}
	}
	if err := commitBulk(tx); err != nil {
		return err
	}
	s.log.Info("bulk load: dropped the secondary indexes of posts", "db", s.path, "indexes", len(ddl)/2, "posts", stored)
	return nil
}

// ftsIndex is a full-text index and the prefix of its bulk_restore steps.
type ftsIndex struct{ table, prefix string }

// ftsIndexes are posts_fts and the trigram post_urls of migration 0005;
// posts_fts keeps the step names of loads recorded before.
func ftsIndexes() []ftsIndex {
	return []ftsIndex{{"posts_fts", "fts"}, {"post_urls", "post_urls"}}
}

func commitBulk(tx *sql.Tx) error {
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: bulk: commit: %w", err)
	}
	return nil
}

// postIndexes lists name and DDL of every secondary index of posts.
func postIndexes(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master
		WHERE type = 'index' AND tbl_name = 'posts' AND sql IS NOT NULL ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: bulk: list indexes: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, q string
		if err := rows.Scan(&name, &q); err != nil {
			return nil, fmt.Errorf("sqlite: bulk: list indexes: %w", err)
		}
		out = append(out, name, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: bulk: list indexes: %w", err)
	}
	return out, nil
}

// ftsSetting reads an FTS5 configuration value of a full-text table (def
// when it was never set).
func ftsSetting(ctx context.Context, tx *sql.Tx, table, key string, def int) (int, error) {
	var v int
	err := tx.QueryRowContext(ctx, `SELECT v FROM `+table+`_config WHERE k = ?`, key).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return def, nil
	case err != nil:
		return 0, fmt.Errorf("sqlite: bulk: fts %s: %w", key, err)
	}
	return v, nil
}

func ftsSet(table, key string, v int) string {
	return `INSERT INTO ` + table + ` (` + table + `, rank) VALUES ('` + key + `', ` + strconv.Itoa(v) + `)`
}

func quoteIdent(s string) string {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

// bulkRestore puts back what bulk loads changed: it runs each recorded
// statement and forgets it, one synchronous=FULL transaction per step, so
// that the write lock is never held for the whole rebuild (debits of a
// server on the same file wait for one step at most). An index that
// exists already (another load put it back) is skipped. It reports
// whether there was anything to put back; the caller then moves the
// full-text indexes (liftIndexes: Bulk after its load, Open always).
func (s *Store) bulkRestore(ctx context.Context) (bool, error) {
	start := time.Now()
	rows, err := s.write.QueryContext(ctx, `SELECT name, sql FROM bulk_restore ORDER BY seq, name`)
	if err != nil {
		return false, fmt.Errorf("sqlite: bulk: restore: %w", err)
	}
	var todo [][2]string
	for rows.Next() {
		var name, q string
		if err := rows.Scan(&name, &q); err != nil {
			rows.Close()
			return false, fmt.Errorf("sqlite: bulk: restore: %w", err)
		}
		todo = append(todo, [2]string{name, q})
	}
	if err := rows.Close(); err != nil {
		return false, fmt.Errorf("sqlite: bulk: restore: %w", err)
	}
	for _, step := range todo {
		if err := s.bulkStep(ctx, step[0], step[1]); err != nil {
			return false, err
		}
	}
	if len(todo) > 0 {
		s.log.Info("bulk load: indexes and settings restored", "db", s.path, "steps", len(todo), "took", time.Since(start).Round(time.Millisecond))
	}
	return len(todo) > 0, nil
}

// sortThreads is how many helper threads SQLite's sorter may use when a
// bulk load builds its indexes again.
func sortThreads() int { return min(runtime.NumCPU(), 4) }

// bulkStep runs one recorded statement and forgets it.
func (s *Store) bulkStep(ctx context.Context, name, q string) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: bulk: restore %s: %w", name, err)
	}
	defer tx.Rollback()
	run := true
	if idx, ok := strings.CutPrefix(name, "index "); ok {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?`, idx).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: bulk: restore %s: %w", name, err)
		}
		run = n == 0
		// CREATE INDEX sorts with helper threads: measured at 1M posts,
		// 1.3 s became 0.7–0.9 s per index with two.
		if _, err := tx.ExecContext(ctx, `PRAGMA threads = `+strconv.Itoa(sortThreads())); err != nil {
			return fmt.Errorf("sqlite: bulk: restore %s: threads: %w", name, err)
		}
	}
	if run {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite: bulk: restore %s: %w", name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM bulk_restore WHERE name = ?`, name); err != nil {
		return fmt.Errorf("sqlite: bulk: restore %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: bulk: restore %s: commit: %w", name, err)
	}
	return nil
}

// bulkCheckpointPages: during a bulk load the log is copied into the
// database by the load's own commits when it reaches this many pages
// (other commits: sqliteAutocheckpoint), so that a page written by several
// of the load's transactions is copied once.
const bulkCheckpointPages = 16384

// bulkWriter is the social.Writer of a bulk load.
type bulkWriter struct{ s *Store }

// Write stores a batch in one transaction committed with
// synchronous=NORMAL (see relaxed), a larger log between checkpoints.
func (w bulkWriter) Write(ctx context.Context, b *social.Batch) (st social.WriteStats, err error) {
	err = w.s.relaxed(ctx, bulkCheckpointPages, func(conn *sql.Conn) error {
		st, err = w.s.writeBatch(ctx, conn, b)
		return err
	})
	return st, err
}

// relaxed runs fn on the store's one write connection set to
// synchronous=NORMAL (and the log checkpointed by its commits every
// checkpoint pages; 0: every sqliteAutocheckpoint, as other commits):
// its commits do not wait for an fsync of the log. In WAL mode a process
// crash loses none of them and a power loss can lose the last ones, never
// part of one; the next synchronous=FULL commit (every debit is one) makes
// them durable, the log being written in order. The connection gets
// synchronous=FULL and sqliteAutocheckpoint back before anything else can
// use it.
func (s *Store) relaxed(ctx context.Context, checkpoint int, fn func(conn *sql.Conn) error) error {
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: write: %w", err)
	}
	defer conn.Close()
	if checkpoint == 0 {
		checkpoint = sqliteAutocheckpoint
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = `+strconv.Itoa(checkpoint)); err != nil {
		return fmt.Errorf("sqlite: write: synchronous: %w", err)
	}
	err = fn(conn)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = `+strconv.Itoa(sqliteAutocheckpoint)); rerr != nil {
		// Never hand a connection that does not fsync to debits: drop it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		err = errors.Join(err, fmt.Errorf("sqlite: write: restore synchronous: %w", rerr))
	}
	return err
}
