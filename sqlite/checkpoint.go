package sqlite

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// checkpointEvery is how often the checkpointer copies the log into the
// database file.
const checkpointEvery = 200 * time.Millisecond

// checkpointer copies the write-ahead log into the database file in the
// background, on a connection of its own, so that no commit of the write
// connection (a debit batch, a living-world tick, an import) pays for a
// checkpoint: that connection runs with wal_autocheckpoint=0, except
// during a bulk load, which checkpoints in its own commits every
// bulkCheckpointPages (a page its transactions write again and again is
// copied once) while the checkpointer is paused. A PASSIVE checkpoint
// never waits for a writer or a reader; it copies what no reader still
// needs, and the log starts over once all of it is copied.
type checkpointer struct {
	db  *sql.DB
	log *slog.Logger

	mu     sync.Mutex
	paused int // bulk loads running
	// ran is told of each checkpoint that copied frames: frames in the log
	// and frames copied (tests).
	ran func(logFrames, copied int)

	done, stopped chan struct{}
}

func newCheckpointer(path string, log *slog.Logger) (*checkpointer, error) {
	db, err := openDB(dsn(path, false))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	c := &checkpointer{db: db, log: log, done: make(chan struct{}), stopped: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		c.mu.Lock()
		paused, ran := c.paused > 0, c.ran
		c.mu.Unlock()
		if !paused {
			c.checkpoint(ran)
		}
	}
}

// checkpoint runs one PASSIVE checkpoint.
func (c *checkpointer) checkpoint(ran func(logFrames, copied int)) {
	var busy, logFrames, copied int
	err := c.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied)
	if err != nil {
		// Another process's checkpoint holding the log is no failure:
		// the next round copies what is left.
		level := slog.LevelWarn
		if strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "locked") {
			level = slog.LevelDebug
		}
		c.log.Log(context.Background(), level, "sqlite: checkpoint", "err", err)
		return
	}
	if ran != nil && copied > 0 {
		ran(logFrames, copied)
	}
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
