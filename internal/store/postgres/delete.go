package postgres

import "github.com/roostapi/roost/internal/store/sqlstore"

// deleter is PostgreSQL's side of deletions. Writers run at once, so a
// transaction that deletes holds a transaction-level advisory lock
// exclusively, and one that writes takes it shared before it reads the
// tombstones (roost_tombstones_guard, migration 0037: the lock and the
// read in one round trip, the read seeing what the lock waited for): a
// write that found no tombstone for a post commits before the post's
// deletion begins, or waits for it to commit and then finds its
// tombstone. A deleted post's tsvectors are in its row: nothing else to
// unindex.
var deleter = sqlstore.Deleter{
	Lock:  `SELECT pg_advisory_xact_lock(hashtext('roost deletions ' || current_schema()))`,
	Probe: `SELECT roost_tombstones_guard()`,
}
