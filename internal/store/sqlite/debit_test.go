package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
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

// TestDebitNewest: a batch whose request ids all sort after those charged
// before is decided without looking them up; one with a request id
// charged before, or a new one that sorts before them, looks its ids up,
// refuses the first and charges the second.
func TestDebitNewest(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	key := storetest.NewKey(t, s, "k", 1000)
	apply := func(ds []social.Debit) []string {
		t.Helper()
		out := make([]sqlstore.DebitResult, len(ds))
		if err := s.debits.apply(ds, out); err != nil {
			t.Fatal(err)
		}
		got := make([]string, len(out))
		for i, r := range out {
			got[i] = storetest.DebitOutcome(r)
		}
		return got
	}
	var batch []social.Debit
	for i := range 5 {
		batch = append(batch, social.Debit{KeyID: key, Amount: int64(10 * (i + 1)), RequestID: "a" + strconv.Itoa(i), Endpoint: "x", Items: 1})
	}
	batch = append(batch, social.Debit{KeyID: key, Amount: 1, Endpoint: "x", Items: 1}) // no request id
	want := "[balance 990 balance 970 balance 940 balance 900 balance 850 balance 849]"
	if got := fmt.Sprint(apply(batch)); got != want {
		t.Errorf("new ids: %s, want %s", got, want)
	}
	if n := s.debits.lookups.Load(); n != 0 {
		t.Errorf("new ids: %d batches looked their ids up, want 0", n)
	}
	retry := []social.Debit{
		{KeyID: key, Amount: 100, RequestID: "b0", Endpoint: "x", Items: 1},
		{KeyID: key, Amount: 30, RequestID: "a2", Endpoint: "x", Items: 1}, // charged before
		{KeyID: key, Amount: 100, RequestID: "b1", Endpoint: "x", Items: 1},
	}
	want = "[balance 749 conflict balance 649]"
	if got := fmt.Sprint(apply(retry)); got != want {
		t.Errorf("an id charged before: %s, want %s", got, want)
	}
	if n := s.debits.lookups.Load(); n != 1 {
		t.Errorf("an id charged before: %d batches looked their ids up, want 1", n)
	}
	// "a5" is new, but sorts before "b1": looked up, then charged.
	if got := fmt.Sprint(apply([]social.Debit{{KeyID: key, Amount: 9, RequestID: "a5", Endpoint: "x", Items: 1}})); got != "[balance 640]" {
		t.Errorf("a new id sorting before the newest: %s, want [balance 640]", got)
	}
	if n := s.debits.lookups.Load(); n != 2 {
		t.Errorf("a new id sorting before the newest: %d batches looked their ids up, want 2", n)
	}
	if got := fmt.Sprint(storetest.DebitBalances(t, s, key)); got != "[990 970 940 900 850 849 749 649 640]" {
		t.Errorf("ledger's balances after, in order: %s", got)
	}
	if k, err := s.Key(ctx, key); err != nil || k.Balance != 640 {
		t.Errorf("balance %d, %v; want 640", k.Balance, err)
	}
}

// TestDebitUnknownKey: a debit of a key that is not (or no longer) stored
// is refused, and its request ids are looked up: the key's ledger rows may
// have outlived it (SQLite keeps no foreign keys).
func TestDebitUnknownKey(t *testing.T) {
	s := openTest(t)
	out := make([]sqlstore.DebitResult, 1)
	if err := s.debits.apply([]social.Debit{{KeyID: 999, Amount: 1, RequestID: "z", Endpoint: "x", Items: 1}}, out); err != nil {
		t.Fatal(err)
	}
	if got := storetest.DebitOutcome(out[0]); got != "insufficient" {
		t.Errorf("unknown key: %s, want insufficient", got)
	}
	if n := s.debits.lookups.Load(); n != 1 {
		t.Errorf("unknown key: %d batches looked their ids up, want 1", n)
	}
}

// TestDebitSeenUsesIndex: the batch's look-ups of charged request ids use
// the partial index ledger_request (a scan of a key's whole ledger made
// every debit slower as the ledger grew).
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
	plan := strings.Join(queryPlan(t, s, debitKey, int64(1)), "; ")
	if !strings.Contains(plan, "INDEX ledger_request (key_id=?)") {
		t.Errorf("the newest id: plan %q does not use ledger_request", plan)
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

// BenchmarkDebitBatch: one durable batch of six debits of one key, as a
// busy server commits them, with request ids rising (the server's: one
// look at the newest id charged) and falling (each id looked up, as for
// a retried request id): ns/op is a batch's time on the debit
// goroutine, which every paid page waits for, mostly its fsync; cpu-ns/op
// the processor time the process spent on it (user and system, of all
// threads), which the pages' own work competes with.
func BenchmarkDebitBatch(b *testing.B) {
	for _, rising := range []bool{true, false} {
		name := map[bool]string{true: "rising", false: "falling"}[rising]
		b.Run(name, func(b *testing.B) {
			s, err := Open(context.Background(), filepath.Join(b.TempDir(), "roost.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			key := storetest.NewKey(b, s, "k", 1<<60)
			batch := make([]social.Debit, 6)
			out := make([]sqlstore.DebitResult, len(batch))
			// One batch first prepares the statements.
			warm := []social.Debit{{KeyID: key, Amount: 1, RequestID: "0", Endpoint: "x", Items: 1}}
			if err := s.debits.apply(warm, out[:1]); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(b)
			for i := range b.N {
				for j := range batch {
					id := i*len(batch) + j
					if !rising {
						id = 1<<40 - id
					}
					batch[j] = social.Debit{KeyID: key, Amount: 100, RequestID: fmt.Sprintf("%016x", id),
						Endpoint: "user_tweets", Items: 20}
				}
				if err := s.debits.apply(batch, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the processor time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
