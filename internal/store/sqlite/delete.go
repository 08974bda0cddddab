package sqlite

import (
	"context"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// deleter is SQLite's side of deletions: one writer, so no lock; a
// deleted post's full-text rows and post_hashtags row go with it.
var deleter = sqlstore.Deleter{Unindex: unindexDeleted}

// unindexStatements delete the full-text and post_hashtags rows of
// deleted posts (ids padded: sqlstore.Padded).
var unindexStatements = []string{
	`DELETE FROM posts_fts WHERE rowid IN ` + sqlstore.InList,
	`DELETE FROM post_urls WHERE rowid IN ` + sqlstore.InList,
	`DELETE FROM post_hashtags WHERE id IN ` + sqlstore.InList,
}

func unindexDeleted(ctx context.Context, tx sqlstore.DB, ids []any) error {
	for _, q := range unindexStatements {
		if err := tx.Query(ctx, q, ids, func(sqlstore.Rows) error { return nil }); err != nil {
			return err
		}
	}
	return nil
}
