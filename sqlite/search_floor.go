package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/roostapi/roost/search"
	"github.com/roostapi/roost/sqlstore"
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

// leastEngagement is the least engagement of a post that satisfies n.
func leastEngagement(n search.MinCount) float64 {
	switch n.Kind {
	case search.Faves, search.Replies:
		return float64(n.N)
	case search.Retweets:
		return 2 * float64(n.N)
	}
	return 0
}

// bucketFloors returns the score floor of each bucket for pl, or nil when
// pl sets no least engagement or a premise does not hold.
func bucketFloors(ctx context.Context, tx *sql.Tx, pl *plan) (func(b int64) int64, error) {
	if pl.minEngagement <= 0 {
		return nil, nil
	}
	var outliers int
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM search_count_outliers)
		OR EXISTS (SELECT 1 FROM search_time_outliers)`).Scan(&outliers); err != nil {
		return nil, fmt.Errorf("sqlite: search: score floor: %w", err)
	}
	if outliers != 0 {
		return nil, nil
	}
	e := pl.minEngagement
	return func(b int64) int64 {
		// The bucket's first id, less the second a post's time may
		// differ from its id's.
		ms := (b<<bucketShift)>>sqlstore.SnowflakeShift + sqlstore.SnowflakeEpochMS - sqlstore.TimeSlackMS
		return sqlstore.ScoreFloor(e, time.UnixMilli(ms))
	}, nil
}
