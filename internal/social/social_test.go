package social

import (
	"testing"
	"time"
)

func TestScore(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	base := Post{CreatedAt: at, FavoriteCount: 10}
	s0 := Score(&base)
	more := base
	more.FavoriteCount = 21 // engagement 10 → 21: about one doubling
	later := base
	later.CreatedAt = at.Add(7 * 24 * time.Hour)
	if d := Score(&more) - s0; d < 990_000 || d > 1_100_000 {
		t.Errorf("doubling engagement adds %d, want about 1e6", d)
	}
	if d := Score(&later) - s0; d != 1_000_000 {
		t.Errorf("a week later adds %d, want exactly 1e6", d)
	}
	views := int64(1000)
	withViews := base
	withViews.Views = &views
	if Score(&withViews) <= s0 {
		t.Error("views do not count")
	}
	if Score(&base) != s0 {
		t.Error("score is not a pure function")
	}
}
