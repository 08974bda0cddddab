package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// worldTables are the engine's world tables (every table but notWorld's
// and the snapshots' own).
func (e engineSQL) worldTables(t *testing.T) []string {
	t.Helper()
	var world []string
	for _, tb := range e.tables(t) {
		if !notWorld[tb] && !strings.HasPrefix(tb, "snap") {
			world = append(world, tb)
		}
	}
	return world
}

// tracking counts what change tracking adds to the schema: the
// snapshots' triggers and their tables (snapshot_*).
func (e engineSQL) tracking(t *testing.T) (triggers, tables int) {
	t.Helper()
	trig := `SELECT count(*) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
		WHERE c.relnamespace = current_schema()::regnamespace AND g.tgname LIKE 'snapshot%'`
	tabs := `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()
		AND table_name LIKE 'snapshot%'`
	if e.sqlite {
		trig = `SELECT count(*) FROM main.sqlite_schema WHERE type = 'trigger' AND name LIKE 'snapshot%'`
		tabs = `SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name LIKE 'snapshot%'`
	}
	for q, n := range map[string]*int{trig: &triggers, tabs: &tables} {
		if err := e.db.Query(ctxFor(t), q, nil, func(r sqlstore.Rows) error { return r.Scan(n) }); err != nil {
			t.Fatal(err)
		}
	}
	return triggers, tables
}

// wantTracking fails t unless the schema holds tracking (on) or none of
// it.
func (e engineSQL) wantTracking(t *testing.T, when string, on bool) {
	t.Helper()
	trig, tabs := e.tracking(t)
	if on && (trig == 0 || tabs == 0) || !on && (trig != 0 || tabs != 0) {
		t.Errorf("%s: %d snapshot triggers and %d tables, want tracking %v", when, trig, tabs, on)
	}
}

// testSnapshotsStacked: with two snapshots, the second saved after
// writes, restoring either gives its own world, in any order and again
// after more writes, also when one of them has no mark; writes with no
// snapshot (bulk ones too) find no trigger, and dropping the last
// snapshot takes tracking away.
func testSnapshotsStacked(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	e := engineOf(t, s)
	if _, err := s.Write(ctx, fixture()); err != nil {
		t.Fatal(err)
	}
	if bl, ok := s.(social.BulkLoader); ok {
		if err := bl.Bulk(ctx, 1, func(w social.Writer) error {
			_, err := w.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 8001, AuthorID: bob, CreatedAt: at(150),
				Text: "a bulk post", Lang: "en"}}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	e.wantTracking(t, "writes without a snapshot", false)
	world := e.worldTables(t)

	if _, err := s.SaveSnapshot(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	e.wantTracking(t, "a snapshot saved", true)
	atA := e.digests(t, world)
	changeStacked(t, s, 1)
	if _, err := s.SaveSnapshot(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	atB := e.digests(t, world)
	if maps(atA, atB) {
		t.Fatal("the writes between the snapshots changed no world table")
	}
	changeStacked(t, s, 2)

	restore := func(name string, want map[string]string) {
		t.Helper()
		if _, err := s.RestoreSnapshot(ctx, name); err != nil {
			t.Fatal(err)
		}
		got := e.digests(t, world)
		for tb := range want {
			if got[tb] != want[tb] {
				t.Errorf("%s after restoring %s: %s, want %s", tb, name, got[tb], want[tb])
			}
		}
	}
	restore("a", atA)
	restore("b", atB)
	restore("a", atA)
	changeStacked(t, s, 3)
	restore("b", atB)
	changeStacked(t, s, 4)
	restore("a", atA)
	// A snapshot without a mark (saved before its database tracked
	// changes) is restored by its differences, and marked.
	marks := func() (n int) {
		t.Helper()
		if err := s.World().Write.Query(ctx, `SELECT count(*) FROM `+sqlstore.MarksTable, nil,
			func(r sqlstore.Rows) error { return r.Scan(&n) }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := s.World().Write.Query(ctx, `DELETE FROM `+sqlstore.MarksTable+` WHERE name = 'b'`, nil,
		func(sqlstore.Rows) error { return nil }); err != nil || marks() != 1 {
		t.Fatalf("unmark b: %v", err)
	}
	changeStacked(t, s, 7)
	restore("b", atB)
	if n := marks(); n != 2 {
		t.Errorf("%d marks after restoring b by its differences, want 2", n)
	}
	changeStacked(t, s, 8)
	restore("a", atA)
	restore("b", atB)

	if err := s.DropSnapshot(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	e.wantTracking(t, "one snapshot dropped", true)
	changeStacked(t, s, 5)
	restore("b", atB)
	if err := s.DropSnapshot(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	e.wantTracking(t, "every snapshot dropped", false)
	changeStacked(t, s, 6)
	e.wantTracking(t, "writes after the drops", false)
}

// changeStacked writes as a test would, differently for each i: a post
// and a user made, a post and a follow deleted, a profile and a post
// changed, a like.
func changeStacked(t *testing.T, s Store, i int64) {
	t.Helper()
	ctx := ctxFor(t)
	b := fixture()
	u := b.Users[0]
	u.Name, u.FollowersCount = fmt.Sprintf("Changed %d", i), 100+i
	p := b.Posts[0]
	p.Text, p.FavoriteCount = fmt.Sprintf("zebra edit %d", i), 50+i
	id := 9000 + i
	if _, err := s.Write(ctx, &social.Batch{
		Users:   []social.User{u, {ID: 7000 + i, ScreenName: fmt.Sprintf("new%d", i), Name: "New"}},
		Posts:   []social.Post{p, {ID: id, AuthorID: 7000 + i, CreatedAt: at(200 + int(i)), Text: fmt.Sprintf("zebra %d https://example.com/%d", i, i), Lang: "en"}},
		Follows: []social.Follow{{FollowerID: 7000 + i, FolloweeID: alice, CreatedAt: at(201 + int(i))}},
		Likes:   []social.Like{{UserID: 7000 + i, PostID: 106, CreatedAt: at(202 + int(i))}},
	}); err != nil {
		t.Fatal(err)
	}
	del := &social.Batch{DeletePosts: []int64{id - 1}}
	if i == 2 {
		del.DeleteUsers = []int64{carol}
	}
	if _, err := s.Write(ctx, del); err != nil {
		t.Fatal(err)
	}
}
