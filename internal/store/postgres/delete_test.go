package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestDeletePlans: every statement of a deletion finds its rows by an
// index, as in package sqlite. With sequential scans made as dear as the
// planner allows, a plan still holds one only where no index serves.
func TestDeletePlans(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET enable_seqscan") //nolint:errcheck // the connection goes back to a test's pool
	for _, st := range sqlstore.DeleteStatements() {
		rows, err := conn.Query(ctx, "EXPLAIN "+numbered(st.SQL), st.Args...)
		if err != nil {
			t.Fatalf("%s: %v", st.SQL, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, strings.TrimSpace(line))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", st.SQL, err)
		}
		if len(plan) == 0 || strings.Contains(strings.Join(plan, "\n"), "Seq Scan") {
			t.Errorf("%s\n  plan scans a table:\n  %s", strings.Join(strings.Fields(st.SQL), " "), strings.Join(plan, "\n  "))
		}
	}
}
