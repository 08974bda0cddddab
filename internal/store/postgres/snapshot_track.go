package postgres

import (
	"strings"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// snapshotLock takes the store's snapshots lock exclusively: a save takes
// it to advance the generation, a restore (after the deletions lock) for
// its whole transaction. The tracking triggers take it shared, so that a
// write that read the generation commits before a save's copy begins
// (else its change would be neither in the copy nor dirty for it).
const snapshotLock = `SELECT pg_advisory_xact_lock(hashtext('roost snapshots ' || current_schema()))`

// tracking is PostgreSQL's part of the change tracking of snapshots
// (sqlstore.Tracking): the generation is a sequence, whose last value a
// trigger reads whatever its transaction's snapshot.
var tracking = sqlstore.Tracking{
	ColumnsSQL: columnsSQL,
	InstalledSQL: `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = '` +
		sqlstore.MarksTable + `'`,
	GenDDL:       []string{`CREATE SEQUENCE snapshot_gen`},
	NextGen:      `SELECT nextval('snapshot_gen')`,
	Triggers:     trackTriggers,
	DropTriggers: dropTrackTriggers,
	DropGen:      []string{`DROP SEQUENCE IF EXISTS snapshot_gen`},
	Analyze:      `ANALYZE`,
}

// trackFunction is the name of table's tracking trigger and its function.
func trackFunction(table string) string { return "snapshot_track_" + table }

// trackTriggers create the row trigger that records the keys of the rows
// written in table into dirty, under the current generation.
func trackTriggers(table, dirty string, key []string) []string {
	k := strings.Join(key, ", ")
	record := func(row string) string {
		vals := make([]string, len(key))
		for i, c := range key {
			vals[i] = row + "." + c
		}
		return `INSERT INTO ` + dirty + ` (` + k + `, seq) VALUES (` + strings.Join(vals, ", ") +
			`, (SELECT last_value FROM snapshot_gen)) ON CONFLICT (` + k + `) DO UPDATE SET seq = excluded.seq;`
	}
	fn := trackFunction(table)
	return []string{
		`CREATE FUNCTION ` + fn + `() RETURNS trigger LANGUAGE plpgsql AS $track$
BEGIN
	PERFORM pg_advisory_xact_lock_shared(hashtext('roost snapshots ' || current_schema()));
	IF TG_OP <> 'INSERT' THEN ` + record("OLD") + ` END IF;
	IF TG_OP <> 'DELETE' THEN ` + record("NEW") + ` END IF;
	RETURN NULL;
END $track$`,
		`CREATE TRIGGER ` + fn + ` AFTER INSERT OR UPDATE OR DELETE ON ` + table + ` FOR EACH ROW EXECUTE FUNCTION ` + fn + `()`,
	}
}

// dropTrackTriggers drop table's tracking trigger and its function.
func dropTrackTriggers(table string) []string {
	return []string{`DROP FUNCTION IF EXISTS ` + trackFunction(table) + `() CASCADE`}
}
