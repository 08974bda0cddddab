package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// notWorld are the tables a restore leaves as they are (or only empties
// and moves, as gateway_pages and versions): the money, the monitors'
// configuration and history, the change log, the schema's bookkeeping.
// Every other table of either engine is the world, and must be equal to
// its snapshot after a restore: a table added to the schema but not to
// the snapshots fails testSnapshots.
var notWorld = map[string]bool{
	"schema_migrations": true, "bulk_restore": true, "gateway_pages": true, "versions": true, "sqlite_sequence": true,
	"monitors": true, "webhooks": true, "changes": true, "change_cursor": true, "monitor_events": true,
	"monitor_deliveries": true, "api_keys": true, "ledger": true, "idempotency_keys": true, "debit_requests": true,
	"rate_buckets": true, "rate_windows": true, "upstream_ledger": true, "upstream_budget": true, "upstream_holds": true,
	"sqlite_stat1": true, "sqlite_stat4": true,
	// SQLite's FTS5 tables and the tables of their segments and
	// documents: how an index lays out its segments depends on the order
	// of the writes, not on what it holds, and a restore puts the posts it
	// restores in again; what an index holds is digested instead (see
	// ftsIndexes). Their *_config tables are digested as the world's.
	"posts_fts": true, "post_urls": true, "posts_fts_data": true, "posts_fts_idx": true, "posts_fts_docsize": true,
	"post_urls_data": true, "post_urls_idx": true, "post_urls_docsize": true,
}

// ftsIndexes are SQLite's FTS5 indexes, whose contents a digest reads
// (engineSQL.ftsDigest).
var ftsIndexes = []string{"posts_fts", "post_urls"}

// money are the tables of keys and their ledger, which a restore never
// touches.
var money = []string{"api_keys", "ledger"}

// engineSQL is how a digest reads one engine's tables.
type engineSQL struct {
	sqlite bool
	db     sqlstore.DB
	// write is the store's writer, on which SQLite's FTS5 indexes are
	// read (ftsDigest).
	write sqlstore.DB
}

func engineOf(t *testing.T, s Store) engineSQL {
	t.Helper()
	db := s.World().Reader.DB
	err := db.Query(ctxFor(t), `SELECT name FROM pragma_table_info('users')`, nil, func(sqlstore.Rows) error { return nil })
	return engineSQL{sqlite: err == nil, db: db, write: s.World().Write}
}

