package gen

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
)

// bulkRecorder is a recorder offering a bulk load, as sqlite.Store does.
type bulkRecorder struct {
	*recorder
	bulks    int
	expected int64
}

func (b *bulkRecorder) Bulk(ctx context.Context, expectPosts int64, load func(social.Writer) error) error {
	b.bulks++
	b.expected = expectPosts
	return load(b.recorder)
}

// TestBulkGeneratesTheSameNetwork writes through the bulk path (the pipe
// included): the batches are the same, in the same order.
func TestBulkGeneratesTheSameNetwork(t *testing.T) {
	cfg := Config{Seed: 3, Users: 80, Posts: 4000, BatchSize: 500}
	plain := newRecorder(false)
	if _, err := Generate(context.Background(), plain, cfg, nil); err != nil {
		t.Fatal(err)
	}
	bulk := &bulkRecorder{recorder: newRecorder(false)}
	if _, err := Generate(context.Background(), bulk, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if bulk.bulks != 1 || bulk.expected != int64(cfg.Posts) {
		t.Errorf("Bulk called %d times expecting %d posts", bulk.bulks, bulk.expected)
	}
	if plain.sum() != bulk.sum() || plain.writes != bulk.writes {
		t.Errorf("bulk path wrote %d batches (hash %x), plain %d (hash %x)", bulk.writes, bulk.sum(), plain.writes, plain.sum())
	}
	for _, at := range []int{1, plain.writes / 2, plain.writes} {
		rec := &bulkRecorder{recorder: newRecorder(false)}
		rec.failAt = at
		if _, err := Generate(context.Background(), rec, cfg, nil); !errors.Is(err, errInjected) {
			t.Errorf("write %d failing in a bulk load: Generate returned %v", at, err)
		}
	}
}

// TestGenerateIntoSQLite generates a small network into SQLite through
// its bulk load and reads it back.
func TestGenerateIntoSQLite(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "roost.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := Generate(ctx, st, Config{Seed: 4, Users: 60, Posts: 3000, BatchSize: 400}, nil)
	if err != nil {
		t.Fatal(err)
	}
	counts, err := st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts["posts"] != sum.Posts || counts["users"] != sum.Users || counts["reposts"] != sum.Reposts {
		t.Errorf("stored %v, generated %+v", counts, sum)
	}
	page, err := st.UserPosts(ctx, sum.Examples.UserID, true, social.PageReq{Limit: 5})
	if err != nil || len(page.Items) == 0 {
		t.Errorf("timeline of user %d: %v, %d posts", sum.Examples.UserID, err, len(page.Items))
	}
}

// concurrentLoader is a bulk loader whose writer takes two Writes at once
// (a social.ConcurrentWriter, as the PostgreSQL store's is). It keeps the
// hash of every batch and checks the pipe's order: a batch written in
// order (the first users, the last communities, highlights) runs alone,
// with every batch before it done; and when rendezvous is set, the first batch of posts waits for a
// second Write to run beside it.
type concurrentLoader struct {
	t          *testing.T
	rendezvous bool

	mu       sync.Mutex
	sums     map[[32]byte]int
	inFlight int
	overlap  bool
	failAt   int
	writes   int
	waited   bool
	sawOther bool // a batch with more than users went by
	sawPosts bool // a batch with posts went by
}

func (c *concurrentLoader) Bulk(_ context.Context, _ int64, load func(social.Writer) error) error {
	return load(c)
}

func (c *concurrentLoader) Concurrency() int { return 2 }

func (c *concurrentLoader) Write(_ context.Context, b *social.Batch) (social.WriteStats, error) {
	c.mu.Lock()
	// The first users, the last communities and the highlights are
	// written in order.
	alone := len(b.Users) > 0 && !c.sawOther || len(b.Communities) > 0 && c.sawPosts || len(b.Highlights) > 0
	c.sawOther = c.sawOther || len(b.Users) < b.Len()
	c.sawPosts = c.sawPosts || len(b.Posts) > 0
	c.mu.Unlock()
	c.mu.Lock()
	c.writes++
	if c.failAt > 0 && c.writes == c.failAt {
		c.mu.Unlock()
		return social.WriteStats{}, errInjected
	}
	if alone && c.inFlight > 0 {
		c.t.Errorf("a batch written in order (%d users, %d communities, %d highlights) started beside %d other writes",
			len(b.Users), len(b.Communities), len(b.Highlights), c.inFlight)
	}
	c.inFlight++
	wait := c.rendezvous && len(b.Posts) > 0 && !c.waited
	c.waited = c.waited || wait
	c.mu.Unlock()
	if c.rendezvous && len(b.Posts) > 0 {
		// Hold every batch of posts a little, so that a batch handed over
		// after it would run beside it if the pipe let it.
		time.Sleep(2 * time.Millisecond)
	}
	if wait {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			c.mu.Lock()
			both := c.inFlight > 1
			c.mu.Unlock()
			if both {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	sum := sha256.New()
	if err := json.NewEncoder(sum).Encode(b); err != nil {
		return social.WriteStats{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight > 1 {
		c.overlap = true
	}
	if alone && c.inFlight > 1 {
		c.t.Errorf("a write started beside a batch written in order (%d users, %d communities, %d highlights)",
			len(b.Users), len(b.Communities), len(b.Highlights))
	}
	c.inFlight--
	var k [32]byte
	copy(k[:], sum.Sum(nil))
	c.sums[k]++
	return social.WriteStats{}, nil
}

// TestConcurrentBulkWritesTheSameBatches generates through a writer that
// takes two Writes at once: the batches are those of a plain run, the
// posts and relations are written two at a time, everything else alone,
// and a failing write still fails the run.
func TestConcurrentBulkWritesTheSameBatches(t *testing.T) {
	cfg := Config{Seed: 5, Users: 80, Posts: 4000, BatchSize: 300}
	plain := &concurrentLoader{t: t, sums: map[[32]byte]int{}}
	if _, err := Generate(context.Background(), writerOnly{plain}, cfg, nil); err != nil {
		t.Fatal(err)
	}
	conc := &concurrentLoader{t: t, sums: map[[32]byte]int{}, rendezvous: true}
	if _, err := Generate(context.Background(), conc, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(plain.sums, conc.sums) || conc.writes != plain.writes {
		t.Errorf("concurrent writes stored %d batches, plain %d; same batches: %v", conc.writes, plain.writes, maps.Equal(plain.sums, conc.sums))
	}
	if !conc.overlap {
		t.Errorf("no two batches were written at once")
	}
	if plain.overlap {
		t.Errorf("a plain writer got two batches at once")
	}
	for _, at := range []int{1, conc.writes / 2, conc.writes} {
		rec := &concurrentLoader{t: t, sums: map[[32]byte]int{}, failAt: at}
		if _, err := Generate(context.Background(), rec, cfg, nil); !errors.Is(err, errInjected) {
			t.Errorf("write %d failing in a concurrent load: Generate returned %v", at, err)
		}
	}
}

// writerOnly hides everything of a writer but Write.
type writerOnly struct{ w social.Writer }

func (w writerOnly) Write(ctx context.Context, b *social.Batch) (social.WriteStats, error) {
	return w.w.Write(ctx, b)
}
