package sqlstore

import (
	"math"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// ScoreFloor is a score below Score of every post created at or after t
// whose engagement is at least minEngagement, provided none of the post's
// counts is negative. It lets a Top search that asks for a least count
// (min_faves: and the like) skip every post scoring below it; the margin
// of 2 covers the rounding of the floating-point formula.
func ScoreFloor(minEngagement float64, t time.Time) int64 {
	weeks := float64(t.Unix()-social.ScoreEpoch) / (7 * 86400)
	return int64(math.Floor(1e6*(math.Log2(1+max(minEngagement, 0))+weeks))) - 2
}