// ftsDigest is a hash of what SQLite's FTS5 index holds: every
// instance of every term (term, post, column, offset, through an
// fts5vocab table of the writer's connection) and each post's sizes.
func (e engineSQL) ftsDigest(t *testing.T, index string) string {
	t.Helper()
	ctx := ctxFor(t)
	vocab := "temp.digest_" + index
	if err := e.write.Query(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS `+vocab+` USING fts5vocab(main, `+index+`, instance)`,
		nil, func(sqlstore.Rows) error { return nil }); err != nil {
		t.Fatalf("vocabulary of %s: %v", index, err)
	}
	var rows []string
	for _, q := range []string{
		`SELECT quote(term) || ',' || doc || ',' || col || ',' || "offset" FROM ` + vocab,
		`SELECT 'size ' || id || ',' || quote(sz) FROM main.` + index + `_docsize`,
	} {
		if err := e.write.Query(ctx, q, nil, func(r sqlstore.Rows) error {
			var row string
			if err := r.Scan(&row); err != nil {
				return err
			}
			rows = append(rows, row)
			return nil
		}); err != nil {
			t.Fatalf("rows of %s: %v", index, err)
		}
	}
	return hashRows(rows)
}

// hashRows is the digest of rows, sorted.
func hashRows(rows []string) string {
	slices.Sort(rows)
	h := sha256.Sum256([]byte(strings.Join(rows, "\n")))
	return hex.EncodeToString(h[:8]) + " (" + strconv.Itoa(len(rows)) + " rows)"
}

// tables are the engine's tables (SQLite: of the database, not of its
// billing file).
func (e engineSQL) tables(t *testing.T) []string {
	t.Helper()
	q := `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if e.sqlite {
		q = `SELECT name FROM main.sqlite_schema WHERE type = 'table'`
	}
	var out []string
	if err := e.db.Query(ctxFor(t), q, nil, func(r sqlstore.Rows) error {
		var n string
		out = append(out, n)
		return r.Scan(&out[len(out)-1])
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// digest is a hash of every row of table, each value quoted, rows sorted.
func (e engineSQL) digest(t *testing.T, table string) string {
	t.Helper()
	ctx := ctxFor(t)
	schema, name := "main", table
	if e.sqlite && slices.Contains(money, table) {
		schema = "billing"
	}
	colsSQL := `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
		ORDER BY ordinal_position`
	quote, from := "quote_nullable(%s::text)", name
	if e.sqlite {
		colsSQL = `SELECT name FROM pragma_table_info(?, '` + schema + `')`
		quote, from = "quote(%s)", schema+"."+name
	}
	var cols []string
	if err := e.db.Query(ctx, colsSQL, []any{name}, func(r sqlstore.Rows) error {
		var c string
		if err := r.Scan(&c); err != nil {
			return err
		}
		cols = append(cols, strings.ReplaceAll(quote, "%s", `"`+c+`"`))
		return nil
	}); err != nil || len(cols) == 0 {
		t.Fatalf("columns of %s: %v %v", table, cols, err)
	}
	var rows []string
	if err := e.db.Query(ctx, `SELECT `+strings.Join(cols, ` || ',' || `)+` FROM `+from, nil, func(r sqlstore.Rows) error {
		var row string
		if err := r.Scan(&row); err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	}); err != nil {
		t.Fatalf("rows of %s: %v", table, err)
	}
	return hashRows(rows)
}

// digests digests each of tables, and on SQLite (when tables are the
// world's) what each FTS5 index holds.
func (e engineSQL) digests(t *testing.T, tables []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tb := range tables {
		out[tb] = e.digest(t, tb)
	}
	if e.sqlite && slices.Contains(tables, "posts") {
		for _, ix := range ftsIndexes {
			out["index "+ix] = e.ftsDigest(t, ix)
		}
	}
	return out
}

// testSnapshots: a restore puts every world table back as it was when
// the snapshot was saved, whatever was written, deleted or changed
// since, leaves keys and ledger as they are, moves the content and
// deletions counters, and answers search as before; names are checked,
// a taken name is ErrConflict, an unknown one ErrNotFound.
func testSnapshots(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	if _, err := s.Write(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	e := engineOf(t, s)
	var world []string
	for _, tb := range e.tables(t) {
		if !notWorld[tb] && !strings.HasPrefix(tb, "snap") {
			world = append(world, tb)
		}
	}
	for _, must := range []string{"users", "posts", "follows", "tombstones", "world"} {
		if !slices.Contains(world, must) {
			t.Fatalf("world tables %v: no %s", world, must)
		}
	}
	k, err := s.CreateKey(ctx, newKey("payer"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 10, Endpoint: "search", Items: 1}); err != nil {
		t.Fatal(err)
	}
	// Something in every kind of table a deletion touches.
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{104}}); err != nil {
		t.Fatal(err)
	}
	before := e.digests(t, world)

	for _, bad := range []string{"", "Clean", "a b", "../x", strings.Repeat("x", sqlstore.MaxSnapshotName+1), "-x"} {
		_, err := s.SaveSnapshot(ctx, bad)
		wantErr(t, "SaveSnapshot("+bad+")", err, social.ErrInvalid)
	}
	snap, err := s.SaveSnapshot(ctx, "clean")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Name != "clean" || snap.Posts == 0 || snap.Users == 0 || snap.CreatedAt.IsZero() {
		t.Errorf("SaveSnapshot = %+v", snap)
	}
	_, err = s.SaveSnapshot(ctx, "clean")
	wantErr(t, "SaveSnapshot(taken)", err, social.ErrConflict)
	_, err = s.RestoreSnapshot(ctx, "nothing")
	wantErr(t, "RestoreSnapshot(unknown)", err, social.ErrNotFound)
	wantErr(t, "DropSnapshot(unknown)", s.DropSnapshot(ctx, "nothing"), social.ErrNotFound)

	// The world changes: a post and a user made, a post and a user
	// deleted, a follow, a like, a profile changed; and the money moves.
	b := fixture()
	changed := b.Users[0]
	changed.Name, changed.FollowersCount = "Changed", 99
	if _, err := s.Write(ctx, &social.Batch{
		Users:   []social.User{changed, {ID: 7777, ScreenName: "newcomer", Name: "New"}},
		Posts:   []social.Post{{ID: 9001, AuthorID: 7777, CreatedAt: at(200), Text: "zebra crossing after the snapshot", Lang: "en"}},
		Follows: []social.Follow{{FollowerID: 7777, FolloweeID: alice, CreatedAt: at(201)}},
		Likes:   []social.Like{{UserID: 7777, PostID: 103, CreatedAt: at(202)}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{103}, DeleteUsers: []int64{carol}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TopUp(ctx, k.ID, 500); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, Amount: 20, Endpoint: "search", Items: 2}); err != nil {
		t.Fatal(err)
	}
	searchIDs(t, s, "zebra before the restore", search.Word{Text: "zebra"}, []int64{9001})
	changedWorld := e.digests(t, world)
	if maps(changedWorld, before) {
		t.Fatal("the changes changed no world table")
	}
	moneyBefore := e.digests(t, money)
	vs, ok := s.(social.Versioned)
	if !ok {
		t.Fatalf("%T keeps no versions", s)
	}
	v0, err := vs.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}

	got, err := s.RestoreSnapshot(ctx, "clean")
	if err != nil {
		t.Fatal(err)
	}
	if got != snap {
		t.Errorf("RestoreSnapshot = %+v, want %+v", got, snap)
	}
	after := e.digests(t, world)
	for tb := range before {
		if after[tb] != before[tb] {
			t.Errorf("%s after the restore: %s, at the snapshot %s", tb, after[tb], before[tb])
		}
	}
	if m := e.digests(t, money); !maps(m, moneyBefore) {
		t.Errorf("the restore changed the money: %v, was %v", m, moneyBefore)
	}
	if kk, err := s.Key(ctx, k.ID); err != nil || kk.Balance != 1000-10+500-20 {
		t.Errorf("key after the restore: %+v %v", kk, err)
	}
	v1, err := vs.Versions(ctx)
	if err != nil || v1.Content <= v0.Content || v1.Deletions <= v0.Deletions || v1.Keys != v0.Keys {
		t.Errorf("versions %+v after the restore, %+v before (%v)", v1, v0, err)
	}
	// Search answers from the restored indexes: what was made since is
	// gone, what was deleted since is back.
	searchIDs(t, s, "zebra after the restore", search.Word{Text: "zebra"}, nil)
	searchIDs(t, s, "quick after the restore", search.Word{Text: "quick"}, []int64{110, 107, 106, 103})
	searchIDs(t, s, "carol after the restore", search.Word{Text: "carol"}, []int64{111}) // 104 was deleted before
	if u, err := s.User(ctx, carol); err != nil || u.ScreenName != "carol" {
		t.Errorf("carol after the restore: %+v %v", u, err)
	}
	// The store goes on writing after a restore, and a second restore
	// gives the same world again.
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 9002, AuthorID: bob, CreatedAt: at(300), Text: "zebra again", Lang: "en"}}}); err != nil {
		t.Fatal(err)
	}
	searchIDs(t, s, "zebra after a write", search.Word{Text: "zebra"}, []int64{9002})
	if _, err := s.RestoreSnapshot(ctx, "clean"); err != nil {
		t.Fatal(err)
	}
	if again := e.digests(t, world); !maps(again, before) {
		t.Errorf("a second restore: %v, want %v", again, before)
	}

	if _, err := s.SaveSnapshot(ctx, "b-2"); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListSnapshots(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "b-2" || list[1] != snap {
		t.Errorf("ListSnapshots = %+v, %v", list, err)
	}
	for _, name := range []string{"clean", "b-2"} {
		if err := s.DropSnapshot(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if list, err := s.ListSnapshots(ctx); err != nil || len(list) != 0 {
		t.Errorf("ListSnapshots after drops = %+v, %v", list, err)
	}
	_, err = s.RestoreSnapshot(ctx, "clean")
	wantErr(t, "RestoreSnapshot(dropped)", err, social.ErrNotFound)
}

// maps reports whether two digests are equal.
func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
