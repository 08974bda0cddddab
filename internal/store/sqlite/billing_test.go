package sqlite

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/migration"
)

// oldDatabase makes at path a database of the schema before billing moved
// out (migrations before billingMove) holding a key (id 7), its ledger, a
// stored answer, an upstream ledger row and a budget hold, and returns
// its 'keys' counter.
func oldDatabase(t *testing.T, path string) int64 {
	t.Helper()
	ctx := context.Background()
	db, err := openOne(dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	steps, err := migration.Load(migrationFiles, migrationsDir)
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`)
	for _, m := range steps {
		if m.Version >= billingMove {
			break
		}
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations VALUES (?, ?, 0)`, m.Version, m.Name)
	}
	now := time.Now().UnixMicro()
	exec(`INSERT INTO api_keys (id, name, prefix, digest, balance, created_at) VALUES (7, 'old', 'p', x'07', 400, ?)`, now)
	exec(`INSERT INTO ledger (key_id, kind, amount, balance_after, created_at) VALUES (7, 'credit', 500, 500, ?)`, now)
	exec(`INSERT INTO ledger (key_id, kind, request_id, endpoint, items, amount, balance_after, created_at)
		VALUES (7, 'debit', 'r1', 'search', 1, 100, 400, ?)`, now)
	exec(`INSERT INTO idempotency_keys VALUES (7, 'i1', 'f', x'00', ?)`, now)
	exec(`INSERT INTO upstream_ledger (request_id, key_id, endpoint, cache_hit, status, upstream_micro_usd, created_at)
		VALUES ('r1', 7, 'search', 0, 200, 300, ?)`, now)
	exec(`INSERT INTO upstream_holds (hold, period, micros, limit_micros, created_at) VALUES ('h', 'total', 50, 1000, ?)`, now)
	var keys int64
	if err := db.QueryRowContext(ctx, `SELECT n FROM versions WHERE name = 'keys'`).Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if keys == 0 {
		t.Fatal("the old schema's triggers did not count the credit")
	}
	return keys
}

// checkMoved checks that the store at path serves the old database's
// billing from its billing file, with ledgerRows rows for key 7, and that
// the billing tables left the database.
func checkMoved(t *testing.T, s *Store, keys int64, balance int64, ledgerRows int) {
	t.Helper()
	ctx := context.Background()
	k, err := s.Key(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if k.Balance != balance {
		t.Errorf("key 7: balance %d, want %d", k.Balance, balance)
	}
	ledger, err := s.Ledger(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(ledger) != ledgerRows {
		t.Errorf("key 7: %d ledger rows, want %d", len(ledger), ledgerRows)
	}
	v, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v.Keys != keys {
		t.Errorf("keys counter %d, want %d (moved with the keys)", v.Keys, keys)
	}
	if _, reserved, err := s.Gateway().Spent(ctx, "total"); err != nil || reserved != 50 {
		t.Errorf("budget reserved %d (%v), want the hold's 50 counted once", reserved, err)
	}
	var left int
	if err := s.write.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN
		('api_keys', 'ledger', 'idempotency_keys', 'upstream_ledger', 'upstream_budget', 'upstream_holds')`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d billing tables left in the database", left)
	}
	// The billing file's triggers came back after the copy.
	if _, err := s.bill.ExecContext(ctx, `UPDATE ledger SET amount = 1`); err == nil || !strings.Contains(err.Error(), "append-only") {
		t.Errorf("ledger update in the billing file: %v, want append-only", err)
	}
	if _, err := s.TopUp(ctx, 7, 10); err != nil {
		t.Fatal(err)
	}
	if v2, err := s.Versions(ctx); err != nil || v2.Keys != keys+1 {
		t.Errorf("after a top-up the keys counter is %d (%v), want %d", v2.Keys, err, keys+1)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: 7, Amount: 5, RequestID: "r2", Endpoint: "search", Items: 1}); err != nil {
		t.Fatal(err)
	}
	nk, err := s.CreateKey(ctx, social.APIKey{Name: "new", Prefix: "q", Digest: [32]byte{8}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if nk.ID <= 7 {
		t.Errorf("a new key got id %d, taken before the move", nk.ID)
	}
}

// TestBillingMove: opening a database from before the billing file moves
// its keys, ledger, stored answers, upstream ledger and budget, and the
// keys counter, into the billing file, and drops them from the database.
func TestBillingMove(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	keys := oldDatabase(t, path)
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkMoved(t, s, keys, 400, 2)
}

// TestBillingMoveCrash: a copy into the billing file whose drop from the
// database did not commit (a crash between the two) is made again from
// the database, which stayed the one in use: rows written there after
// the first copy are not lost, and none is copied twice.
func TestBillingMoveCrash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	keys := oldDatabase(t, path)
	half := &Store{path: path, log: slog.New(slog.DiscardHandler)}
	var err error
	if half.bill, err = openOne(dsn(BillingPath(path), false)); err != nil {
		t.Fatal(err)
	}
	if err := half.migrateFile(ctx, half.bill, BillingPath(path), billingMigrationsDir, nil, &applied{}); err != nil {
		t.Fatal(err)
	}
	if err := half.moveBilling(ctx); err != nil {
		t.Fatal(err)
	}
	half.bill.Close()
	// The database is still the one in use: a top-up lands there.
	db, err := openOne(dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE api_keys SET balance = 1400 WHERE id = 7`,
		`INSERT INTO ledger (key_id, kind, amount, balance_after, created_at) VALUES (7, 'credit', 1000, 1400, 1)`} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkMoved(t, s, keys+1, 1400, 3)
}

// TestBillingFileMissing: a database whose billing moved out does not open
// without its billing file (its keys and ledger), rather than starting
// them over.
func TestBillingFileMissing(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "roost.db")
	s, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(BillingPath(path) + suffix)
	}
	if _, err := Open(ctx, path, nil); err == nil || !strings.Contains(err.Error(), "billing file") {
		t.Fatalf("open without the billing file: %v", err)
	}
	if _, err := os.Stat(BillingPath(path)); err == nil {
		t.Error("the failed open made a billing file")
	}
}

