package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"sync"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
)

// versionsReader reads the change counters (sqlstore.VersionsSQL) for
// nearly every paid request, on a connection of its own and through the
// driver directly: no pool, no conversion of arguments, and no watcher
// of the context (the driver starts one for each statement run under a
// context that can end). The read takes no lock a writer holds for long
// (WAL mode), and busy_timeout bounds what it may wait for.
type versionsReader struct {
	db *sql.DB // one connection, query-only

	mu   sync.Mutex
	conn *sql.Conn   // nil until the first read, and after a failed one
	stmt driver.Stmt // prepared on conn
	row  [2]driver.Value
}

// versionsSQL is sqlstore.VersionsSQL with each counter read from its
// file: 'content' from the database, 'keys' from the billing file.
const versionsSQL = `SELECT (SELECT n FROM main.versions WHERE name = '` + sqlstore.VersionContent + `'),
	(SELECT n FROM billing.versions WHERE name = '` + sqlstore.VersionKeys + `')`

func newVersionsReader(path string) (*versionsReader, error) {
	db, err := attached(path, true)
	if err != nil {
		return nil, err
	}
	return &versionsReader{db: single(db)}, nil
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
	ctx := context.Background()
	if r.conn == nil {
		conn, err := r.db.Conn(ctx)
		if err != nil {
			return social.Versions{}, fmt.Errorf("sqlite: versions: %w", err)
		}
		r.conn = conn
	}
	var v social.Versions
	err := r.conn.Raw(func(dc any) error {
		if r.stmt == nil {
			p, ok := dc.(driver.ConnPrepareContext)
			if !ok {
				return fmt.Errorf("driver connection %T cannot prepare", dc)
			}
			st, err := p.PrepareContext(ctx, versionsSQL)
			if err != nil {
				return err
			}
			r.stmt = st
		}
		q, ok := r.stmt.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("driver statement %T cannot query", r.stmt)
		}
		rows, err := q.QueryContext(ctx, nil)
		if err != nil {
			return err
		}
		err = rows.Next(r.row[:])
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		var okc, okk bool
		v.Content, okc = r.row[0].(int64)
		v.Keys, okk = r.row[1].(int64)
		if !okc || !okk {
			return fmt.Errorf("counters read as %T and %T", r.row[0], r.row[1])
		}
		return nil
	})
	if err != nil {
		r.reset()
		return social.Versions{}, fmt.Errorf("sqlite: versions: %w", err)
	}
	return v, nil
}

// reset drops the connection and its statement after a failed read: the
// next read starts on a fresh one.
func (r *versionsReader) reset() {
	if r.stmt != nil {
		st := r.stmt
		r.conn.Raw(func(any) error { return st.Close() }) //nolint:errcheck // its connection goes too
		r.stmt = nil
	}
	if r.conn != nil {
		r.conn.Close() //nolint:errcheck // nothing was written on it
		r.conn = nil
	}
}

// close releases the reader's connection.
func (r *versionsReader) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reset()
	return r.db.Close()
}
