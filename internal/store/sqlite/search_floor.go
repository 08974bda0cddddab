package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// Score floors. A match of min_faves:N has engagement of at least N (of
// min_retweets:N at least 2N, of min_replies:N at least N; see
// social.Score), so in a bucket of ids, whose posts were all created after
// the bucket's first millisecond, it scores at least
// sqlstore.ScoreFloor(N, that time). A Top page reads each bucket of
// posts_bucket_score only down to that floor and skips the buckets whose
// best score is below it: the posts it reads are the few with high
// engagement, not every post of the bucket.
//
// Both premises are kept by triggers: the floor is used only while no
// stored post has a negative count (search_count_outliers, migration 0008)
// and every post's id agrees with its time (search_time_outliers, migration
// 0002).

// floorWalk is the Latest driver of a query that sets a least engagement
// (min_faves:, min_retweets:, min_replies:) and has no other driver, or
// whose drivers are all common, when the premises hold: posts newest
// first through posts_id_score, each post's score compared with the floor
// at its id's time before its row is read, so the walk reads the rows of
// the few posts that may reach the engagement, not every post of another
// common driver, and builds no set of ids (at 1M posts, `the
// min_faves:50` gathered and sorted 13,000 ids of min_faves: before its
// first row). With selective set, the walk is taken only if at most one
// in floorRatio of the newest densityProbe posts in range passes the
// floor: a low one (min_faves:1) passes nearly every post, and a common
// driver's own walk then reads fewer. The floor is sqlstore.ScoreFloor with the time of the
// id less the slack a post's time may differ by and the second Score's
// time truncates, and a margin for the floating-point arithmetic: as a
// linear function of the id's milliseconds, a + (id >> 22) * b.
func (s *Store) floorWalk(ctx context.Context, pl plan, selective bool) (access, bool, error) {
	if pl.minEngagement <= 0 {
		return access{}, false, nil
	}
	if ok, err := floorsHold(ctx, s.read); err != nil || !ok {
		return access{}, false, err
	}
	const week = 7 * 86400
	startS := float64(social.SnowflakeEpochMS-social.TimeSlackMS-1000) / 1000
	a := 1e6*(math.Log2(1+pl.minEngagement)+(startS-social.ScoreEpoch)/week) - floorMargin
	b := 1e6 / (week * 1000)
	from := "posts p INDEXED BY posts_id_score"
	w := access{name: "floor", from: from, key: "p.id", est: from, ekey: "p.id",
		cond: sqlstore.Cond{SQL: fmt.Sprintf("p.score >= ? + (p.id >> %d) * ?", social.SnowflakeShift), Args: []any{a, b}}}
	if !selective {
		return w, true, nil
	}
	m, err := s.newest(ctx, pl, w)
	if err != nil {
		return access{}, false, err
	}
	return w, m*floorRatio <= densityProbe, nil
}

// floorRatio: the walk by score floor drives a common query when at most
// one post in floorRatio passes its floor.
const floorRatio = 8

// floorMargin is how far below the exact floor floorWalk's stays: Score
// rounds down (1), and the floor's arithmetic in double precision on
// scores near 1e9 errs by far less than the rest.
const floorMargin = 16

// floorsHold reports whether the floors' premises hold: no stored post
// has a negative count or an id that disagrees with its time.
func floorsHold(ctx context.Context, q rowQuerier) (bool, error) {
	var outliers int
	if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_count_outliers)
		OR EXISTS (SELECT 1 FROM search_time_outliers)`).Scan(&outliers); err != nil {
		return false, fmt.Errorf("sqlite: search: score floor: %w", err)
	}
	return outliers == 0, nil
}

// leastEngagement is the least engagement of a post that satisfies n.
func leastEngagement(n search.CondCount) float64 {
	switch n.Kind {
	case search.Faves, search.Replies:
		return float64(n.Min)
	case search.Retweets:
		return 2 * float64(n.Min)
	}
	return 0
}

// bucketFloors returns the score floor of each bucket for pl, or nil when
// pl sets no least engagement or a premise does not hold.
func bucketFloors(ctx context.Context, tx *sql.Tx, pl *plan) (func(b int64) int64, error) {
	if pl.minEngagement <= 0 {
		return nil, nil
	}
	if ok, err := floorsHold(ctx, tx); err != nil || !ok {
		return nil, err
	}
	e := pl.minEngagement
	return func(b int64) int64 {
		// The bucket's first id, less the second a post's time may
		// differ from its id's.
		ms := (b<<bucketShift)>>social.SnowflakeShift + social.SnowflakeEpochMS - social.TimeSlackMS
		return sqlstore.ScoreFloor(e, time.UnixMilli(ms))
	}, nil
}
