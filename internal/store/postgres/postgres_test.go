package postgres

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/migration"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
)

// freshURL is a URL of a new, empty schema of the test database.
func freshURL(t *testing.T) string {
	return storetest.FreshSchema(t, storetest.PostgresURL(t))
}

func open(t *testing.T, u string) *Store {
	t.Helper()
	s, err := Open(context.Background(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConcurrentMigrations(t *testing.T) {
	u := freshURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), u, nil)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("open %d: %v", i, err)
		}
	}
	s := open(t, u)
	var n int
	if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	steps, _ := migration.Load(migrationFiles, "migrations")
	if n != len(steps) {
		t.Errorf("%d migrations recorded, want %d", n, len(steps))
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"", "   ", "postgres://%zz"} {
		if _, err := Open(ctx, u, nil); !errors.Is(err, social.ErrInvalid) {
			t.Errorf("Open(%q): %v, want ErrInvalid", u, err)
		}
	}
	base, _ := url.Parse(storetest.PostgresURL(t))
	q := base.Query()
	q.Set("search_path", "roost_no_such_schema")
	base.RawQuery = q.Encode()
	if _, err := Open(ctx, base.String(), nil); err == nil {
		t.Errorf("Open with a missing schema succeeded")
	}
}

func TestLimiterAcrossReplicas(t *testing.T) {
	u := freshURL(t)
	a, b := open(t, u).Limiter(), open(t, u).Limiter()
	now := time.Date(2025, 1, 1, 10, 0, 15, 0, time.UTC)
	a.now = func() time.Time { return now }
	b.now = a.now
	ctx := context.Background()
	for i, l := range []*Limiter{a, b, a} {
		d, err := l.Allow(ctx, 7, 3)
		if err != nil || !d.Allowed || d.Remaining != 2-i || d.Limit != 3 {
			t.Fatalf("request %d: %+v, %v; want allowed, %d remaining", i, d, err, 2-i)
		}
	}
	d, err := b.Allow(ctx, 7, 3)
	if err != nil || d.Allowed || d.RetryAfter != 20*time.Second || d.Reset != time.Minute {
		t.Errorf("4th request at once: %+v, %v; want refused, retry 20s, full in 1m", d, err)
	}
	if d, _ := a.Allow(ctx, 8, 3); !d.Allowed {
		t.Errorf("another key was limited")
	}
	if d, _ := a.Allow(ctx, 7, 0); !d.Allowed || d.Limit != 0 {
		t.Errorf("no limit: %+v", d)
	}
	now = now.Add(20 * time.Second)
	if d, _ := b.Allow(ctx, 7, 3); !d.Allowed || d.Remaining != 0 {
		t.Errorf("refused after one token refilled: %+v", d)
	}
	if d, _ := a.Allow(ctx, 7, 3); d.Allowed {
		t.Errorf("allowed with no token left: %+v", d)
	}
}

// TestLimiterMinuteBoundary: a burst just before and just after a minute
// boundary gets the limit once, not twice (the per-minute windows this
// limiter replaced let 240 requests through in 1.7 s at 120 per minute).
func TestLimiterMinuteBoundary(t *testing.T) {
	l := open(t, freshURL(t)).Limiter()
	now := time.Date(2025, 1, 1, 10, 0, 59, 0, time.UTC)
	l.now = func() time.Time { return now }
	ctx := context.Background()
	allowed := 0
	for range 2 {
		for range 120 {
			d, err := l.Allow(ctx, 1, 120)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed {
				allowed++
			}
		}
		now = now.Add(1700 * time.Millisecond) // across the boundary
	}
	// 120 at once, then 1.7 s of refill at 2 per second.
	if allowed != 123 {
		t.Errorf("%d requests allowed across a minute boundary in 1.7 s at 120/min, want 123", allowed)
	}
}

