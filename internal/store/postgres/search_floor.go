package postgres

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/search"
)

// The planner estimates a word its statistics do not list (the most common
// thousand of each text column, with the default statistics target) at
// half the least frequency they do list, times the rows: at 10M posts
// 6,635 posts for any such word, over gatherLimit, however rare the word
// is. A word of 66 posts was then walked newest first through the id
// index, testing every post: 2.4 s for its first page, where gathering
// its matches took 3 ms. So a search whose estimate is no more than
// that floor for each of its text conditions is gathered whatever the
// floor (its words are rarer than the least listed, whose posts were
// measured gathered in 15–37 ms at 10M); a listed word is walked as
// before (its posts are as dense as it says: 10–14 ms a page).

// absentLexeme is a word no post holds: the planner's estimate for it is
// the floor.
const absentLexeme = "roost0absent0lexeme"

// floorRefresh is how long a floor is used before it is read again (the
// statistics change when tables are analysed).
const floorRefresh = time.Minute

// textFloor keeps the planner's floor estimate of the text columns.
type textFloor struct {
	mu   sync.Mutex
	at   time.Time
	rows float64
}

// anchors counts n's text and url: conditions that select posts by an
// index (not under a NOT): the most posts a search of words all below the
// floor is estimated at is about the floor times these.
func anchors(n search.Cond) int {
	switch n := n.(type) {
	case search.CondText:
		return 1
	case search.CondURL:
		if urlIndexTokens(n) != "" {
			return 1
		}
	case search.CondAnd:
		return anchorsOf(n.Conds)
	case search.CondOr:
		return anchorsOf(n.Conds)
	}
	return 0
}

func anchorsOf(cs []search.Cond) int {
	k := 0
	for _, c := range cs {
		k += anchors(c)
	}
	return k
}

// gathers reports whether a search estimated at est posts and anchored
// on k text conditions is gathered: up to gatherMin, or up to the floor k
// times over (with 1 % for the estimates' rounding). The floor is read
// only for an estimate above gatherMin.
func (s *Store) gathers(ctx context.Context, pool *pgxpool.Pool, est float64, k int) (bool, error) {
	if est <= s.gatherMin {
		return true, nil
	}
	floor, err := s.floorRows(ctx, pool)
	if err != nil {
		return false, err
	}
	return est <= floor*float64(k)*1.01, nil
}

// floorRows is the greater of the planner's estimates of a word it does
// not know in the post text and in the urls, read at most once a
// floorRefresh (concurrent searches at its end may each read it).
func (s *Store) floorRows(ctx context.Context, pool *pgxpool.Pool) (float64, error) {
	f := &s.floor
	f.mu.Lock()
	rows, fresh := f.rows, !f.at.IsZero() && time.Since(f.at) < floorRefresh
	f.mu.Unlock()
	if fresh {
		return rows, nil
	}
	rows = 0
	for _, col := range []string{"p.tsv", "p.url_tsv"} {
		n, err := s.estimate(ctx, pool, col+" @@ '"+absentLexeme+"'::tsquery", nil)
		if err != nil {
			return 0, err
		}
		rows = math.Max(rows, n)
	}
	f.mu.Lock()
	f.at, f.rows = time.Now(), rows
	f.mu.Unlock()
	return rows, nil
}
