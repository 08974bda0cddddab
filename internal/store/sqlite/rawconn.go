package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
)

// rawConn runs statements on a driver connection directly, for the debit
// batches: no pool, no conversion through database/sql, and no goroutine
// started per transaction to watch its context (database/sql starts one
// for every transaction). Its statements are prepared once per
// connection; it must only be used inside (*sql.Conn).Raw of that
// connection.
type rawConn struct {
	dc    driver.Conn
	stmts map[string]driver.Stmt
}

// on returns the statements of driver connection dc: r itself, or a new
// rawConn when dc is another connection (the one before was dropped: its
// statements went with it).
func (r *rawConn) on(dc any) (*rawConn, error) {
	if r != nil && r.dc == dc {
		return r, nil
	}
	c, ok := dc.(driver.Conn)
	if !ok {
		return nil, fmt.Errorf("driver connection %T", dc)
	}
	return &rawConn{dc: c, stmts: map[string]driver.Stmt{}}, nil
}

// stmt is q prepared on the connection.
func (r *rawConn) stmt(ctx context.Context, q string) (driver.Stmt, error) {
	if st, ok := r.stmts[q]; ok {
		return st, nil
	}
	p, ok := r.dc.(driver.ConnPrepareContext)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot prepare", r.dc)
	}
	st, err := p.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	r.stmts[q] = st
	return st, nil
}

// begin starts a transaction (BEGIN IMMEDIATE on the write connection).
func (r *rawConn) begin(ctx context.Context) (driver.Tx, error) {
	b, ok := r.dc.(driver.ConnBeginTx)
	if !ok {
		return nil, fmt.Errorf("driver connection %T cannot begin", r.dc)
	}
	return b.BeginTx(ctx, driver.TxOptions{})
}

// named converts args as database/sql would.
func named(args []any) ([]driver.NamedValue, error) {
	out := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i+1, err)
		}
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out, nil
}

// bound is q prepared, with args converted.
func (r *rawConn) bound(ctx context.Context, q string, args []any) (driver.Stmt, []driver.NamedValue, error) {
	st, err := r.stmt(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	nv, err := named(args)
	return st, nv, err
}

// exec runs q with args.
func (r *rawConn) exec(ctx context.Context, q string, args ...any) error {
	st, nv, err := r.bound(ctx, q, args)
	if err != nil {
		return err
	}
	e, ok := st.(driver.StmtExecContext)
	if !ok {
		return fmt.Errorf("driver statement %T cannot exec", st)
	}
	_, err = e.ExecContext(ctx, nv)
	return err
}

// query runs q with args and calls fn with each row (the slice is reused).
func (r *rawConn) query(ctx context.Context, q string, args []any, fn func(row []driver.Value) error) error {
	st, nv, err := r.bound(ctx, q, args)
	if err != nil {
		return err
	}
	qc, ok := st.(driver.StmtQueryContext)
	if !ok {
		return fmt.Errorf("driver statement %T cannot query", st)
	}
	rows, err := qc.QueryContext(ctx, nv)
	if err != nil {
		return err
	}
	row := make([]driver.Value, len(rows.Columns()))
	for {
		err = rows.Next(row)
		if errors.Is(err, io.EOF) {
			return rows.Close()
		}
		if err == nil {
			err = fn(row)
		}
		if err != nil {
			rows.Close() //nolint:errcheck // the first error is the one to report
			return err
		}
	}
}

// close closes the statements.
func (r *rawConn) close() {
	for q, st := range r.stmts {
		st.Close() //nolint:errcheck // finalizing a statement reports its last error, seen already
		delete(r.stmts, q)
	}
}
