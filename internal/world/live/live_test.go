package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/postgres"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/store/sqlstore"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/world"
	"github.com/roostapi/roost/internal/world/gen"
)

// store is an engine with the living world's storage.
type store interface {
	social.Store
	World() sqlstore.World
	Export(ctx context.Context, fn func(*social.Batch) error) error
}

// testConfig is a small generated network.
var testConfig = gen.Config{Seed: 11, Users: 150, Posts: 2500, BatchSize: 1000}

func openSQLite(t *testing.T, path string) store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// generated is a fresh SQLite file holding testConfig's network and seed.
func generated(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "roost.db")
	s := openSQLite(t, path)
	defer s.Close()
	fill(t, s)
	return path
}

func fill(t *testing.T, s store) {
	t.Helper()
	ctx := context.Background()
	if _, err := gen.Generate(ctx, s, testConfig, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.World().SetSeed(ctx, testConfig.Seed); err != nil {
		t.Fatal(err)
	}
}

// steps makes n ticks on s and returns their events.
func steps(t *testing.T, s store, n int) []Event {
	t.Helper()
	ctx := context.Background()
	lw, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for range n {
		ev, err := lw.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// digest hashes every stored value and the world row.
func digest(t *testing.T, s store) string {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	enc := json.NewEncoder(h)
	if err := s.Export(ctx, func(b *social.Batch) error { return enc.Encode(b) }); err != nil {
		t.Fatal(err)
	}
	st, err := s.World().State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(st); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSameTicksSameData: the same database and ticks give the same bytes,
// also when a run stops and another continues it, and on PostgreSQL as on
// SQLite; every kind of event occurs.
func TestSameTicksSameData(t *testing.T) {
	const n = 400
	a := openSQLite(t, generated(t))
	defer a.Close()
	before := digest(t, a)
	evs := steps(t, a, n)
	want := digest(t, a)
	if want == before {
		t.Fatal("the ticks changed nothing")
	}
	seen := map[string]int{}
	for i, ev := range evs {
		seen[ev.Kind]++
		if ev.Tick != int64(i+1) {
			t.Fatalf("event %d is tick %d", i, ev.Tick)
		}
		if i > 0 && !ev.At.After(evs[i-1].At) {
			t.Errorf("tick %d at %v, not after tick %d at %v", ev.Tick, ev.At, ev.Tick-1, evs[i-1].At)
		}
	}
	for _, k := range kinds() {
		if seen[k.kind] == 0 {
			t.Errorf("no %s event in %d ticks: %v", k.kind, n, seen)
		}
	}

	// Stopped after 150 ticks, reopened, continued.
	path := generated(t)
	b := openSQLite(t, path)
	steps(t, b, 150)
	b.Close()
	b = openSQLite(t, path)
	defer b.Close()
	steps(t, b, n-150)
	if got := digest(t, b); got != want {
		t.Errorf("stopped and continued: %s, want %s", got, want)
	}

	// In groups of ticks, each group one transaction (world.TickWriter),
	// one of them failing halfway and made again.
	c := openSQLite(t, generated(t))
	defer c.Close()
	fw := &failingGroup{store: c, failAt: 20}
	lw, err := Open(context.Background(), c.World(), fw, nil)
	if err != nil {
		t.Fatal(err)
	}
	var grouped []Event
	for _, k := range []int{1, 7, 64, 9, n - 81} {
		evs, err := lw.Steps(context.Background(), k)
		if k == 64 {
			if err == nil || lw.Tick() != 8 {
				t.Fatalf("a group whose 20th write failed: %v, tick %d after it", err, lw.Tick())
			}
			if st, err := c.World().State(context.Background()); err != nil || st.Tick != 8 {
				t.Fatalf("the failed group left tick %d (%v) stored", st.Tick, err)
			}
			evs, err = lw.Steps(context.Background(), k)
		}
		if err != nil {
			t.Fatal(err)
		}
		grouped = append(grouped, evs...)
	}
	if got := digest(t, c); got != want {
		t.Errorf("in groups: %s, want %s", got, want)
	}
	if g, e := mustJSON(t, grouped), mustJSON(t, evs); g != e {
		t.Errorf("in groups the events differ from one by one")
	}

	pg, err := postgres.Open(context.Background(), storetest.FreshSchema(t, storetest.PostgresURL(t)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	fill(t, pg)
	if got := digest(t, pg); got != before {
		t.Fatalf("PostgreSQL's generated network %s, SQLite's %s", got, before)
	}
	steps(t, pg, n)
	if got := digest(t, pg); got != want {
		t.Errorf("PostgreSQL after %d ticks: %s, SQLite's %s", n, got, want)
	}
}

// TestEventsMoveTheNetwork: each kind of event leaves what it says, with
// the counts moved by one.
func TestEventsMoveTheNetwork(t *testing.T) {
	s := openSQLite(t, generated(t))
	defer s.Close()
	ctx := context.Background()
	lw, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 300 {
		before := map[int64]social.User{}
		b, ev, err := lw.make(ctx, lw.tick+1)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{ev.UserID, ev.Target} {
			if u, err := s.User(ctx, id); err == nil {
				before[id] = u
			}
		}
		var target social.Post
		if ev.Kind == KindLike {
			target, _ = s.Post(ctx, ev.PostID)
		} else if ev.Target != 0 && ev.Kind != KindFollow && ev.Kind != KindUnfollow {
			target, _ = s.Post(ctx, ev.Target)
		}
		b.LiveTick = lw.tick + 1
		if _, err := s.Write(ctx, b); err != nil {
			t.Fatal(err)
		}
		lw.tick++
		for _, p := range b.Posts {
			lw.remember(p)
		}
		after := func(id int64) social.User {
			u, err := s.User(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return u
		}
		post := func(id int64) social.Post {
			p, err := s.Post(ctx, id)
			if err != nil {
				t.Fatalf("tick %d (%s): post %d: %v", ev.Tick, ev.Kind, id, err)
			}
			return p
		}
		a := after(ev.UserID)
		switch ev.Kind {
		case KindPost, KindReply, KindQuote, KindRepost:
			p := post(ev.PostID)
			if p.AuthorID != ev.UserID || !p.CreatedAt.Equal(ev.At) || a.StatusesCount != before[ev.UserID].StatusesCount+1 {
				t.Errorf("tick %d (%s): post by %d at %v, author's statuses %d → %d", ev.Tick, ev.Kind, p.AuthorID, p.CreatedAt,
					before[ev.UserID].StatusesCount, a.StatusesCount)
			}
			if ev.Kind == KindPost {
				break
			}
			got := post(ev.Target)
			switch {
			case ev.Kind == KindReply && (p.InReplyToID != ev.Target || got.ReplyCount != target.ReplyCount+1):
				t.Errorf("tick %d: reply to %d, replies %d → %d", ev.Tick, p.InReplyToID, target.ReplyCount, got.ReplyCount)
			case ev.Kind == KindQuote && (p.QuotedID != ev.Target || got.QuoteCount != target.QuoteCount+1):
				t.Errorf("tick %d: quote of %d, quotes %d → %d", ev.Tick, p.QuotedID, target.QuoteCount, got.QuoteCount)
			case ev.Kind == KindRepost:
				ok, err := s.Reposted(ctx, ev.Target, ev.UserID)
				if p.RepostOfID != ev.Target || got.RetweetCount != target.RetweetCount+1 || !ok || err != nil {
					t.Errorf("tick %d: repost of %d, reposts %d → %d, repost row %v %v", ev.Tick, p.RepostOfID, target.RetweetCount, got.RetweetCount, ok, err)
				}
			}
		case KindLike:
			got := post(ev.PostID)
			ok, err := s.World().Liked(ctx, ev.PostID, ev.UserID)
			if got.FavoriteCount != target.FavoriteCount+1 || !ok || err != nil || a.FavouritesCount != before[ev.UserID].FavouritesCount+1 {
				t.Errorf("tick %d: like of %d: likes %d → %d, row %v %v", ev.Tick, ev.PostID, target.FavoriteCount, got.FavoriteCount, ok, err)
			}
		case KindFollow, KindUnfollow:
			to := after(ev.Target)
			d := int64(1)
			if ev.Kind == KindUnfollow {
				d = -1
			}
			ok, err := s.Follows(ctx, ev.UserID, ev.Target)
			if ok != (d == 1) || err != nil || a.FriendsCount != before[ev.UserID].FriendsCount+d ||
				to.FollowersCount != before[ev.Target].FollowersCount+d {
				t.Errorf("tick %d (%s %d → %d): follows %v %v, friends %d → %d, followers %d → %d", ev.Tick, ev.Kind, ev.UserID, ev.Target,
					ok, err, before[ev.UserID].FriendsCount, a.FriendsCount, before[ev.Target].FollowersCount, to.FollowersCount)
			}
		case KindProfile:
			was := before[ev.UserID]
			if a.Description == was.Description && a.Location == was.Location && a.Name == was.Name {
				t.Logf("tick %d: profile edit drew the same value", ev.Tick)
			}
		}
	}
}

// TestTwoWriters: a writer whose tick another wrote first reads the world
// again and writes the next one; the data is that of one writer.
func TestTwoWriters(t *testing.T) {
	ctx := context.Background()
	one := openSQLite(t, generated(t))
	defer one.Close()
	steps(t, one, 6)

	s := openSQLite(t, generated(t))
	defer s.Close()
	a, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := a.Step(ctx); err != nil {
			t.Fatal(err)
		}
		ev, err := b.Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Tick != a.Tick()+1 {
			t.Fatalf("the second writer made tick %d after the first wrote %d", ev.Tick, a.Tick())
		}
		a.tick = b.tick
		if err := a.load(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := digest(t, s), digest(t, one); got != want {
		t.Errorf("two writers left %s, one writer %s", got, want)
	}

	// In groups of ticks: the second writer's group meets a tick the first
	// wrote, rolls back and is made again after it.
	g := openSQLite(t, generated(t))
	defer g.Close()
	a, err = Open(ctx, g.World(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err = Open(ctx, g.World(), g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Steps(ctx, 3); err != nil {
		t.Fatal(err)
	}
	evs, err := b.Steps(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if evs[0].Tick != 4 || b.Tick() != 6 {
		t.Fatalf("the second writer's group: ticks %d to %d", evs[0].Tick, b.Tick())
	}
	if got, want := digest(t, g), digest(t, one); got != want {
		t.Errorf("two writers in groups left %s, one writer %s", got, want)
	}
}

// TestUnseeded: a database roost gen did not fill lives from seed 0; one
// without profiles cannot live.
func TestUnseeded(t *testing.T) {
	ctx := context.Background()
	s := openSQLite(t, filepath.Join(t.TempDir(), "roost.db"))
	defer s.Close()
	if _, err := Open(ctx, s.World(), s, nil); !errors.Is(err, ErrNoUsers) {
		t.Errorf("an empty database: %v, want ErrNoUsers", err)
	}
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	id := snowflake(at.UnixMilli(), 1, 0)
	if _, err := s.Write(ctx, &social.Batch{
		Users: []social.User{{ID: 7, ScreenName: "seven", Name: "Seven", CreatedAt: at}, {ID: 8, ScreenName: "eight", Name: "Eight", CreatedAt: at}},
		Posts: []social.Post{{ID: id, AuthorID: 7, CreatedAt: at, Text: "imported", Lang: "en", ConversationID: id}},
	}); err != nil {
		t.Fatal(err)
	}
	lw, err := Open(ctx, s.World(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if seed, ok := lw.Seed(); seed != 0 || ok {
		t.Errorf("seed %d recorded %v, want 0 and not recorded", seed, ok)
	}
	ev, err := lw.Step(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := at.Add(TickMS * time.Millisecond); ev.At.Before(want) || !ev.At.Before(want.Add(TickMS*time.Millisecond)) {
		t.Errorf("the first tick at %v, want within a second after %v (a second after the newest post)", ev.At, want)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]time.Duration{"5/s": 200 * time.Millisecond, "200/m": 300 * time.Millisecond,
		"30/h": 2 * time.Minute, " 1/s ": time.Second, "10000/s": 100 * time.Microsecond} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "5", "5/d", "0/s", "-1/s", "x/s", "1.5/s", "10001/s", "/s"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) accepted", in)
		}
	}
}

// failingGroup writes groups of ticks through Store, failing the
// failAt-th write of the first group that has one.
type failingGroup struct {
	store
	failAt int
	failed bool
}

func (f *failingGroup) WriteTicks(ctx context.Context, fn func(world.Store, func(*social.Batch) error) error) error {
	return f.store.(world.TickWriter).WriteTicks(ctx, func(w world.Store, write func(*social.Batch) error) error {
		i := 0
		return fn(w, func(b *social.Batch) error {
			if i++; i == f.failAt && !f.failed {
				f.failed = true
				return errors.New("disk full")
			}
			return write(b)
		})
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failing fails its first writes.
type failing struct {
	social.Writer
	left atomic.Int32
}

func (f *failing) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	if f.left.Add(-1) >= 0 {
		return social.WriteStats{}, errors.New("disk full")
	}
	return f.Writer.Write(ctx, b)
}

// TestRunRetries: Run makes ticks at its interval, makes a failed tick
// again after a pause, and stops when its context ends.
func TestRunRetries(t *testing.T) {
	s := openSQLite(t, generated(t))
	defer s.Close()
	w := &failing{Writer: s}
	w.left.Store(3)
	lw, err := Open(context.Background(), s.World(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); lw.Run(ctx, time.Millisecond) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := s.World().State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Tick >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tick %d after 20 s", st.Tick)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if w.left.Load() >= 0 {
		t.Errorf("the failing writes were not all tried: %d left", w.left.Load())
	}
}