// TestDebitBesideDataWrite: a debit commits while a write of data holds
// the database's write lock (a living-world tick, an import): the two
// files have a writer each.
func TestDebitBesideDataWrite(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	k, err := s.CreateKey(ctx, social.APIKey{Name: "k", Prefix: "p", Digest: [32]byte{1}}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE versions SET n = n + 1 WHERE name = 'content'`); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	bal, err := s.Debit(dctx, social.Debit{KeyID: k.ID, Amount: 10, RequestID: "r", Endpoint: "x", Items: 1})
	if err != nil {
		t.Fatalf("debit while data is being written: %v", err)
	}
	if bal != 990 {
		t.Errorf("balance %d, want 990", bal)
	}
	if _, err := s.TopUp(dctx, k.ID, 5); err != nil {
		t.Fatalf("top-up while data is being written: %v", err)
	}
}

// linkedBilling opens a database whose billing file is a symbolic link to
// a file in another folder (target), with a key of 1000 µUSD; the caller
// closes the store.
func linkedBilling(t *testing.T) (path, target string, s *Store, k social.APIKey) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "roost.db")
	target = filepath.Join(t.TempDir(), "billing")
	if err := os.Symlink(target, BillingPath(path)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err = s.CreateKey(context.Background(), social.APIKey{Name: "k", Prefix: "p", Digest: [32]byte{1}}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return path, target, s, k
}

// TestBillingFileLinked: the billing file may be a symbolic link to a
// file elsewhere (another disk): SQLite keeps its log and shared memory
// beside the link's target, and a debit made there is there after a
// reopen.
func TestBillingFileLinked(t *testing.T) {
	ctx := context.Background()
	path, target, s, k := linkedBilling(t)
	if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 10, RequestID: "r", Endpoint: "x", Items: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target + "-wal"); err != nil {
		t.Errorf("no log beside the link's target: %v", err)
	}
	if _, err := os.Lstat(BillingPath(path) + "-wal"); err == nil {
		t.Error("a log beside the link")
	}
	s.Close()
	reopenLinked(t, path, k.ID, 990)
}

// reopenLinked fails unless the billing file of the database at path is
// still a link and, opened again, the database gives key id balance want.
func reopenLinked(t *testing.T, path string, id, want int64) {
	t.Helper()
	if fi, err := os.Lstat(BillingPath(path)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v", err)
	}
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Key(context.Background(), id); err != nil || got.Balance != want {
		t.Errorf("opened again: %+v, %v; want balance %d", got, err, want)
	}
}

// TestRestoreKeepsBillingLink: restoring over a database whose billing
// file is a link writes the billing file where the link points and keeps
// the link; the log beside the target does not outlive the restore.
func TestRestoreKeepsBillingLink(t *testing.T) {
	ctx := context.Background()
	path, target, s, k := linkedBilling(t)
	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := s.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 10, RequestID: "r", Endpoint: "x", Items: 1}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := Restore(ctx, backup, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target + "-wal"); err == nil {
		t.Error("the billing file's old log is still beside it")
	}
	reopenLinked(t, path, k.ID, 1000) // the backup's balance
}
