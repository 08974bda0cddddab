package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// How often the checkpointer copies the log into the database file: the
// billing file's often (a small file whose pages every debit writes
// again, so that a copy writes few of them), the database's every second.
// A copy of the database's log writes pages all over a large file (a
// tick of the living world changes some 25, most of them far apart) and
// syncs them in one burst that the disk serves before a debit's sync
// that comes after it: every burst delays the paid pages of its moment,
// so fewer, larger ones delay fewer pages (`roost bench --live 200/s`,
// 1M posts: debit wait p99 <= 2.88 ms at 200 ms, <= 1.92 ms at 1 s with
// 1,000 monitors; <= 1.92 and <= 1.28 ms with the world alone).
const (
	billingCheckpointEvery  = 200 * time.Millisecond
	databaseCheckpointEvery = time.Second
)

// restartFrames is how long the log may grow before the checkpointer makes
// it start over (see restart): 16,384 frames, 64 MiB of 4 KiB pages. A
// read of a page not in the log searches one hash table of the log's index
// per 4,096 frames; a restart holds the writers for a few milliseconds
// (tens when the disk is busy), so it is kept rare.
const restartFrames = 16384

// restartWait bounds how long a restart waits for readers still reading
// the log (the writers wait with it), and restartBackoff how long the
// checkpointer leaves the log alone after a restart that readers outlasted.
const (
	restartWait    = 2 * time.Millisecond
	restartBackoff = time.Second
)

// checkpointer copies the write-ahead log into the database file in the
// background, on a connection of its own, so that no commit of the write
// connection (a debit batch, a living-world tick, an import) pays for a
// checkpoint: that connection runs with wal_autocheckpoint=0, except
// during a bulk load, which checkpoints in its own commits every
// bulkCheckpointPages (a page its transactions write again and again is
// copied once) while the checkpointer is paused. A PASSIVE checkpoint
// never waits for a writer or a reader; it copies what no reader still
// needs. The log starts over only when a writer begins with all of it
// copied and no reader in it, which steady writes (a debit every few
// hundred microseconds under load) never leave room for: the log then grew
// without end (600 MB in 40 s of paid pages on a 48 MB database), and every
// read of a page not in the database file searched more of its index. So
// once a PASSIVE checkpoint has copied a log of restartFrames or more, and
// a second one what was written meanwhile, a RESTART checkpoint runs on the
// write connection, between two of its transactions (polling for SQLite's
// write lock, it lost to writes back to back): it copies the rest and waits up to restartWait for the readers
// still in the log, the writers waiting with it, and the next write starts
// the log over. Readers that outlast the wait (a long research query) leave
// the log as it is for restartBackoff.
type checkpointer struct {
	db    *sql.DB
	write *sql.DB // the store's write connection, for restarts
	log   *slog.Logger

	every time.Duration // between two checkpoints
	// restartFrames is the package's restartFrames (tests lower it);
	// waitUntil is when a restart may next be tried.
	restartFrames int
	waitUntil     time.Time

	mu     sync.Mutex
	paused int // bulk loads running
	// ran is told of each checkpoint that copied frames: frames in the log
	// and frames copied (tests); restarted of each RESTART checkpoint and
	// whether the readers left the log in time.
	ran       func(logFrames, copied int)
	restarted func(ok bool)

	done, stopped chan struct{}
}

func newCheckpointer(path string, write *sql.DB, every time.Duration, log *slog.Logger) (*checkpointer, error) {
	db, err := openOne(dsn(path, false))
	if err != nil {
		return nil, err
	}
	c := &checkpointer{db: db, write: write, log: log, every: every, restartFrames: restartFrames, done: make(chan struct{}), stopped: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	t := time.NewTicker(c.every)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		c.mu.Lock()
		paused, ran, restarted := c.paused > 0, c.ran, c.restarted
		c.mu.Unlock()
		if !paused && c.checkpoint(ran) {
			// Copy again what was written during the first copy, so
			// that the restart, which holds the writers, copies and
			// syncs little.
			c.checkpoint(ran)
			c.restart(restarted)
		}
	}
}

// checkpoint runs one PASSIVE checkpoint and reports whether the log is
// due to start over: restartFrames or more, all copied.
func (c *checkpointer) checkpoint(ran func(logFrames, copied int)) bool {
	var busy, logFrames, copied int
	err := c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	if err != nil {
		c.failed("checkpoint", err)
		return false
	}
	if ran != nil && copied > 0 {
		ran(logFrames, copied)
	}
	return logFrames >= c.restartFrames && time.Now().After(c.waitUntil)
}

// restart runs a RESTART checkpoint on the write connection, held for it
// alone, waiting at most restartWait for the readers in the log (the
// connection's busy handler: its busy_timeout, set back after).
func (c *checkpointer) restart(restarted func(ok bool)) {
	// A write connection held for long (an import's transaction) is
	// left to it: the next round tries again, and closing the store never
	// waits for a restart stuck behind it.
	acquire, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn, err := c.write.Conn(acquire)
	if err != nil {
		c.failed("restart", err)
		return
	}
	ctx := context.Background()
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, restartWait.Milliseconds())); err != nil {
		c.failed("restart", err)
		return
	}
	var busy, logFrames, copied int
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logFrames, &copied)
	if _, rerr := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout.Milliseconds())); rerr != nil {
		// A write connection that would give up on locks after
		// restartWait must not serve writes: the pool opens another.
		conn.Raw(func(any) error { return driver.ErrBadConn }) //nolint:errcheck // it only reports ErrBadConn
		if err == nil {
			err = rerr
		}
	}
	ok := err == nil && busy == 0
	if !ok {
		c.waitUntil = time.Now().Add(restartBackoff)
	}
	if err != nil {
		c.failed("restart", err)
	}
	if restarted != nil {
		restarted(ok)
	}
}

// failed logs a checkpoint that failed. Another process's checkpoint or
// writer holding the log is no failure: the next round copies what is
// left.
func (c *checkpointer) failed(what string, err error) {
	level := slog.LevelWarn
	if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "locked") || errors.Is(err, context.DeadlineExceeded) {
		level = slog.LevelDebug
	}
	c.log.Log(context.Background(), level, "sqlite: "+what, "err", err)
}

// pause stops checkpoints until resume (a bulk load checkpoints itself).
func (c *checkpointer) pause() {
	c.mu.Lock()
	c.paused++
	c.mu.Unlock()
}

func (c *checkpointer) resume() {
	c.mu.Lock()
	c.paused--
	c.mu.Unlock()
}

// close stops the checkpointer and closes its connection.
func (c *checkpointer) close() error {
	close(c.done)
	<-c.stopped
	return c.db.Close()
}
