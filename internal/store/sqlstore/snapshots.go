package sqlstore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// WorldTables are the tables of the world that both engines hold, in the
// order a snapshot copies them: everything a reader of the API, search
// and research sees, the tombstones of deletions, what the gateway
// fetched, and the world row (the living world's seed, tick and clock).
// Left out, and so never changed by a restore: keys, credits, the ledger,
// idempotency and rate buckets (the money, append-only), monitors,
// webhooks and their events and deliveries (the user's configuration and
// history), the change log and its cursor, the gateway's pages (emptied
// by a restore instead), the version counters (moved by a restore) and
// the migrations. An engine adds its own derived tables (SQLite: its FTS5
// indexes' tables).
var WorldTables = []string{
	"users", "posts", "post_mentions", "post_tags", "follows", "reposts", "likes", "affiliations", "highlights",
	"lists", "list_members", "list_subscribers", "communities", "community_members", "spaces", "space_participants",
	"search_time_outliers", "tombstones", "gateway_fetched", "world",
}

// MaxSnapshotName is the longest snapshot name.
const MaxSnapshotName = 32

var snapshotName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// CheckSnapshotName refuses (social.ErrInvalid) a name that is not 1 to
// MaxSnapshotName lower-case letters, digits, '_' or '-', beginning with
// a letter or digit: a name each engine can use as a file or schema name.
func CheckSnapshotName(name string) error {
	if len(name) == 0 || len(name) > MaxSnapshotName || !snapshotName.MatchString(name) {
		return fmt.Errorf("snapshot name %q: want 1 to %d lower-case letters, digits, _ or -, beginning with a letter or digit: %w",
			name, MaxSnapshotName, social.ErrInvalid)
	}
	return nil
}

// SnapshotInfoTable is the table of one row that each snapshot holds
// beside its copies: its name, time, counts and the schema's migration.
const SnapshotInfoTable = "snapshot_info"

// SnapshotInfoDDL creates the info table in schema (an engine's qualifier
// of the snapshot's copies: an attached file, a PostgreSQL schema).
func SnapshotInfoDDL(schema string) string {
	return `CREATE TABLE ` + schema + `.` + SnapshotInfoTable + ` (name TEXT NOT NULL, created_at BIGINT NOT NULL,
		users BIGINT NOT NULL, posts BIGINT NOT NULL, migration BIGINT NOT NULL)`
}

// WriteSnapshotInfo records a snapshot's info in schema through tx, a DB
// on the transaction that copied the world into it, counting what it
// copied.
func WriteSnapshotInfo(ctx context.Context, tx DB, schema, name string, at time.Time) (social.Snapshot, error) {
	snap := social.Snapshot{Name: name, CreatedAt: at.UTC().Truncate(time.Microsecond)}
	err := tx.Query(ctx, `INSERT INTO `+schema+`.`+SnapshotInfoTable+` (name, created_at, users, posts, migration)
		SELECT ?, ?, (SELECT count(*) FROM `+schema+`.users), (SELECT count(*) FROM `+schema+`.posts),
			(SELECT max(version) FROM schema_migrations)
		RETURNING users, posts`, []any{name, snap.CreatedAt.UnixMicro()}, func(r Rows) error {
		return r.Scan(&snap.Users, &snap.Posts)
	})
	if err != nil {
		return snap, fmt.Errorf("snapshot %s: info: %w", name, err)
	}
	return snap, nil
}

// ReadSnapshotInfo reads the info of the snapshot in schema, and refuses
// (social.ErrConflict) one taken under another migration of the schema
// than the database's: its tables would not match.
func ReadSnapshotInfo(ctx context.Context, db DB, schema string) (social.Snapshot, error) {
	var snap social.Snapshot
	var at, migration, current int64
	err := db.Query(ctx, `SELECT name, created_at, users, posts, migration, (SELECT max(version) FROM schema_migrations)
		FROM `+schema+`.`+SnapshotInfoTable, nil, func(r Rows) error {
		return r.Scan(&snap.Name, &at, &snap.Users, &snap.Posts, &migration, &current)
	})
	if err != nil {
		return snap, fmt.Errorf("snapshot info: %w", err)
	}
	if snap.Name == "" {
		return snap, fmt.Errorf("snapshot info: no row in %s: %w", schema, social.ErrNotFound)
	}
	snap.CreatedAt = time.UnixMicro(at).UTC()
	if migration != current {
		return snap, fmt.Errorf("snapshot %s was saved under migration %d of the schema, and the database is at %d: "+
			"drop it and save it again: %w", snap.Name, migration, current, social.ErrConflict)
	}
	return snap, nil
}

