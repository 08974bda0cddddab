package sqlite

import (
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestDeletePlans: every statement of a deletion finds its rows by an
// index (a primary key or a secondary index), so that deleting a post or
// a user costs the same at 10M posts as at 100: no plan scans a table.
func TestDeletePlans(t *testing.T) {
	s := openTest(t)
	stmts := sqlstore.DeleteStatements()
	for _, q := range unindexStatements {
		stmts = append(stmts, sqlstore.Statement{SQL: q, Args: sqlstore.Padded([]int64{1})})
	}
	for _, st := range stmts {
		plan := queryPlan(t, s, st.SQL, st.Args...)
		if len(plan) == 0 {
			t.Errorf("%s: no plan", st.SQL)
		}
		for _, step := range plan {
			// A full-text table is reached by rowid through its own
			// index ("VIRTUAL TABLE INDEX 0:=…" names the constraint);
			// a list of ids is the statement's own.
			scan := strings.HasPrefix(step, "SCAN ") && !strings.Contains(step, "VIRTUAL TABLE INDEX 0:=") &&
				!strings.Contains(step, "CONSTANT ROW") && !strings.Contains(step, "LIST SUBQUERY")
			if scan || strings.Contains(step, "AUTOMATIC") || strings.Contains(step, "TEMP B-TREE") {
				t.Errorf("%s\n  plan %q scans or sorts", strings.Join(strings.Fields(st.SQL), " "), plan)
			}
		}
	}
}
