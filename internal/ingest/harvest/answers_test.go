package harvest_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/roostapi/roost/internal/ingest/harvest"
)

// TestAnswersBeforeCheckpoint: the ids of a by-ids harvest are answered
// (found or missing) before the checkpoint moves past them, so that a
// crash at the checkpoint (here a save that fails, as kill -9 there would)
// cannot lose an answer: the resumed run starts after the checkpoint and
// would not give it again.
func TestAnswersBeforeCheckpoint(t *testing.T) {
	u := newUpstream(t)
	c := newClient(t, u)
	ids := []int64{u.ex.PostID, 1, u.ex.ThreadID, 2}
	fs, err := harvest.OpenFile(filepath.Join(t.TempDir(), "out.jsonl"), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	var answers []string
	var saved bool
	crash := errors.New("crash at the checkpoint")
	save := func(*harvest.Checkpoint) error {
		saved = true
		return crash
	}
	_, err = harvest.Run(context.Background(), c, harvest.Job{Kind: "posts-by-ids", IDs: ids, Ahead: 0},
		&harvest.Checkpoint{}, fs, save, nil, func(id int64, found bool) { answers = append(answers, fmt.Sprint(id, found)) })
	if !errors.Is(err, crash) || !saved {
		t.Fatalf("Run: %v (saved %v); want the save's error", err, saved)
	}
	want := []string{fmt.Sprint(u.ex.PostID, true), "1 false", fmt.Sprint(u.ex.ThreadID, true), "2 false"}
	if !slices.Equal(answers, want) {
		t.Errorf("answered %v before the checkpoint; want %v", answers, want)
	}
}
