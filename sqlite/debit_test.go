package sqlite

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/social"
	"github.com/roostapi/roost/sqlstore"
	"github.com/roostapi/roost/storetest"
)

// TestDebitBatch: a batch of debits is decided as one at a time would be
// (storetest.DebitBatch).
func TestDebitBatch(t *testing.T) {
	s := openTest(t)
	storetest.DebitBatch(t, s, func(ds []social.Debit, out []sqlstore.DebitResult) {
		if err := s.debits.apply(ds, out); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDebitSeenUsesIndex: the batch's look-up of charged request ids
// uses the partial index ledger_request (a scan of a key's whole ledger
// made every debit slower as the ledger grew).
func TestDebitSeenUsesIndex(t *testing.T) {
	s := openTest(t)
	for _, n := range []int{1, 4, maxDebitBatch} {
		args := []any{int64(1)}
		for i := range n {
			args = append(args, "r"+strconv.Itoa(i))
		}
		plan := queryPlan(t, s, seenText(n), args...)
		if p := strings.Join(plan, "; "); !strings.Contains(p, "INDEX ledger_request (key_id=? AND request_id=?)") {
			t.Errorf("%d ids: plan %q does not use ledger_request", n, p)
		}
	}
}

// queryPlan is the detail column of EXPLAIN QUERY PLAN of q on the read
// pool.
func queryPlan(t *testing.T, s *Store, q string, args ...any) []string {
	t.Helper()
	rows, err := s.read.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return plan
}
