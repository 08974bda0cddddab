package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// writeStmts keeps the statements of batch writes prepared on the one
// write connection across transactions, so that a write of a few pages
// (a harvest step, a tick of the living world, a gateway fill) does not
// parse its SQL again each time. A statement first met inside a
// transaction is prepared for that transaction alone and noted; the noted
// ones are prepared on the connection for good, up to maxWriteStmts, at
// the start of the next write, while the connection is free. Statement
// texts vary only by their number of rows, which rowChunks keeps to a few
// sizes.
type writeStmts struct {
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt // prepared on the write pool's connection
	pending map[string]bool      // met in a transaction, not prepared yet
}

// maxWriteStmts bounds the statements kept prepared.
const maxWriteStmts = 512

// get returns the statement for q prepared on the write connection, or
// nil (and notes q) when there is none yet.
func (c *writeStmts) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[q]; ok {
		return st
	}
	if c.stmts != nil && len(c.stmts)+len(c.pending) < maxWriteStmts {
		if c.pending == nil {
			c.pending = map[string]bool{}
		}
		c.pending[q] = true
	}
	return nil
}

// prepare prepares the noted statements on db, the write pool; it must be
// called with its connection free (no transaction or Conn held by the
// caller), else it waits for it. It holds no lock while it waits, so a
// write in progress can still look statements up. A statement that fails
// to prepare is left out: the next write prepares it in its transaction
// again and reports the error.
func (c *writeStmts) prepare(ctx context.Context, db *sql.DB) {
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	qs := make([]string, 0, len(c.pending))
	for q := range c.pending {
		qs = append(qs, q)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, q := range qs {
		st, err := db.PrepareContext(ctx, q)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if _, dup := c.stmts[q]; dup || c.stmts == nil {
			st.Close()
		} else {
			c.stmts[q] = st
		}
		c.mu.Unlock()
	}
}

// close closes every statement; later gets return nil and note nothing.
func (c *writeStmts) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts, c.pending = nil, nil
}

// rowChunks splits n rows into statement sizes: as many of chunk as fit,
// then the rest as descending powers of two, so that statements of up to
// chunk rows come in at most a dozen sizes (texts the cache can keep).
func rowChunks(n, chunk int) []int {
	var out []int
	for ; n >= chunk; n -= chunk {
		out = append(out, chunk)
	}
	for p := 1 << 30; n > 0; p >>= 1 {
		if n >= p {
			out = append(out, p)
			n -= p
		}
	}
	return out
}
