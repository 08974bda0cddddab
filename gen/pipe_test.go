package gen

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"roost/social"
	"roost/sqlite"
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
