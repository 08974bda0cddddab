package storetest

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// testStreamKeys: a streamed answer's record keeps the bound of its first
// try for the window; a debit moves it as a compare-and-set in the
// debit's transaction (one of concurrent debits from the same point
// charges, the others change nothing); one Idempotency-Key is a record or
// a kept response, never both.
func testStreamKeys(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	k, err := s.CreateKey(ctx, newKey("streams"), 10_000)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	first := social.StreamKey{KeyID: k.ID, Key: "exp-1", Fingerprint: "f1", Bound: 500, CreatedAt: now}
	rec, err := s.StartStream(ctx, first)
	if err != nil || rec != first {
		t.Fatalf("StartStream = %+v, %v; want %+v", rec, err, first)
	}
	again := first
	again.Bound, again.CreatedAt = 900, now.Add(time.Minute)
	if rec, err := s.StartStream(ctx, again); err != nil || rec != first {
		t.Errorf("StartStream(a later try) = %+v, %v; want the first try's %+v", rec, err, first)
	}
	other := first
	other.Fingerprint = "f2"
	_, err = s.StartStream(ctx, other)
	wantErr(t, "StartStream(another request)", err, social.ErrConflict)
	kept, err := s.Replay(ctx, k.ID, "exp-1", now.Add(-time.Hour))
	if err != nil || !kept.Stream || kept.Fingerprint != "f1" {
		t.Errorf("Replay(a stream's key) = %+v, %v", kept, err)
	}
	// A kept response under the stream's key is refused, and the other way.
	page := &social.StoredResponse{KeyID: k.ID, Key: "exp-1", Fingerprint: "f3", Body: []byte(`{}`), CreatedAt: now}
	_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "page-1", Endpoint: "e", Items: 1, Amount: 200, Response: page})
	wantErr(t, "Debit(a kept response under a stream's key)", err, social.ErrConflict)
	page.Key = "page"
	if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "page-2", Endpoint: "e", Items: 1, Amount: 200, Response: page}); err != nil {
		t.Fatal(err)
	}
	_, err = s.StartStream(ctx, social.StreamKey{KeyID: k.ID, Key: "page", Fingerprint: "f3", Bound: 1, CreatedAt: now})
	wantErr(t, "StartStream(a kept response's key)", err, social.ErrConflict)

	debit := func(id string, items int, fingerprint string, from, to int64) error {
		_, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: id, Endpoint: "search_export", Items: items,
			Amount: int64(items) * 200, Stream: &social.StreamProgress{Key: "exp-1", Fingerprint: fingerprint, From: from, To: to}})
		return err
	}
	if err := debit("s-1", 3, "f1", 0, 120); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "Debit(from a point the record left)", debit("s-2", 3, "f1", 0, 120), social.ErrConflict)
	wantErr(t, "Debit(another fingerprint)", debit("s-3", 3, "f2", 120, 200), social.ErrConflict)
	wantErr(t, "Debit(more than the balance)", debit("s-4", 1000, "f1", 120, 400), social.ErrInsufficientBalance)
	want := first
	want.PaidThrough, want.Items = 120, 3
	if rec, err := s.StartStream(ctx, first); err != nil || rec != want {
		t.Errorf("record after one debit = %+v, %v; want %+v", rec, err, want)
	}
	if k2, _ := s.Key(ctx, k.ID); k2.Balance != 10_000-200-600 {
		t.Errorf("balance %d, want %d: refused debits charge nothing", k2.Balance, 10_000-200-600)
	}

	// Concurrent tries from the same point: one charges.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = debit("c-"+strconv.Itoa(i), 2, "f1", 120, 300) })
	}
	wg.Wait()
	charged := 0
	for _, err := range errs {
		if err == nil {
			charged++
		} else {
			wantErr(t, "Debit(concurrent)", err, social.ErrConflict)
		}
	}
	want.PaidThrough, want.Items = 300, 5
	if rec, err := s.StartStream(ctx, first); charged != 1 || err != nil || rec != want {
		t.Errorf("%d of concurrent debits charged; record %+v, %v; want 1 and %+v", charged, rec, err, want)
	}

	// Past the window the key starts a new record.
	later := social.StreamKey{KeyID: k.ID, Key: "exp-1", Fingerprint: "f4", Bound: 700,
		CreatedAt: now.Add(social.IdempotencyWindow + time.Second)}
	if rec, err := s.StartStream(ctx, later); err != nil || rec != later {
		t.Errorf("StartStream after the window = %+v, %v; want %+v", rec, err, later)
	}
	checkLedger(t, s, k.ID)
}
