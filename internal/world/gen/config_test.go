package gen

import (
	"context"
	"errors"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      Config
		want    Config
		wantErr bool
	}{
		{"zero takes defaults", Config{}, Config{Users: DefaultUsers, Posts: DefaultPosts, BatchSize: DefaultBatchSize}, false},
		{"kept", Config{Seed: 3, Users: 10, Posts: 20, BatchSize: 5}, Config{Seed: 3, Users: 10, Posts: 20, BatchSize: 5}, false},
		{"negative users", Config{Users: -1}, Config{}, true},
		{"negative posts", Config{Posts: -5}, Config{}, true},
		{"negative batch", Config{BatchSize: -5}, Config{}, true},
		{"too many users", Config{Users: MaxUsers + 1}, Config{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.normalize()
			if (err != nil) != tc.wantErr {
				t.Fatalf("normalize(%+v) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if !tc.wantErr && got != tc.want {
				t.Errorf("normalize(%+v) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
	if _, err := Generate(context.Background(), discard{}, Config{Users: -1}, nil); err == nil {
		t.Error("Generate accepted a negative user count")
	}
}

// TestTinyNetworks runs sizes where most features cannot all appear: they
// must still generate valid values without panicking.
func TestTinyNetworks(t *testing.T) {
	for _, cfg := range []Config{
		{Users: 1, Posts: 1},
		{Users: 1, Posts: 50, BatchSize: 1},
		{Users: 2, Posts: 300, BatchSize: 7},
		{Users: 19, Posts: 1000, BatchSize: 100},
		{Users: 60, Posts: 3000, BatchSize: 20000},
	} {
		w, sum := buildWorld(t, cfg)
		if len(w.users) != cfg.Users || len(w.posts) != cfg.Posts || sum.Posts != int64(cfg.Posts) {
			t.Errorf("%+v: %d users, %d posts, summary %d", cfg, len(w.users), len(w.posts), sum.Posts)
		}
		for _, p := range w.posts {
			for _, ref := range []int64{p.InReplyToID, p.QuotedID, p.RepostOfID} {
				if _, ok := w.posts[ref]; ref != 0 && (!ok || ref >= p.ID) {
					t.Errorf("%+v: post %d points at %d", cfg, p.ID, ref)
				}
			}
			if _, ok := w.users[p.AuthorID]; !ok {
				t.Errorf("%+v: post %d has no author", cfg, p.ID)
			}
		}
	}
}

func TestProgress(t *testing.T) {
	cfg := Config{Seed: 2, Users: 50, Posts: 2500, BatchSize: 1000}
	var seen []int
	if _, err := Generate(context.Background(), discard{}, cfg, func(n int) { seen = append(seen, n) }); err != nil {
		t.Fatal(err)
	}
	want := []int{1000, 2000, 2500}
	if len(seen) != len(want) {
		t.Fatalf("progress calls %v, want %v", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Fatalf("progress calls %v, want %v", seen, want)
		}
	}
}

func TestWriteErrorsAndCancel(t *testing.T) {
	cfg := Config{Seed: 2, Users: 50, Posts: 5000, BatchSize: 500}
	count := newRecorder(false)
	if _, err := Generate(context.Background(), count, cfg, nil); err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{1, count.writes / 2, count.writes} {
		rec := newRecorder(false)
		rec.failAt = at
		if _, err := Generate(context.Background(), rec, cfg, nil); !errors.Is(err, errInjected) {
			t.Errorf("write %d failing: Generate returned %v", at, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err := Generate(ctx, discard{}, cfg, func(int) {
		if calls++; calls == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: Generate returned %v", err)
	}
}
