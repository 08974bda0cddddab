package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// TestBackupUnderLoad: a backup taken while debits commit restores to a
// database whose every key's balance equals its ledger.
func TestBackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	ctx := context.Background()
	st, err := sqlite.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []int64
	for i := range 4 {
		k, err := st.CreateKey(ctx, social.APIKey{Name: fmt.Sprint(i), Prefix: "p", Digest: [32]byte{byte(i + 1)}}, 1_000_000_000_000)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, k.ID)
	}
	stop := make(chan struct{})
	var debits atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := st.Debit(ctx, social.Debit{KeyID: ids[(w+i)%len(ids)], RequestID: fmt.Sprintf("%d-%d", w, i),
					Endpoint: "search", Items: 1 + i%20, Amount: int64(1+i%20) * 200})
				if err != nil {
					t.Error(err)
					return
				}
				debits.Add(1)
			}
		})
	}
	for debits.Load() < 200 { // let the load start
		runtime.Gosched()
	}
	backup := filepath.Join(dir, "backup.db")
	code, _, errOut := roost(t, "backup", "--db", db, "--to", backup)
	close(stop)
	wg.Wait()
	if code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	if code, _, errOut := roost(t, "backup", "--db", db, "--to", backup); code == 0 || !strings.Contains(errOut, "exists") {
		t.Errorf("backup over an existing file: %d %s", code, errOut)
	}
	restored := filepath.Join(dir, "restored.db")
	if code, _, errOut := roost(t, "restore", "--from", backup, "--db", restored); code != 0 {
		t.Fatalf("restore: %d %s", code, errOut)
	}
	if code, _, errOut := roost(t, "restore", "--from", backup, "--db", restored); code != 2 || !strings.Contains(errOut, "--force") {
		t.Errorf("restore over an existing database: %d %s", code, errOut)
	}
	if code, _, errOut := roost(t, "restore", "--from", backup, "--db", restored, "--force"); code != 0 {
		t.Errorf("restore --force: %d %s", code, errOut)
	}
	rs, err := sqlite.Open(ctx, restored, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	total := 0
	for _, id := range ids {
		k, err := rs.Key(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		ledger, err := rs.Ledger(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, l := range ledger {
			if l.Kind == social.LedgerCredit {
				sum += l.Amount
			} else {
				sum -= l.Amount
				total++
			}
		}
		if sum != k.Balance {
			t.Errorf("key %d: balance %d, ledger says %d", id, k.Balance, sum)
		}
	}
	if total == 0 || int64(total) > debits.Load() {
		t.Errorf("the backup holds %d debits of %d", total, debits.Load())
	}
	t.Logf("backup taken during %d debits holds %d", debits.Load(), total)
	// The backup is two files; without its billing file it is refused.
	if err := os.Rename(sqlite.BillingPath(backup), filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := roost(t, "restore", "--from", backup, "--db", filepath.Join(dir, "y.db")); code != 1 ||
		!strings.Contains(errOut, "billing file") {
		t.Errorf("restore without the billing file: %d %s", code, errOut)
	}
	os.WriteFile(filepath.Join(dir, "junk.db"), []byte("not a database"), 0o600)
	if code, _, errOut := roost(t, "restore", "--from", filepath.Join(dir, "junk.db"), "--db", filepath.Join(dir, "x.db")); code != 1 {
		t.Errorf("restore of junk: %d %s", code, errOut)
	}
	if code, _, errOut := roost(t, "backup", "--db", "postgres://x/y", "--to", "f"); code != 1 || !strings.Contains(errOut, "pg_dump") {
		t.Errorf("backup of PostgreSQL: %d %s", code, errOut)
	}
}
