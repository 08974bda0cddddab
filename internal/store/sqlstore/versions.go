package sqlstore

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// The counters of the versions table (migration: SQLite 0035, PostgreSQL
// 0034). Each moves by one in the transaction of every change of its kind,
// so that a reader holding what it read under a version knows it is still
// current while the counter has not moved.
const (
	// VersionContent moves with every write of data (social.Writer.Write:
	// imports, harvests, gateway fills, living-world ticks, gen and copy).
	VersionContent = "content"
	// VersionKeys moves with every change of a key other than a debit:
	// top-up, revocation, rotation, rate limit, fault plan.
	VersionKeys = "keys"
	// VersionDeletions moves with every write that deletes posts or users
	// (social.Batch.DeletePosts, DeleteUsers): the gateway's pages held in
	// memory are forgotten when it moves.
	VersionDeletions = "deletions"
)

// BumpVersion moves the counter name by one through tx, a DB on the
// transaction of the change.
func BumpVersion(ctx context.Context, tx DB, name string) error {
	if err := tx.Query(ctx, `UPDATE versions SET n = n + 1 WHERE name = ?`, []any{name}, func(Rows) error { return nil }); err != nil {
		return fmt.Errorf("version %s: %w", name, err)
	}
	return nil
}

// VersionsSQL reads the counters as one row of three integers: no text
// to scan, one step (it is read for nearly every paid request).
const VersionsSQL = `SELECT (SELECT n FROM versions WHERE name = '` + VersionContent + `'),
	(SELECT n FROM versions WHERE name = '` + VersionKeys + `'),
	(SELECT n FROM versions WHERE name = '` + VersionDeletions + `')`

// Versions reads the counters in one statement.
func (r Reader) Versions(ctx context.Context) (social.Versions, error) {
	var v social.Versions
	q := VersionsSQL
	if r.Dialect.VersionsSQL != "" {
		q = r.Dialect.VersionsSQL
	}
	err := r.DB.Query(ctx, q, nil, func(row Rows) error {
		return row.Scan(&v.Content, &v.Keys, &v.Deletions)
	})
	if err != nil {
		return social.Versions{}, fmt.Errorf("versions: %w", err)
	}
	return v, nil
}
