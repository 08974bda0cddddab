package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	msqlite "modernc.org/sqlite"
)

// The billing file holds keys, the ledger, stored idempotent answers and
// the gateway's upstream ledger and budget (migrations/billing): it is
// written through a connection of its own, so that a debit's commit never
// waits for a write of data (a living-world tick, an import, a gateway
// fill) or the full-text work in it, and syncs billing pages only. No
// transaction writes both files. Readers see the billing tables by their
// names through an ATTACH as "billing".

// BillingPath is the file beside the database at path that holds its
// keys and ledger: path + "-billing" (with its own -wal and -shm).
func BillingPath(path string) string { return path + "-billing" }

// billingMove is the database's migration that drops the billing tables
// after moveBilling copied their rows into the billing file.
const billingMove = 39

// billingTables are the tables that moved, in the order they are copied.
var billingTables = []string{"api_keys", "ledger", "idempotency_keys", "upstream_ledger", "upstream_budget", "upstream_holds"}

// openBilling opens the billing file's write connection, creating the
// file, unless the database's billing tables moved to a billing file that
// is gone: its keys and ledger are not to be started over unnoticed.
func (s *Store) openBilling(ctx context.Context) error {
	bpath := BillingPath(s.path)
	if _, err := os.Stat(bpath); errors.Is(err, os.ErrNotExist) {
		exists, err := hasMigrations(ctx, s.write)
		var applied []int
		if err == nil && exists {
			applied, err = appliedVersions(ctx, s.write, "")
		}
		if err != nil {
			return fmt.Errorf("sqlite: open %s: %w", s.path, err)
		}
		if slices.Contains(applied, billingMove) {
			return fmt.Errorf("sqlite: open %s: its billing file %s (keys and ledger) is missing: "+
				"put it back beside the database, or restore both from a backup", s.path, bpath)
		}
	}
	bill, err := openOne(dsn(bpath, false))
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", bpath, err)
	}
	s.bill = bill
	return nil
}

// attached opens a pool on the database at path whose connections attach
// its billing file as "billing".
func attached(path string, readOnly bool) (*sql.DB, error) {
	inner, err := msqlite.NewConnector(dsn(path, readOnly))
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(attachConnector{inner: inner, billing: BillingPath(path)}), nil
}

// attachConnector opens connections of inner with the billing file
// attached.
type attachConnector struct {
	inner   driver.Connector
	billing string
}

// Connect opens a connection and attaches the billing file to it.
func (c attachConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("sqlite: driver connection %T cannot execute", conn)
	}
	if _, err := ex.ExecContext(ctx, `ATTACH DATABASE ? AS billing`,
		[]driver.NamedValue{{Ordinal: 1, Value: c.billing}}); err != nil {
		conn.Close()
		return nil, fmt.Errorf("sqlite: attach %s: %w", c.billing, err)
	}
	return conn, nil
}

// Driver is the driver of inner.
func (c attachConnector) Driver() driver.Driver { return c.inner.Driver() }

// moveBilling copies the billing tables' rows from the database into the
// billing file, unless migration billingMove already dropped them there:
// one transaction of the billing file, holding both files' write locks,
// so that two processes opening the database at once copy once. A copy
// left by a crash before billingMove committed is replaced: until then
// the database's tables are the ones in use.
func (s *Store) moveBilling(ctx context.Context) error {
	db, err := openOne(dsn(BillingPath(s.path), false))
	if err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS content`, s.path); err != nil {
		return fmt.Errorf("sqlite: billing file: attach: %w", err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	defer tx.Rollback()
	var moved int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM content.schema_migrations WHERE version = ?`,
		billingMove).Scan(&moved); err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	if moved > 0 {
		return nil
	}
	// The triggers would count the copied rows again (keys counter,
	// budget reservations) and refuse to clear an earlier copy.
	triggers, err := scanPairs(ctx, tx, `SELECT name, sql FROM main.sqlite_master WHERE type = 'trigger' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	for _, t := range triggers {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER main.`+t[0]); err != nil {
			return fmt.Errorf("sqlite: billing file: %w", err)
		}
	}
	for _, t := range billingTables {
		cols, err := columns(ctx, tx, t)
		if err != nil {
			return fmt.Errorf("sqlite: billing file: %s: %w", t, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM main.`+t); err != nil {
			return fmt.Errorf("sqlite: billing file: %s: %w", t, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO main.`+t+` (`+cols+`) SELECT `+cols+` FROM content.`+t); err != nil {
			return fmt.Errorf("sqlite: billing file: copy %s: %w", t, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE main.versions SET n = coalesce(
		(SELECT n FROM content.versions WHERE name = 'keys'), 0) WHERE name = 'keys'`); err != nil {
		return fmt.Errorf("sqlite: billing file: keys counter: %w", err)
	}
	for _, t := range triggers {
		if _, err := tx.ExecContext(ctx, t[1]); err != nil {
			return fmt.Errorf("sqlite: billing file: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: billing file: %w", err)
	}
	return nil
}

// columns lists the billing file's columns of table t that the
// database's table has too (columns added since take their defaults),
// comma-separated.
func columns(ctx context.Context, tx *sql.Tx, t string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?1, 'main')
		WHERE name IN (SELECT name FROM pragma_table_info(?1, 'content'))`, t)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return "", err
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("no such table in the billing file")
	}
	return strings.Join(cols, ", "), nil
}

// scanPairs reads rows of two text columns.
func scanPairs(ctx context.Context, tx *sql.Tx, query string) ([][2]string, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}