func TestConnectionLoss(t *testing.T) {
	base, _ := url.Parse(freshURL(t))
	q := base.Query()
	app := "roost_loss_" + base.Query().Get("search_path")
	q.Set("application_name", app)
	base.RawQuery = q.Encode()
	s := open(t, base.String())
	ctx := context.Background()
	k, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: sha256.Sum256([]byte("k"))}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	killer := open(t, storetest.PostgresURL(t))
	kill := func() int {
		var n int
		if err := killer.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = $1`, app).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// A request in flight fails.
	inFlight := make(chan error, 1)
	go func() {
		_, err := s.pool.Exec(ctx, `SELECT pg_sleep(10)`)
		inFlight <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if n := kill(); n == 0 {
		t.Fatalf("no connection of the store to terminate")
	}
	select {
	case err := <-inFlight:
		if err == nil {
			t.Errorf("the request in flight succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the request in flight did not fail")
	}

	// Debits while connections die: every answered debit is charged, no
	// failed one is, and the store recovers by itself.
	taken := 0
	for i := range 40 {
		if i%10 == 5 {
			kill()
		}
		_, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: fmt.Sprintf("r%d", i), Amount: 3})
		if err == nil {
			taken++
		} else if errors.Is(err, social.ErrInsufficientBalance) {
			t.Fatalf("debit refused: %v", err)
		}
	}
	if taken < 30 {
		t.Errorf("only %d of 40 debits went through: the store does not recover", taken)
	}
	var got social.APIKey
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err = s.Key(ctx, k.ID)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("no recovery: %v", err)
	}
	if got.Balance != 1000-3*int64(taken) {
		t.Errorf("balance %d after %d debits of 3 from 1000", got.Balance, taken)
	}
	led, _ := s.Ledger(ctx, k.ID)
	if len(led) != 1+taken {
		t.Errorf("%d ledger rows for %d debits", len(led), taken)
	}
}

// TestDebitReplyLost checks how a debit whose reply is lost is settled: one
// that committed is answered with its balance; one that did not is an error,
// and its request can never be charged afterwards.
func TestDebitReplyLost(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	k, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: sha256.Sum256([]byte("k"))}, 100)
	if err != nil {
		t.Fatal(err)
	}
	// Committed, reply lost: the debit stands and Debit says so.
	s.loseDebitReply = func() error { return errors.New("connection reset by peer") }
	bal, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "committed", Amount: 30})
	if err != nil || bal != 70 {
		t.Fatalf("Debit(reply lost after commit) = %d, %v; want 70", bal, err)
	}
	s.loseDebitReply = nil
	// Not committed: settle claims the request, so the lost statement
	// could never land later; Debit reports failure and nothing is taken.
	lost := errors.New("connection reset by peer")
	if _, err := s.settle(ctx, social.Debit{KeyID: k.ID, RequestID: "lost", Amount: 30}, lost); !errors.Is(err, lost) {
		t.Fatalf("settle(never committed) = %v, want the lost error", err)
	}
	_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "lost", Amount: 30})
	if !errors.Is(err, social.ErrConflict) {
		t.Errorf("Debit(settled request) = %v, want ErrConflict", err)
	}
	// Settling twice gives the same answers.
	if bal, err := s.settle(ctx, social.Debit{KeyID: k.ID, RequestID: "committed", Amount: 30}, lost); err != nil || bal != 70 {
		t.Errorf("settle(committed) = %d, %v; want 70", bal, err)
	}
	if _, err := s.settle(ctx, social.Debit{KeyID: k.ID, RequestID: "lost", Amount: 30}, lost); !errors.Is(err, lost) {
		t.Errorf("settle(lost) again = %v", err)
	}
	got, err := s.Key(ctx, k.ID)
	if err != nil || got.Balance != 70 {
		t.Errorf("balance %d, %v; want 70", got.Balance, err)
	}
	led, err := s.Ledger(ctx, k.ID)
	if err != nil || len(led) != 2 {
		t.Errorf("ledger %+v, %v; want the credit and one debit", led, err)
	}
}

// BenchmarkLimiter measures one shared token-bucket decision (one upsert).
func BenchmarkLimiter(b *testing.B) {
	s, err := Open(context.Background(), storetest.FreshSchema(b, storetest.PostgresURL(b)), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	l := s.Limiter()
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, err := l.Allow(ctx, int64(i%64), 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDebitBatch: a batch of debits is decided as one at a time would be
// (storetest.DebitBatch), and a batch whose reply is lost is settled
// debit by debit.
func TestDebitBatch(t *testing.T) {
	s := open(t, freshURL(t))
	storetest.DebitBatch(t, s, s.debitBatch)
	ctx := context.Background()
	k, err := s.CreateKey(ctx, social.APIKey{Name: "lost", Prefix: "p", Digest: sha256.Sum256([]byte("lost batch"))}, 100)
	if err != nil {
		t.Fatal(err)
	}
	s.loseDebitReply = func() error { return errors.New("connection reset by peer") }
	out := make([]sqlstore.DebitResult, 3)
	s.debitBatch([]social.Debit{{KeyID: k.ID, RequestID: "x1", Amount: 30}, {KeyID: k.ID, RequestID: "x2", Amount: 90},
		{KeyID: k.ID, Amount: 10}}, out)
	s.loseDebitReply = nil
	if out[0].Err != nil || out[0].Balance != 70 {
		t.Errorf("committed debit with a lost reply: %+v, want balance 70", out[0])
	}
	if !errors.Is(out[1].Err, social.ErrInsufficientBalance) {
		t.Errorf("refused debit with a lost reply: %+v, want insufficient", out[1])
	}
	if out[2].Err == nil {
		t.Errorf("debit without a request id, reply lost: %+v, want an error (outcome unknown)", out[2])
	}
	// Another process claims a request of the batch after the batch looked
	// (settle does): the batch fails on it and every debit is made alone.
	s.beforeDebitWrites = func() error {
		if _, settled, err := s.claim(ctx, social.Debit{KeyID: k.ID, RequestID: "y1"}); err != nil || settled {
			t.Errorf("claim = %v, %v", settled, err)
		}
		return nil
	}
	out = make([]sqlstore.DebitResult, 2)
	s.debitBatch([]social.Debit{{KeyID: k.ID, RequestID: "y1", Amount: 5}, {KeyID: k.ID, RequestID: "y2", Amount: 5}}, out)
	s.beforeDebitWrites = nil
	if !errors.Is(out[0].Err, social.ErrConflict) || out[1].Err != nil || out[1].Balance != 55 {
		t.Errorf("batch after a claim meanwhile: %+v; want a conflict, then balance 55", out)
	}
	// The connection fails before the debits are decided: none is
	// charged, and each says so (none is answered as paid).
	s.beforeDebitWrites = func() error { return errors.New("connection reset by peer") }
	out = make([]sqlstore.DebitResult, 2)
	s.debitBatch([]social.Debit{{KeyID: k.ID, RequestID: "z1", Amount: 5}, {KeyID: k.ID, Amount: 5}}, out)
	s.beforeDebitWrites = nil
	for i, r := range out {
		if r.Err == nil {
			t.Errorf("debit %d of a batch lost before its decisions: %+v, want an error", i, r)
		}
	}
	if got, err := s.Key(ctx, k.ID); err != nil || got.Balance != 55 {
		t.Errorf("balance %d, %v after a lost batch; want 55", got.Balance, err)
	}
}

// TestDebitCovered: one statement charges the debits of the keys whose
// balances cover all of theirs (chargeCovered); a key not covered has its
// debits decided one by one in the batch's transaction, and a request id
// charged before sends every debit there, where only it is refused.
func TestDebitCovered(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	newKey := func(name string, credit int64) int64 { return storetest.NewKey(t, s, name, credit) }
	a, b, c := newKey("a", 100), newKey("b", 50), newKey("c", 100)
	if _, err := s.Debit(ctx, social.Debit{KeyID: c, RequestID: "old", Amount: 10, Endpoint: "x", Items: 1}); err != nil {
		t.Fatal(err)
	}
	check := func(batch []social.Debit, want []string) {
		t.Helper()
		out := make([]sqlstore.DebitResult, len(batch))
		s.debitBatch(batch, out)
		for i, r := range out {
			if got := storetest.DebitOutcome(r); got != want[i] {
				t.Errorf("debit %d (%+v): %s, want %s", i, batch[i], got, want[i])
			}
		}
	}
	// The statement alone: a's debits are charged, b's left undecided.
	d, e := newKey("d", 100), newKey("e", 50)
	batch := []social.Debit{{KeyID: d, RequestID: "q1", Amount: 30}, {KeyID: e, RequestID: "q2", Amount: 30},
		{KeyID: d, Amount: 20}, {KeyID: e, RequestID: "q3", Amount: 30}}
	decided, out := make([]bool, len(batch)), make([]sqlstore.DebitResult, len(batch))
	s.chargeCovered(ctx, batch, decided, out)
	if !slices.Equal(decided, []bool{true, false, true, false}) || out[0].Balance != 70 || out[2].Balance != 50 {
		t.Errorf("chargeCovered: decided %v, results %+v; want d's two debits charged (70, 50), e's left", decided, out)
	}
	if k, err := s.Key(ctx, e); err != nil || k.Balance != 50 {
		t.Errorf("key not covered: balance %d, %v; want 50 untouched", k.Balance, err)
	}
	check([]social.Debit{{KeyID: a, RequestID: "r1", Amount: 30}, {KeyID: b, RequestID: "r2", Amount: 30},
		{KeyID: a, RequestID: "r3", Amount: 20}, {KeyID: b, RequestID: "r4", Amount: 30}, {KeyID: a, Amount: 10}},
		[]string{"balance 70", "balance 20", "balance 50", "insufficient", "balance 40"})
	check([]social.Debit{{KeyID: c, RequestID: "r5", Amount: 10}, {KeyID: c, RequestID: "old", Amount: 10}},
		[]string{"balance 80", "conflict"})
	for id, want := range map[int64][]int64{a: {100, 70, 50, 40}, b: {50, 20}, c: {100, 90, 80}, d: {100, 70, 50}, e: {50}} {
		led, err := s.Ledger(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, l := range led {
			got = append(got, l.BalanceAfter)
		}
		if !slices.Equal(got, want) {
			t.Errorf("key %d: balances after each ledger row %v, want %v", id, got, want)
		}
		if k, err := s.Key(ctx, id); err != nil || k.Balance != want[len(want)-1] {
			t.Errorf("key %d: balance %d, %v; want %d", id, k.Balance, err, want[len(want)-1])
		}
	}
}
