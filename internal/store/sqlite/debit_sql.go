package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// sqlStmts are the debit statements prepared through database/sql on the
// billing file's pool (its one connection), each once.
type sqlStmts map[string]*sql.Stmt

// close closes the statements.
func (m sqlStmts) close() {
	for q, st := range m {
		st.Close()
		delete(m, q)
	}
}

// sqlTx runs a debit batch's statements in its database/sql
// transaction, through the statements of stmts. The pool's one connection is the transaction's, so
// a statement not prepared yet is prepared in the transaction for this
// use and named in later, to be prepared on the pool after it.
type sqlTx struct {
	tx    *sql.Tx
	stmts sqlStmts
	later *[]string
}

// stmt is q prepared, as a statement of the transaction.
func (t sqlTx) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := t.stmts[q]; ok {
		return t.tx.StmtContext(ctx, st), nil
	}
	*t.later = append(*t.later, q)
	return t.tx.PrepareContext(ctx, q)
}

// exec runs q with args.
func (t sqlTx) exec(ctx context.Context, q string, args ...any) error {
	st, err := t.stmt(ctx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// query runs q with args and calls fn with each row (the slice is
// reused).
func (t sqlTx) query(ctx context.Context, q string, args []any, fn func(row []driver.Value) error) error {
	st, err := t.stmt(ctx, q)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	dest := make([]any, len(cols))
	row := make([]driver.Value, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, v := range vals {
			row[i] = v
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	return rows.Close()
}

// applySQL runs the batch's transaction on the billing file's write
// connection and returns the held upstream
// rows it wrote; an error means nothing committed.
func (b *debitBatcher) applySQL(ctx context.Context, batch []social.Debit, results []sqlstore.DebitResult) ([]ledger.Entry, error) {
	if b.plain == nil {
		b.plain = sqlStmts{}
	}
	var later []string
	defer func() { b.prepare(ctx, later) }()
	tx, err := b.s.bill.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: debit: begin: %w", err)
	}
	upstream := b.s.later.take()
	if err := b.decide(ctx, sqlTx{tx: tx, stmts: b.plain, later: &later}, upstream, batch, results); err != nil {
		tx.Rollback() //nolint:errcheck // the error that made it roll back is the one to report
		return upstream, err
	}
	if err := tx.Commit(); err != nil {
		return upstream, fmt.Errorf("sqlite: debit: commit: %w", err)
	}
	return upstream, nil
}

// prepare prepares the statements a transaction ran unprepared, for the
// next ones; one that fails is prepared in the next transaction again.
func (b *debitBatcher) prepare(ctx context.Context, qs []string) {
	for _, q := range qs {
		if _, ok := b.plain[q]; ok {
			continue
		}
		if st, err := b.s.bill.PrepareContext(ctx, q); err == nil {
			b.plain[q] = st
		}
	}
}
