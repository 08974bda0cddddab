package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// sqlDB runs sqlstore's queries through a query function: the read pool's
// statement cache, or the write connection.
type sqlDB func(ctx context.Context, query string, args ...any) (*sql.Rows, error)

// Query runs query and calls each for every row.
func (q sqlDB) Query(ctx context.Context, query string, args []any, each func(sqlstore.Rows) error) error {
	rows, err := q(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("sqlite: query: %w", unavailable(err))
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("sqlite: query: %w", unavailable(err))
	}
	return nil
}

// dialect is SQLite's side of sqlstore.Dialect.
var dialect = sqlstore.Dialect{
	Fold:        func(column string) string { return column + " COLLATE NOCASE" },
	VersionsSQL: versionsSQL,
}

// openDB opens a database handle of the package.
func openDB(dsn string) (*sql.DB, error) { return sql.Open("sqlite", dsn) }

// openOne is openDB with exactly one connection, kept open for good: the
// write connections.
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
