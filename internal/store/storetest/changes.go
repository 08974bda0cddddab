package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// testChangeLog: writes log the posts and follows they insert and the
// full profiles they write, in their own transaction (a failed write logs
// nothing), and only while a monitor exists, bulk loads included; the
// dispatch position moves only from where it is; a monitor is leased to
// one deliverer at a time.
func testChangeLog(t *testing.T, open Opener) {
	s := open(t)
	ctx := ctxFor(t)
	m := s.Monitors()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	post := func(id, author int64) social.Post {
		return social.Post{ID: id, AuthorID: author, CreatedAt: t0, Text: "p", Lang: "en"}
	}
	first := &social.Batch{Users: []social.User{{ID: 1, ScreenName: "a", CreatedAt: t0}},
		Posts: []social.Post{post(10, 1)}, Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: t0}}}
	if _, err := s.Write(ctx, first); err != nil {
		t.Fatal(err)
	}
	changes := func() []monitor.Change {
		t.Helper()
		cs, err := m.Changes(ctx, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if cs := changes(); len(cs) != 0 {
		t.Fatalf("%d changes logged without a monitor", len(cs))
	}
	if err := m.Create(ctx, monitor.Monitor{ID: "01hx1r99s0nsqq1ffdhmyyqbfr", KeyID: 1, Kind: "user_tweets", UserID: 1,
		Params: []byte("{}"), State: monitor.MonitorActive, CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	b := &social.Batch{
		Users:   []social.User{{ID: 3, Stub: true, ScreenName: "stub"}, {ID: 1, ScreenName: "a2", CreatedAt: t0}},
		Posts:   []social.Post{post(10, 1), post(11, 1), post(12, 3)},
		Follows: []social.Follow{{FollowerID: 1, FolloweeID: 2, CreatedAt: t0}, {FollowerID: 1, FolloweeID: 3, CreatedAt: t0}},
	}
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind            monitor.ChangeKind
		subject, object int64
	}
	var got []row
	for _, c := range changes() {
		got = append(got, row{c.Kind, c.Subject, c.Object})
	}
	want := []row{{monitor.ChangePost, 1, 11}, {monitor.ChangePost, 3, 12}, {monitor.ChangeProfile, 1, 0},
		{monitor.ChangeFollow, 1, 3}}
	if !equalRows(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	// The same batch again: only the profile is written again.
	if _, err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	// A write that fails logs nothing.
	if _, err := s.Write(ctx, &social.Batch{Posts: []social.Post{post(13, 1), post(14, 0)}}); err == nil {
		t.Fatal("a post without an author was written")
	}
	cs := changes()
	if len(cs) != 5 || cs[4].Kind != monitor.ChangeProfile || cs[4].Seq <= cs[3].Seq {
		t.Fatalf("after a rewrite and a failed write: %+v", cs)
	}
	if bl, ok := s.(social.BulkLoader); ok {
		err := bl.Bulk(ctx, 1, func(w social.Writer) error {
			_, err := w.Write(ctx, &social.Batch{Posts: []social.Post{post(20, 1)}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if cs := changes(); len(cs) != 6 || cs[5].Object != 20 {
			t.Fatalf("a bulk load's post was not logged: %+v", cs)
		}
	}
	// An unfollow is logged for the edge it deleted, not for one that
	// was not there.
	before := len(changes())
	if _, err := s.Write(ctx, &social.Batch{Unfollows: []social.Follow{{FollowerID: 1, FolloweeID: 3}, {FollowerID: 1, FolloweeID: 9}}}); err != nil {
		t.Fatal(err)
	}
	if cs := changes(); len(cs) != before+1 || cs[before].Kind != monitor.ChangeUnfollow || cs[before].Subject != 1 || cs[before].Object != 3 {
		t.Fatalf("after unfollowing 1→3 and the absent 1→9: %+v", cs[before:])
	}

	last := changes()[len(changes())-1].Seq
	const mid = "01hx1r99s0nsqq1ffdhmyyqbfr"
	ev := []monitor.NewEvent{{MonitorID: mid, Event: "new_tweet", Dedup: "post:11", Data: []byte(`{"id":11}`)},
		{MonitorID: mid, Event: "new_tweet", Dedup: "post:11", Data: []byte(`{"id":11}`)}}
	if ok, err := m.Dispatch(ctx, 0, last, ev, nil); !ok || err != nil {
		t.Fatalf("dispatch from 0: %v %v", ok, err)
	}
	if ok, err := m.Dispatch(ctx, 0, last, ev, nil); ok || err != nil {
		t.Fatalf("a second dispatch from 0 moved the position: %v %v", ok, err)
	}
	if seq, err := m.Cursor(ctx); seq != last || err != nil {
		t.Fatalf("cursor %d (%v), want %d", seq, err, last)
	}
	if cs := changes(); len(cs) != 0 {
		t.Errorf("%d dispatched changes kept", len(cs))
	}
	now := time.Now()
	due, err := m.Due(ctx, now, 10)
	if err != nil || len(due) != 1 || string(due[0].Data) != `{"id":11}` {
		t.Fatalf("due: %+v %v (one event: the same post once)", due, err)
	}
	o := due[0]
	if got, err := m.Lease(ctx, &o, now, now.Add(time.Minute)); !got || err != nil {
		t.Fatalf("lease: %v %v", got, err)
	}
	if got, _ := m.Lease(ctx, &o, now, now.Add(time.Minute)); got {
		t.Fatal("a leased monitor was leased again")
	}
	if d, _ := m.Due(ctx, now, 10); len(d) != 0 {
		t.Fatal("a leased monitor's event is due")
	}
	if err := m.Record(ctx, monitor.Attempt{MonitorID: mid, EventID: o.ID, Attempt: 1, Status: 503, At: now},
		monitor.EventPending, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := m.Lease(ctx, &o, now, now.Add(time.Minute)); got {
		t.Fatal("an attempt made meanwhile was leased again from a stale read")
	}
	due, _ = m.Due(ctx, now, 10)
	if len(due) != 1 || due[0].Attempts != 1 {
		t.Fatalf("after a failed attempt: %+v", due)
	}
	if got, _ := m.Lease(ctx, &due[0], now, now.Add(time.Minute)); !got {
		t.Fatal("the next attempt could not be leased")
	}
	if err := m.Release(ctx, mid); err != nil {
		t.Fatal(err)
	}
	// Leases in one transaction: the stale read is refused, the fresh one
	// leased, and nothing after.
	if got, err := m.LeaseAll(ctx, []monitor.Outgoing{o, due[0]}, now, now.Add(time.Minute)); err != nil ||
		!slices.Equal(got, []bool{false, true}) {
		t.Fatalf("lease a stale and a fresh read at once: %v %v, want [false true]", got, err)
	}
	if got, _ := m.LeaseAll(ctx, due, now, now.Add(time.Minute)); !slices.Equal(got, []bool{false}) {
		t.Fatalf("a leased monitor was leased again: %v", got)
	}
	if err := m.Release(ctx, mid); err != nil {
		t.Fatal(err)
	}
	if at, err := m.Attempts(ctx, mid, 10); err != nil || len(at) != 1 || at[0].Status != 503 {
		t.Errorf("delivery log %+v %v", at, err)
	}
}

func equalRows[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
