package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// versionsReader reads the change counters (sqlstore.VersionsSQL) for
// nearly every paid request. It first looks in each file's log index
// (pageWatch) whether a commit wrote the page of its versions table since
// the counters were last read, which takes no lock and no system call;
// only then does it read them, on a connection of its own (a statement
// prepared once). The read takes no lock a writer holds for long (WAL
// mode), and busy_timeout bounds what it may wait for. Without
// Tuning.ShmIndex it reads the counters every time.
type versionsReader struct {
	db *sql.DB // one connection, query-only

	mu   sync.Mutex
	stmt *sql.Stmt // nil until the first read

	// The versions pages of the database and of the billing file, and
	// the counters last read (while known).
	content, keys pageWatch
	last          social.Versions
	known         bool
	reads         int // counters read from the files (tests)
}

// versionsSQL is sqlstore.VersionsSQL with each counter read from its
// file: 'content' and 'deletions' from the database, 'keys' from the
// billing file.
const versionsSQL = `SELECT (SELECT n FROM main.versions WHERE name = '` + sqlstore.VersionContent + `'),
	(SELECT n FROM billing.versions WHERE name = '` + sqlstore.VersionKeys + `'),
	(SELECT n FROM main.versions WHERE name = '` + sqlstore.VersionDeletions + `')`

// versionPagesSQL is versionsSQL and the page each versions table is on,
// while it is on one page (a few short rows; else NULL, and the counters
// are read every time).
const versionPagesSQL = versionsSQL + `,
	(SELECT rootpage FROM main.sqlite_schema WHERE name = 'versions'
		AND (SELECT count(*) FROM dbstat('main') WHERE name = 'versions') = 1),
	(SELECT rootpage FROM billing.sqlite_schema WHERE name = 'versions'
		AND (SELECT count(*) FROM dbstat('billing') WHERE name = 'versions') = 1)`

func newVersionsReader(path string, t Tuning) (*versionsReader, error) {
	db, err := attached(path, true)
	if err != nil {
		return nil, err
	}
	r := &versionsReader{db: single(db)}
	if t.ShmIndex {
		r.content.shm, r.keys.shm = openShm(path), openShm(BillingPath(path))
	}
	return r, nil
}

// Versions reads the change counters (see social.Versions). ctx is checked
// before the read, not during it.
func (s *Store) Versions(ctx context.Context) (social.Versions, error) {
	if err := ctx.Err(); err != nil {
		return social.Versions{}, fmt.Errorf("sqlite: versions: %w", err)
	}
	return s.versions.read()
}

func (r *versionsReader) read() (social.Versions, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known && r.content.unchanged() && r.keys.unchanged() {
		return r.last, nil
	}
	r.known = false
	hc, okc := r.content.mark()
	hk, okk := r.keys.mark()
	v, pages, err := r.readFiles()
	if err != nil {
		return social.Versions{}, err
	}
	r.content.settle(hc, pages[0], okc)
	r.keys.settle(hk, pages[1], okk)
	r.last, r.known = v, true
	return v, nil
}

// readFiles reads the counters and, when a log index is watched, the
// versions tables' pages.
func (r *versionsReader) readFiles() (social.Versions, [2]uint32, error) {
	r.reads++
	var pages [2]uint32
	var v social.Versions
	ctx := context.Background()
	if r.stmt == nil {
		st, err := r.db.PrepareContext(ctx, r.sql())
		if err != nil {
			return v, pages, fmt.Errorf("sqlite: versions: %w", err)
		}
		r.stmt = st
	}
	var p [2]sql.NullInt64
	dest := []any{&v.Content, &v.Keys, &v.Deletions, &p[0], &p[1]}
	if r.sql() == versionsSQL {
		dest = dest[:3]
	}
	if err := r.stmt.QueryRowContext(ctx).Scan(dest...); err != nil {
		return social.Versions{}, pages, fmt.Errorf("sqlite: versions: %w", err)
	}
	for i := range pages {
		if p[i].Valid && p[i].Int64 > 0 && p[i].Int64 <= math.MaxUint32 {
			pages[i] = uint32(p[i].Int64)
		}
	}
	return v, pages, nil
}

// sql is the query of the counters: with the pages of the versions
// tables when a log index is watched (dbstat is not free), else alone.
func (r *versionsReader) sql() string {
	if r.content.shm == nil && r.keys.shm == nil {
		return versionsSQL
	}
	return versionPagesSQL
}

// close releases the reader's connection.
func (r *versionsReader) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stmt != nil {
		r.stmt.Close()
		r.stmt = nil
	}
	r.known = false
	r.content.shm.close()
	r.keys.shm.close()
	r.content.shm, r.keys.shm = nil, nil
	return r.db.Close()
}
