package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"

	sqlite3 "modernc.org/sqlite"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// tracking is SQLite's part of the change tracking of snapshots
// (sqlstore.Tracking): the generation is the one row of snapshot_gen,
// which writers, one at a time, read in their triggers; a save advances
// it in a transaction of its own before its copy begins, so that every
// write under an older generation committed before the copy read the
// database. The FTS5 indexes' tables are not tracked (a trigger on them
// would run inside FTS5's own writes, whose statement savepoint makes
// FTS5 write again, without end): a tracked restore takes the restored
// posts out of the indexes and puts them in again as the writer does
// (reindexPosts), so the indexes hold what the snapshot's did, in
// segments of their own.
var tracking = sqlstore.Tracking{
	ColumnsSQL:   columnsSQL,
	InstalledSQL: `SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = '` + sqlstore.MarksTable + `'`,
	GenDDL: []string{
		`CREATE TABLE snapshot_gen (id INTEGER PRIMARY KEY CHECK (id = 1), gen INTEGER NOT NULL)`,
		`INSERT INTO snapshot_gen (id, gen) VALUES (1, 0)`,
	},
	NextGen:      `UPDATE snapshot_gen SET gen = gen + 1 WHERE id = 1 RETURNING gen`,
	Triggers:     trackTriggers,
	DropTriggers: dropTrackTriggers,
	DropGen:      []string{`DROP TABLE IF EXISTS snapshot_gen`},
	Derived:      ftsTables,
	Reindex:      reindexPosts,
}

// fnLower is roost_lower(text): Go's strings.ToLower, as the writer
// lower-cases the rows of post_urls.
const fnLower = "roost_lower"

func init() {
	sqlite3.MustRegisterDeterministicScalarFunction(fnLower, 1, func(_ *sqlite3.FunctionContext, args []driver.Value) (driver.Value, error) {
		s, _ := textArg(args[0])
		return strings.ToLower(s), nil
	})
}

// reindexStatements re-index the posts written since a mark (each
// statement's one argument), once posts holds the snapshot's rows: out
// of both full-text indexes, then in again with the rows the writer
// makes of them (write_posts.go), in rowid order.
var reindexStatements = func() []string {
	dirty := `(` + sqlstore.DirtySince("posts", "id") + `)`
	return []string{
		`DELETE FROM posts_fts WHERE rowid IN ` + dirty,
		`DELETE FROM post_urls WHERE rowid IN ` + dirty,
		`INSERT INTO posts_fts (rowid, text, urls) SELECT id, ` + fnFTSText + `(text, id, created_at, flags), ` +
			fnFTSURLs + `(entities) FROM posts WHERE id IN ` + dirty + ` ORDER BY id`,
		`INSERT INTO post_urls (rowid, urls) SELECT id, ` + fnLower + `(u) FROM (SELECT id, ` + fnFTSURLs +
			`(entities) AS u FROM posts WHERE id IN ` + dirty + `) WHERE u <> '' ORDER BY id`,
	}
}()

// reindexPosts re-indexes the posts written since mark (sqlstore.Tracking.Reindex).
func reindexPosts(ctx context.Context, tx sqlstore.DB, mark int64) error {
	for _, q := range reindexStatements {
		if err := tx.Query(ctx, q, []any{mark}, func(sqlstore.Rows) error { return nil }); err != nil {
			return fmt.Errorf("re-index the posts: %w", err)
		}
	}
	return nil
}

// trackEvents are the suffixes of a table's tracking triggers, and the
// rows each records.
var trackEvents = []struct {
	suffix, event string
	rows          []string
}{
	{"_i", "INSERT", []string{"NEW"}},
	{"_u", "UPDATE", []string{"OLD", "NEW"}},
	{"_d", "DELETE", []string{"OLD"}},
}

// trackTriggers create the triggers that record the keys of the rows
// written in table into dirty, under the current generation.
func trackTriggers(table, dirty string, key []string) []string {
	k := strings.Join(key, ", ")
	record := func(row string) string {
		vals := make([]string, len(key))
		for i, c := range key {
			vals[i] = row + "." + c
		}
		return `INSERT INTO ` + dirty + ` (` + k + `, seq) VALUES (` + strings.Join(vals, ", ") +
			`, (SELECT gen FROM snapshot_gen)) ON CONFLICT (` + k + `) DO UPDATE SET seq = excluded.seq; `
	}
	var out []string
	for _, e := range trackEvents {
		body := ""
		for _, r := range e.rows {
			body += record(r)
		}
		out = append(out, `CREATE TRIGGER `+dirty+e.suffix+` AFTER `+e.event+` ON `+table+` BEGIN `+body+`END`)
	}
	return out
}

// dropTrackTriggers drop table's tracking triggers.
func dropTrackTriggers(table string) []string {
	var out []string
	for _, e := range trackEvents {
		out = append(out, `DROP TRIGGER IF EXISTS main.`+sqlstore.DirtyTable(table)+e.suffix)
	}
	return out
}

// forgetLostSnapshots drops the marks of snapshots whose files are gone
// (a copy of the database made by Backup or cp, without its snapshots'
// directory; files deleted by hand), and so stops tracking when none is
// left: writes would otherwise pay for snapshots no one can restore.
func (s *Store) forgetLostSnapshots(ctx context.Context) error {
	q := sqlDB(s.write.QueryContext)
	on, err := tracking.Tracked(ctx, q)
	if err != nil || !on {
		return err
	}
	var lost []string
	if err := q.Query(ctx, `SELECT name FROM `+sqlstore.MarksTable, nil, func(r sqlstore.Rows) error {
		var name string
		if err := r.Scan(&name); err != nil {
			return err
		}
		if _, err := os.Stat(s.snapshotFile(name)); errors.Is(err, os.ErrNotExist) {
			lost = append(lost, name)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("snapshot marks: %w", err)
	}
	if len(lost) == 0 {
		return nil
	}
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("snapshot marks: %w", unavailable(err))
	}
	defer conn.Close()
	return inConnTx(ctx, conn, func(tx sqlstore.DB) error {
		for _, name := range lost {
			if err := tracking.Forget(ctx, tx, name, snapshotTables()); err != nil {
				return err
			}
		}
		return nil
	})
}
