package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
)

type store interface {
	social.Store
	Source
	Destination
}

func openSQLite(t *testing.T) *sqlite.Store {
	s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) *postgres.Store {
	s, err := postgres.Open(context.Background(), storetest.FreshSchema(t, storetest.PostgresURL(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dump is everything a store holds, in export order.
func dump(t *testing.T, s store) ([]*social.Batch, []social.APIKey, []social.LedgerEntry) {
	t.Helper()
	ctx := context.Background()
	var batches []*social.Batch
	if err := s.Export(ctx, func(b *social.Batch) error { batches = append(batches, b); return nil }); err != nil {
		t.Fatal(err)
	}
	keys, err := s.Keys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ledger []social.LedgerEntry
	if err := s.ExportLedger(ctx, func(r []social.LedgerEntry) error { ledger = append(ledger, r...); return nil }); err != nil {
		t.Fatal(err)
	}
	return batches, keys, ledger
}

func sameData(t *testing.T, what string, a, b store) {
	t.Helper()
	ab, ak, al := dump(t, a)
	bb, bk, bl := dump(t, b)
	if !reflect.DeepEqual(ab, bb) {
		t.Errorf("%s: exported values differ", what)
		for i := range min(len(ab), len(bb)) {
			if !reflect.DeepEqual(ab[i], bb[i]) {
				t.Errorf("first difference in batch %d:\n%+v\n%+v", i, ab[i], bb[i])
				break
			}
		}
	}
	if !reflect.DeepEqual(ak, bk) {
		t.Errorf("%s: keys differ:\n%+v\n%+v", what, ak, bk)
	}
	if !reflect.DeepEqual(al, bl) {
		t.Errorf("%s: ledgers differ:\n%+v\n%+v", what, al, bl)
	}
	ca, _ := a.Counts(context.Background())
	cb, _ := b.Counts(context.Background())
	if !maps.Equal(ca, cb) {
		t.Errorf("%s: counts %v and %v", what, ca, cb)
	}
}

// seed fills a store with the suite's fixture (likes, spaces and an
// extended bio among its values), many posts, follows and likes (past the
// bulk threshold and the export chunk, whose keys are one id and two),
// spaces with rosters, and accounts with debits and a revocation.
func seed(t *testing.T, s store) *social.Batch {
	ctx := context.Background()
	if _, err := s.Write(ctx, storetest.Fixture()); err != nil {
		t.Fatal(err)
	}
	b := &social.Batch{}
	for i := int64(1); i <= 4500; i++ {
		v := i
		b.Posts = append(b.Posts, social.Post{ID: 10000 + i, AuthorID: 1 + i%5, Text: "bulk post", Views: &v,
			Entities: social.Entities{Hashtags: []social.Tag{{Text: "Bulk"}}}})
	}
	for i := int64(1); i <= 2500; i++ {
		b.Follows = append(b.Follows, social.Follow{FollowerID: 1 + i%3, FolloweeID: 20000 + i, CreatedAt: time.UnixMicro(i).UTC()})
		b.Likes = append(b.Likes, social.Like{PostID: 10000 + i, UserID: 1 + i%5, CreatedAt: time.UnixMicro(3 * i).UTC()})
	}
	for i := range 40 {
		b.Spaces = append(b.Spaces, social.Space{ID: fmt.Sprintf("1Sp%010d", i), CreatorID: int64(1 + i%5),
			Title: "space", State: social.SpaceEnded, CreatedAt: time.UnixMicro(int64(i + 1)).UTC(),
			Replay: i%2 == 0, Admins: []int64{int64(1 + i%5)}, Speakers: []int64{2, 3}[:i%3]})
	}
	b.Users = []social.User{{ID: 6, ScreenName: "frank", Name: "Frank", ExtendedBio: "a second\nbio"}}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Deletions: their tombstones travel, missing ids' too.
	if _, err := s.Write(ctx, &social.Batch{DeletePosts: []int64{14000, 999999}, DeleteUsers: []int64{77777}}); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"one", "two", "three"} {
		k, err := s.CreateKey(ctx, social.APIKey{Name: name, Prefix: "roost_" + name, Digest: sha256.Sum256([]byte(name))}, int64(1000*(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Debit(ctx, social.Debit{KeyID: k.ID, RequestID: "r", Endpoint: "/x", Items: 2, Amount: 30}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := s.Revoke(ctx, k.ID); err != nil {
				t.Fatal(err)
			}
		}
		if i == 2 { // a sandbox fault plan travels with its key
			if _, err := s.SetFault(ctx, k.ID, "429=0.1,seed=3"); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	lite := openSQLite(t)
	b := seed(t, lite)
	pg := openPostgres(t)

	var out bytes.Buffer
	sent, err := Copy(ctx, lite, pg, &out)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := lite.Counts(ctx)
	for k, v := range want {
		if sent[k] != v {
			t.Errorf("sent %d %s, the source has %d", sent[k], k, v)
		}
	}
	if !strings.Contains(out.String(), "copying") {
		t.Errorf("no progress bar drawn: %q", out.String())
	}
	sameData(t, "SQLite → PostgreSQL", lite, pg)

	// Twice changes nothing.
	if _, err := Copy(ctx, lite, pg, nil); err != nil {
		t.Fatal(err)
	}
	sameData(t, "SQLite → PostgreSQL twice", lite, pg)

	// New keys on the copy continue after the copied ids.
	k, err := pg.CreateKey(ctx, social.APIKey{Name: "new", Prefix: "p", Digest: sha256.Sum256([]byte("new"))}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != 4 {
		t.Errorf("new key id %d after 3 copied keys, want 4", k.ID)
	}
	led, err := pg.Ledger(ctx, k.ID)
	if err != nil || len(led) != 1 || led[0].ID != 7 {
		t.Errorf("new ledger row %+v, %v; want id 7 after 6 copied rows", led, err)
	}

	back := openSQLite(t)
	if _, err := Copy(ctx, pg, back, nil); err != nil {
		t.Fatal(err)
	}
	sameData(t, "PostgreSQL → SQLite", pg, back)
	if _, err := Copy(ctx, pg, back, nil); err != nil {
		t.Fatal(err)
	}
	sameData(t, "PostgreSQL → SQLite twice", pg, back)

	// A tombstone of the source keeps its id out of the copy.
	if st, err := back.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 999999, AuthorID: 1, Text: "x"}}}); err != nil ||
		st.PostsSkipped != 1 {
		t.Errorf("a post deleted in the source is stored in the copy: %+v %v", st, err)
	}
	// A sample read through the store interface agrees.
	u, err := back.UserByScreenName(ctx, "ALICE")
	if err != nil || u.ID != 1 || !u.Verified || u.ExtendedBio != storetest.Fixture().Users[0].ExtendedBio {
		t.Errorf("alice after the round trip: %+v, %v", u, err)
	}
	if u, err := back.User(ctx, 6); err != nil || u.ExtendedBio != "a second\nbio" {
		t.Errorf("frank's extended bio after the round trip: %q, %v", u.ExtendedBio, err)
	}
	liking, err := back.LikingUsers(ctx, 10004, social.PageReq{Limit: 5})
	if err != nil || len(liking.Items) != 1 || liking.Items[0].ID != 5 {
		t.Errorf("likers of 10004 after the round trip: %+v, %v", liking.Items, err)
	}
	for _, want := range append(storetest.Fixture().Spaces, b.Spaces[5]) {
		got, err := back.Space(ctx, want.ID)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("space %s after the round trip:\n%+v, %v\nwant %+v", want.ID, got, err, want)
		}
	}
	if c, _ := back.Counts(ctx); c["likes"] != 2505 || c["spaces"] != 42 {
		t.Errorf("counts after the round trip: %v", c)
	}
	kb, err := back.KeyByDigest(ctx, sha256.Sum256([]byte("two")))
	if err != nil || kb.RevokedAt == nil || kb.Balance != 1970 {
		t.Errorf("key two after the round trip: %+v, %v", kb, err)
	}
}

// TestUpstreamRoundTrip: a gateway's upstream ledger (with its ids) and
// its budget's spending go SQLite → PostgreSQL → SQLite, nothing reserved
// comes along, twice changes nothing, the copy's next ledger row follows
// the copied ids, and its page cache is not copied.
func TestUpstreamRoundTrip(t *testing.T) {
	ctx := context.Background()
	lite, pg, back := openSQLite(t), openPostgres(t), openSQLite(t)
	g := lite.Gateway()
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i := range 1203 { // more than two chunks
		e := ledger.Entry{RequestID: fmt.Sprintf("r%d", i), KeyID: int64(i%3 + 1), Endpoint: "search",
			CacheHit: i%2 == 0, Status: 200, Micros: int64(i % 7), At: at.Add(time.Duration(i) * time.Second)}
		if err := g.LogUpstream(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	budget := []ledger.Budget{{Period: "total", Limit: 1_000_000}, {Period: "day:2026-11-25", Limit: 500_000}}
	if err := g.Reserve(ctx, "a", budget, 4_000, at); err != nil {
		t.Fatal(err)
	}
	if err := g.Settle(ctx, "a", budget, 3_000); err != nil {
		t.Fatal(err)
	}
	if err := g.Reserve(ctx, "in-flight", budget, 4_000, at); err != nil { // not copied
		t.Fatal(err)
	}
	if err := g.PutPage(ctx, "k", "search", ledger.Page{Body: []byte(`{}`), FetchedAt: at}); err != nil {
		t.Fatal(err)
	}
	want, err := g.UpstreamLedger(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name   string
		from   Source
		to     Destination
		toGW   sqlstore.Gateway
		nextID int64
	}{{"SQLite → PostgreSQL", lite, pg, pg.Gateway(), 1204}, {"PostgreSQL → SQLite", pg, back, back.Gateway(), 1205}} {
		for range 2 {
			sent, err := Copy(ctx, step.from, step.to, nil)
			if err != nil {
				t.Fatal(err)
			}
			if sent["upstream_ledger"] != int64(len(want)) || sent["upstream_budget"] != 2 {
				t.Fatalf("%s: sent %v", step.name, sent)
			}
		}
		got, err := step.toGW.UpstreamLedger(ctx)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ledgers differ (%d rows, %d wanted; %v)", step.name, len(got), len(want), err)
		}
		for _, b := range budget {
			if s, r, err := step.toGW.Spent(ctx, b.Period); s != 3_000 || r != 0 || err != nil {
				t.Errorf("%s: %s spent %d reserved %d (%v); want 3000 and 0", step.name, b.Period, s, r, err)
			}
		}
		if _, found, err := step.toGW.Page(ctx, "k"); found || err != nil {
			t.Errorf("%s: the page cache was copied (%v)", step.name, err)
		}
		// The copy's own next row follows the copied ids.
		if err := step.toGW.LogUpstream(ctx, ledger.Entry{RequestID: "next", Endpoint: "search", At: at}); err != nil {
			t.Fatal(err)
		}
		rows, _ := step.toGW.UpstreamLedger(ctx)
		if last := rows[len(rows)-1]; last.ID != step.nextID || last.RequestID != "next" {
			t.Errorf("%s: next ledger row %+v, want id %d", step.name, last, step.nextID)
		}
		want = rows
	}
}
