package sqlite

import (
	"database/sql"
	"encoding/binary"
	"fmt"
	"sync"

	"modernc.org/libc"
	"modernc.org/libc/sys/types"
	lib "modernc.org/sqlite/lib"
)

// Page cache memory. SQLite throws a connection's cached pages away
// whenever another connection has committed since its last read (WAL
// offers no finer invalidation), and a paid request commits its debit: so
// nearly every read starts with an empty cache and fetches each page it
// touches again. Left to itself, SQLite allocates those pages one by one,
// and the driver's allocator maps a fresh block for each page (it is
// larger than its small-object slots) and unmaps it when the cache is
// emptied: a page fault and two system calls a page, 40 % of a search's
// time under load. pagePool gives SQLite one pool of page slots for the
// process instead (SQLITE_CONFIG_PAGECACHE): a page taken from the pool
// goes back to it when a cache is emptied and is reused as is. Pages that
// do not fit a slot (a database with pages larger than 4 KiB) or find the
// pool empty are allocated as before: the pool changes speed, never
// behaviour.
const (
	// pagePoolBytes is the pool's size: about 15,000 pages of 4 KiB,
	// shared by every connection of the process. SQLite writes a link
	// into each slot when the pool is installed, so this much memory is
	// resident from the first Open on.
	pagePoolBytes = 64 << 20
	// pagePoolPageSize is the database page size the slots hold (SQLite's
	// default, which roost's databases use).
	pagePoolPageSize = 4096
)

// pagePool is installed once per process, before SQLite's first
// connection: SQLite's configuration is process-wide and refuses changes
// once it is initialized, so this is state of the process, not of a
// Store.
var pagePool struct {
	once      sync.Once
	err       error // why the pool could not be installed
	installed bool  // SQLite took it (tests)
}

// openDB opens a database handle of the package.
func openDB(dsn string) (*sql.DB, error) { return sql.Open("sqlite", dsn) }

// usePagePool hands SQLite the page pool once, before its first
// connection (Tuning.PagePool: OpenOptions calls it first), and reports
// why it could not.
func usePagePool() error {
	pagePool.once.Do(func() {
		pagePool.err = installPagePool()
		pagePool.installed = pagePool.err == nil
	})
	return pagePool.err
}

// openOne is openDB with exactly one connection, kept open for good: the
// write connections and the checkpointers'.
func openOne(dsn string) (*sql.DB, error) {
	db, err := openDB(dsn)
	if err != nil {
		return nil, err
	}
	return single(db), nil
}

// single makes db hold exactly one connection, kept open for good.
func single(db *sql.DB) *sql.DB {
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	return db
}

// installPagePool hands SQLite the pool's memory. It fails, leaving
// SQLite's own allocation in place, when something in the process opened
// a SQLite connection before this package did.
func installPagePool() error {
	tls := libc.NewTLS()
	defer tls.Close()
	va := libc.Xmalloc(tls, types.Size_t(3*8)) // room for three arguments
	defer libc.Xfree(tls, va)                  // free(0) does nothing
	hdr := libc.Xcalloc(tls, 1, types.Size_t(8))
	defer libc.Xfree(tls, hdr)
	if va == 0 || hdr == 0 {
		return fmt.Errorf("sqlite: page pool: out of memory")
	}
	// The bytes a slot needs beyond the page: SQLite's headers of it.
	if rc := lib.Xsqlite3_config(tls, lib.SQLITE_CONFIG_PCACHE_HDRSZ, libc.VaList(va, hdr)); rc != lib.SQLITE_OK {
		return fmt.Errorf("sqlite: page pool: SQLITE_CONFIG_PCACHE_HDRSZ: code %d", rc)
	}
	size := pagePoolPageSize + int(binary.NativeEndian.Uint32(libc.GoBytes(hdr, 4)))
	size = (size + 7) &^ 7 // slots are 8-byte aligned
	slots := pagePoolBytes / size
	// The pool lives as long as the process: SQLite keeps using it.
	mem := libc.Xmalloc(tls, types.Size_t(size*slots))
	if mem == 0 {
		return fmt.Errorf("sqlite: page pool: out of memory for %d bytes", size*slots)
	}
	if rc := lib.Xsqlite3_config(tls, lib.SQLITE_CONFIG_PAGECACHE, libc.VaList(va, mem, int32(size), int32(slots))); rc != lib.SQLITE_OK {
		libc.Xfree(tls, mem)
		return fmt.Errorf("sqlite: page pool: SQLITE_CONFIG_PAGECACHE: code %d (SQLite was initialized before roost opened a database)", rc)
	}
	return nil
}
