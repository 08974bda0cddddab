package social

import (
	"math"
)

// ScoreEpoch is the zero of the recency part of Score: 2010-01-01T00:00:00Z.
const ScoreEpoch = 1262304000

// Score is the Top ranking of a post, a pure function of the post (it never
// depends on the time of the request, so pages stay stable):
//
//	engagement = favourites + 2·reposts + 2·quotes + replies + views/100
//	score      = 1e6 · (log2(1 + engagement) + (created − 2010-01-01) / 7 days)
//
// Doubling a post's engagement is worth one week of recency. Scores are
// integers so that a keyset cursor holds them exactly; ties are broken by id.
func Score(p *Post) int64 {
	e := float64(p.FavoriteCount) + 2*float64(p.RetweetCount) + 2*float64(p.QuoteCount) + float64(p.ReplyCount)
	if p.Views != nil {
		e += float64(*p.Views) / 100
	}
	if e < 0 {
		e = 0
	}
	weeks := float64(p.CreatedAt.Unix()-ScoreEpoch) / (7 * 86400)
	return int64(math.Floor(1e6 * (math.Log2(1+e) + weeks)))
}
