package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
)

// TestUpstreamLater: a cache hit's upstream ledger row commits with the
// next debit (another connection sees it once the debit returns), a row
// no debit takes is written within upstreamLaterMax, the ledger's readers
// see held rows, and Close writes what is still held. A row with a cost is
// written at once.
func TestUpstreamLater(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/g.db"
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := openDB("file:" + BillingPath(path) + "?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	rows := func() (n int) {
		if err := other.QueryRowContext(ctx, `SELECT count(*) FROM upstream_ledger`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	g := s.Gateway()
	hit := func(id string) ledger.Entry {
		return ledger.Entry{RequestID: id, KeyID: 1, Endpoint: "user_tweets", CacheHit: true, Status: 200, At: time.Now()}
	}
	key, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: [32]byte{1}}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.LogUpstream(ctx, hit("r1")); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 0 {
		t.Fatalf("a cache hit's row was written alone (%d rows): the test no longer tells", n)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: key.ID, RequestID: "r1", Endpoint: "user_tweets", Items: 1, Amount: 200}); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 1 {
		t.Fatalf("%d rows after the debit, want the held one", n)
	}
	paid := hit("r2")
	paid.CacheHit, paid.Micros = false, 4000
	if err := g.LogUpstream(ctx, paid); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 2 {
		t.Fatalf("%d rows after a paid call, want it written at once", n)
	}
	if err := g.LogUpstream(ctx, hit("r3")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for rows() != 3 {
		if time.Now().After(deadline) {
			t.Fatal("a held row was not written without a debit")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := g.LogUpstream(ctx, hit("r4")); err != nil {
		t.Fatal(err)
	}
	ledger, err := g.UpstreamLedger(ctx)
	if err != nil || len(ledger) != 4 || ledger[3].RequestID != "r4" {
		t.Fatalf("the ledger read %d rows (%v), want the held one last", len(ledger), err)
	}
	if err := g.LogUpstream(ctx, hit("r5")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := rows(); n != 5 {
		t.Fatalf("%d rows after Close, want 5", n)
	}
}

// TestUpstreamInFlight: rows a flush has taken but not yet committed (it
// waits for the write connection) are waited for by the ledger's readers,
// which then see them; a reader that went ahead would miss them.
func TestUpstreamInFlight(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	g := s.Gateway()
	if err := g.LogUpstream(ctx, ledger.Entry{RequestID: "r1", KeyID: 1, Endpoint: "user_tweets",
		CacheHit: true, Status: 200, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	tx, err := s.bill.BeginTx(ctx, nil) // the billing file's only write connection
	if err != nil {
		t.Fatal(err)
	}
	flying := func() int {
		s.later.mu.Lock()
		defer s.later.mu.Unlock()
		return s.later.flying
	}
	for deadline := time.Now().Add(10 * time.Second); flying() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the timer did not take the held row")
		}
	}
	read := make(chan []ledger.Entry, 1)
	go func() {
		rows, err := g.UpstreamLedger(ctx)
		if err != nil {
			t.Error(err)
		}
		read <- rows
	}()
	select {
	case rows := <-read:
		t.Fatalf("the ledger was read (%d rows) while a row was in flight", len(rows))
	case <-time.After(100 * time.Millisecond):
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if rows := <-read; len(rows) != 1 || rows[0].RequestID != "r1" {
		t.Fatalf("the ledger holds %d rows, want r1", len(rows))
	}
}
