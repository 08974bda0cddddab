package sqlstore

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// TestScoreFloor checks that no post with non-negative counts, created at
// or after t, scores below ScoreFloor of its least engagement, and that
// the floor is tight within one unit of the margin.
func TestScoreFloor(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	base := time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200000 {
		at := base.Add(time.Duration(rng.Int64N(int64(20 * 365 * 24 * time.Hour))))
		created := at.Add(time.Duration(rng.Int64N(int64(10 * 24 * time.Hour))))
		if i%4 == 0 {
			created = at // the bound itself
		}
		p := social.Post{CreatedAt: created, FavoriteCount: rng.Int64N(1 << uint(rng.IntN(40))),
			RetweetCount: rng.Int64N(1 << uint(rng.IntN(20))), ReplyCount: rng.Int64N(100)}
		if rng.IntN(2) == 0 {
			v := rng.Int64N(1 << uint(rng.IntN(30)))
			p.Views = &v
		}
		least := float64(p.FavoriteCount)
		if i%3 == 0 {
			least = max(least, 2*float64(p.RetweetCount))
		}
		f := ScoreFloor(least, at)
		if got := social.Score(&p); got < f {
			t.Fatalf("post %+v: score %d below floor %d of engagement %v at %v", p, got, f, least, at)
		}
		if i%4 == 0 && p.RetweetCount == 0 && p.ReplyCount == 0 && p.Views == nil && i%3 != 0 {
			if got := social.Score(&p); got-f > 3 {
				t.Fatalf("post %+v: score %d, floor %d: not tight", p, got, f)
			}
		}
	}
}
