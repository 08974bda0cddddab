package storetest

import (
	"crypto/sha256"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// testAdmin: rate limits, rotation, ledger pages and usage totals, and
// the responses kept for Idempotency-Keys.
func testAdmin(t *testing.T, open Opener) {
	t.Run("LimitAndRotate", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		k, err := s.CreateKey(ctx, newKey("limits"), 100)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.SetRateLimit(ctx, k.ID, 7)
		if err != nil || got.RateLimit != 7 || got.Balance != 100 {
			t.Errorf("SetRateLimit = %+v, %v", got, err)
		}
		_, err = s.SetRateLimit(ctx, k.ID, -1)
		wantErr(t, "SetRateLimit(-1)", err, social.ErrInvalid)
		_, err = s.SetRateLimit(ctx, 9999, 5)
		wantErr(t, "SetRateLimit(9999)", err, social.ErrNotFound)
		d := sha256.Sum256([]byte("rotated"))
		got, err = s.RotateKey(ctx, k.ID, d, "roost_rota")
		if err != nil || got.Digest != d || got.Prefix != "roost_rota" || got.Balance != 100 || got.RateLimit != 7 {
			t.Errorf("RotateKey = %+v, %v", got, err)
		}
		if _, err := s.KeyByDigest(ctx, newKey("limits").Digest); err == nil {
			t.Errorf("the old digest still finds the key")
		}
		other, _ := s.CreateKey(ctx, newKey("other"), 0)
		_, err = s.RotateKey(ctx, other.ID, d, "roost_x")
		wantErr(t, "RotateKey(taken digest)", err, social.ErrConflict)
		_, err = s.RotateKey(ctx, 9999, sha256.Sum256([]byte("z")), "roost_z")
		wantErr(t, "RotateKey(9999)", err, social.ErrNotFound)
	})
	t.Run("Fault", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		made := newKey("faulty")
		made.Fault = "latest_cursor_pages=2"
		k, err := s.CreateKey(ctx, made, 100)
		if err != nil || k.Fault != "latest_cursor_pages=2" {
			t.Fatalf("CreateKey with a fault = %+v, %v", k, err)
		}
		got, err := s.SetFault(ctx, k.ID, "429=0.1,seed=7")
		if err != nil || got.Fault != "429=0.1,seed=7" || got.Balance != 100 {
			t.Errorf("SetFault = %+v, %v", got, err)
		}
		if byDigest, err := s.KeyByDigest(ctx, made.Digest); err != nil || byDigest.Fault != "429=0.1,seed=7" {
			t.Errorf("KeyByDigest after SetFault = %+v, %v", byDigest, err)
		}
		if got, err = s.SetFault(ctx, k.ID, ""); err != nil || got.Fault != "" {
			t.Errorf("SetFault(\"\") = %+v, %v", got, err)
		}
		_, err = s.SetFault(ctx, 9999, "429=1")
		wantErr(t, "SetFault(9999)", err, social.ErrNotFound)
	})
	t.Run("LedgerPageAndUsage", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		a, _ := s.CreateKey(ctx, newKey("usage-a"), 1_000_000)
		b, _ := s.CreateKey(ctx, newKey("usage-b"), 1_000_000)
		charge := func(k social.APIKey, endpoint string, items int) {
			if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Endpoint: endpoint, Items: items, Amount: int64(items) * 200}); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 5 {
			charge(a, "search", i+1)
		}
		charge(a, "thread", 3)
		charge(b, "search", 10)
		var ids []int64
		f := social.LedgerFilter{KeyID: a.ID, Limit: 2}
		for range 10 {
			p, err := s.LedgerPage(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range p.Items {
				ids = append(ids, l.ID)
				if l.KeyID != a.ID {
					t.Errorf("row of key %d in key %d's ledger", l.KeyID, a.ID)
				}
			}
			if p.Next == nil {
				break
			}
			f.AfterID = p.Next.ID
		}
		if len(ids) != 7 { // the opening credit and six debits
			t.Errorf("paged %d rows, want 7: %v", len(ids), ids)
		}
		p, err := s.LedgerPage(ctx, social.LedgerFilter{KeyID: a.ID, Endpoint: "thread", Limit: 10})
		if err != nil || len(p.Items) != 1 || p.Items[0].Items != 3 || p.Next != nil {
			t.Errorf("thread rows: %+v, %v", p, err)
		}
		full, err := s.Ledger(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		mid := full[3].CreatedAt
		before, from := 0, 0
		for _, l := range full {
			if l.CreatedAt.Before(mid) {
				before++
			} else {
				from++
			}
		}
		p, err = s.LedgerPage(ctx, social.LedgerFilter{KeyID: a.ID, Until: mid, Limit: 10})
		if err != nil || len(p.Items) != before {
			t.Errorf("rows before %v: %d, %v; want %d", mid, len(p.Items), err, before)
		}
		p, err = s.LedgerPage(ctx, social.LedgerFilter{KeyID: a.ID, Since: mid, Limit: 10})
		if err != nil || len(p.Items) != from {
			t.Errorf("rows from %v: %d, %v; want %d", mid, len(p.Items), err, from)
		}
		p, err = s.LedgerPage(ctx, social.LedgerFilter{KeyID: a.ID, Since: time.Now().Add(time.Hour), Limit: 10})
		if err != nil || len(p.Items) != 0 {
			t.Errorf("rows from the future: %+v, %v", p, err)
		}
		usage, err := s.Usage(ctx, social.UsageFilter{})
		if err != nil {
			t.Fatal(err)
		}
		day := time.Now().UTC().Truncate(24 * time.Hour)
		want := []social.Usage{
			{KeyID: a.ID, Endpoint: "search", Requests: 5, Items: 15, Amount: 3000},
			{KeyID: a.ID, Endpoint: "thread", Requests: 1, Items: 3, Amount: 600},
			{KeyID: b.ID, Endpoint: "search", Requests: 1, Items: 10, Amount: 2000},
		}
		if len(usage) != len(want) {
			t.Fatalf("Usage = %+v", usage)
		}
		for i, u := range usage {
			w := want[i]
			if !u.Day.Equal(day) && !u.Day.Equal(day.Add(-24*time.Hour)) { // the test may straddle midnight
				t.Errorf("usage day %v, want %v", u.Day, day)
			}
			u.Day = time.Time{}
			if u != w {
				t.Errorf("usage %d = %+v, want %+v", i, u, w)
			}
		}
		only, err := s.Usage(ctx, social.UsageFilter{KeyID: b.ID, Endpoint: "search"})
		if err != nil || len(only) != 1 || only[0].Amount != 2000 {
			t.Errorf("Usage of key b = %+v, %v", only, err)
		}
	})
	t.Run("KeptResponses", func(t *testing.T) {
		s := open(t)
		ctx := ctxFor(t)
		k, _ := s.CreateKey(ctx, newKey("kept"), 10_000)
		now := time.Now().UTC().Truncate(time.Microsecond)
		resp := &social.StoredResponse{KeyID: k.ID, Key: "abc", Fingerprint: "f1", Body: []byte(`{"x":1}`), CreatedAt: now}
		if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r1", Endpoint: "e", Items: 1, Amount: 200, Response: resp}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Replay(ctx, k.ID, "abc", now.Add(-time.Hour))
		if err != nil || got.Fingerprint != "f1" || string(got.Body) != `{"x":1}` || !got.CreatedAt.Equal(now) {
			t.Errorf("Replay = %+v, %v", got, err)
		}
		_, err = s.Replay(ctx, k.ID, "abc", now.Add(time.Second))
		wantErr(t, "Replay(older than since)", err, social.ErrNotFound)
		_, err = s.Replay(ctx, k.ID+1, "abc", now.Add(-time.Hour))
		wantErr(t, "Replay(another key)", err, social.ErrNotFound)
		// A second debit under the same Idempotency-Key charges nothing.
		_, err = s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r2", Endpoint: "e", Items: 1, Amount: 200, Response: resp})
		wantErr(t, "Debit(same Idempotency-Key)", err, social.ErrConflict)
		if k2, _ := s.Key(ctx, k.ID); k2.Balance != 9_800 {
			t.Errorf("balance %d after a refused repeat, want 9800", k2.Balance)
		}
		// Past the window the key takes a new response.
		later := *resp
		later.CreatedAt = now.Add(social.IdempotencyWindow + time.Second)
		later.Fingerprint = "f2"
		if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r3", Endpoint: "e", Items: 1, Amount: 200, Response: &later}); err != nil {
			t.Fatalf("debit after the window: %v", err)
		}
		got, err = s.Replay(ctx, k.ID, "abc", later.CreatedAt.Add(-social.IdempotencyWindow))
		if err != nil || got.Fingerprint != "f2" {
			t.Errorf("Replay after the window = %+v, %v", got, err)
		}
		checkLedger(t, s, k.ID)
	})
}