// AfterRestore is what a restore does besides copying, through tx, a DB on
// its transaction: the gateway's stored pages (answers of a world that is
// gone) are emptied, and the content and deletions counters move, so
// that the page cache, the gateway's memory and every cache keyed by the
// counters forget what they held.
func AfterRestore(ctx context.Context, tx DB) error {
	if err := tx.Query(ctx, `DELETE FROM gateway_pages`, nil, func(Rows) error { return nil }); err != nil {
		return fmt.Errorf("restore: empty the gateway's pages: %w", err)
	}
	for _, v := range []string{VersionContent, VersionDeletions} {
		if err := BumpVersion(ctx, tx, v); err != nil {
			return fmt.Errorf("restore: %w", err)
		}
	}
	return nil
}

// restoreByDiff puts tables back as the snapshot in schema from holds
// them, through tx, a DB on the restore's transaction: the restore of a
// snapshot without a mark (see Tracking), which reads every row of the
// world and of the snapshot. columnsSQL is the engine's query of a
// table's columns (its one argument is the table's name): each row a
// column's name and its place in the primary key (0: not in it), in the
// table's order.
//
// Each table is restored by its differences: the rows of the database
// with no identical row in the snapshot (the same key and every column
// not distinct) are deleted, then the snapshot's rows whose key the
// database lacks are inserted. Both statements walk the two tables by
// the primary key, so the restore writes only what changed; triggers
// fire for what is written, and the tables they keep are restored after
// the tables they watch. A table without a primary key is emptied and
// copied whole.
func restoreByDiff(ctx context.Context, tx DB, from string, tables []string, columnsSQL string) error {
	for _, t := range tables {
		all, key, err := tableColumns(ctx, tx, columnsSQL, t)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		if err := restoreTable(ctx, tx, from, t, all, key); err != nil {
			return fmt.Errorf("restore %s: %w", t, err)
		}
	}
	return nil
}

// restoreTable restores table from its copy in schema from (see
// restoreByDiff).
func restoreTable(ctx context.Context, tx DB, from, table string, all, key []string) error {
	none := func(Rows) error { return nil }
	if len(key) == 0 {
		if err := tx.Query(ctx, `DELETE FROM `+table, nil, none); err != nil {
			return err
		}
		return tx.Query(ctx, `INSERT INTO `+table+` SELECT * FROM `+from+`.`+table, nil, none)
	}
	var same, keyed []string
	for _, c := range key {
		keyed = append(keyed, `s.`+c+` = m.`+c)
	}
	same = append(same, keyed...)
	for _, c := range all {
		if !slices.Contains(key, c) {
			same = append(same, `s.`+c+` IS NOT DISTINCT FROM m.`+c)
		}
	}
	if err := tx.Query(ctx, `DELETE FROM `+table+` AS m WHERE NOT EXISTS (SELECT 1 FROM `+from+`.`+table+` AS s WHERE `+
		strings.Join(same, ` AND `)+`)`, nil, none); err != nil {
		return fmt.Errorf("delete what differs: %w", err)
	}
	cols := strings.Join(all, ", ")
	if err := tx.Query(ctx, `INSERT INTO `+table+` (`+cols+`) SELECT `+strings.Join(prefixed("s.", all), ", ")+` FROM `+
		from+`.`+table+` AS s WHERE NOT EXISTS (SELECT 1 FROM `+table+` AS m WHERE `+strings.Join(keyed, ` AND `)+`)`,
		nil, none); err != nil {
		return fmt.Errorf("insert what is missing: %w", err)
	}
	return nil
}

func prefixed(p string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = p + c
	}
	return out
}

// sortByPlace orders key by places (insertion sort: a key has a few
// columns).
func sortByPlace(key []string, places []int) {
	for i := 1; i < len(key); i++ {
		for j := i; j > 0 && places[j] < places[j-1]; j-- {
			key[j], key[j-1] = key[j-1], key[j]
			places[j], places[j-1] = places[j-1], places[j]
		}
	}
}
