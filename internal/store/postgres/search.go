package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// gatherLimit is the planner's estimate of matches up to which a query
// anchored on a selective index is answered by gathering every match, at
// least (a word the statistics do not know may be estimated above it:
// search_floor.go).
const gatherLimit = 5000

// Search runs a parsed query (see social.Reader).
//
// A newest-first search of a rare term is the GIN trap: when the planner
// walks the id (or score) index backwards, testing every post, it reads
// most of the table before it has a page. So a query anchored on a
// GIN full-text index (words, phrases, url:) asks the planner first how many
// posts match (EXPLAIN of the bare condition, one round trip without
// execution). Up to gatherLimit (or the floor of search_floor.go), the matching ids are gathered from the
// index in a MATERIALIZED CTE (which the planner cannot turn into an
// ordered walk), sorted, and the page's rows fetched. Above it, matches are
// dense and the ordered walk finds a page after a few rows. A query with
// no such anchor (tags, mentions, from:, lang:, filters) runs as one ordered query, which
// the planner serves from the matching b-tree. Measurements are in the
// package README.
//
// With read replicas, the whole search runs on one of them (or on the
// primary, when none is well or the replica fails it). A search whose
// connection failed runs again (retryRead).
func (s *Store) Search(ctx context.Context, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	var page social.Page[social.Post]
	err := retryRead(ctx, new(int), func() (err error) {
		page, err = readOn(ctx, s.reads, s.pool, func(pool *pgxpool.Pool) (social.Page[social.Post], error) {
			return s.searchOn(ctx, pool, q, order, p)
		}, nil)
		return err
	})
	return page, err
}

// searchOn runs Search on pool.
func (s *Store) searchOn(ctx context.Context, pool *pgxpool.Pool, q *search.Query, order social.Order, p social.PageReq) (social.Page[social.Post], error) {
	if q == nil {
		q = &search.Query{}
	}
	c := &compiler{s: s, pool: pool, ctx: ctx}
	where, err := c.where(q)
	if err != nil {
		return social.Page[social.Post]{}, err
	}
	if c.plan.Never {
		return social.Page[social.Post]{Items: []social.Post{}}, nil
	}
	lim := sqlstore.Limit(p)
	sortCol := "id"
	orderBy := func(alias string) string { return " ORDER BY " + alias + ".id DESC" }
	if order == social.Top {
		sortCol = "score"
		orderBy = func(alias string) string { return " ORDER BY " + alias + ".score DESC, " + alias + ".id DESC" }
	}
	gather := false
	if c.plan.Root != nil && indexed(c.plan.Root) {
		est, err := s.estimate(ctx, pool, where, c.args)
		if err != nil {
			return social.Page[social.Post]{}, err
		}
		gather, err = s.gathers(ctx, pool, est, anchors(c.plan.Root))
		if err != nil {
			return social.Page[social.Post]{}, err
		}
	}
	sv, id := sqlstore.After(p, sqlstore.MaxInt64)
	if gather {
		// The cursor bound is kept out of the index scans ("+ 0"): as an
		// index condition it became a bitmap of the whole primary key
		// (measured: 96 ms of 111 at 1M posts).
		bound := "true"
		if p.After != nil {
			if sortCol == "id" {
				bound = "p.id + 0 < " + c.arg(id)
				if s.parts != nil && id > 0 {
					// The end of the cursor's month leaves the newer
					// partitions out (a bound on id itself, which pruning
					// reads) and is no index condition within the month's:
					// every row of it meets the bound.
					bound += " AND p.id < " + c.arg(monthOf(id-1).end())
				}
			} else {
				bound = "(p.score + 0, p.id + 0) < (" + c.arg(sv) + ", " + c.arg(id) + ")"
			}
		}
		n := c.arg(lim + 1)
		if s.parts != nil {
			// The page's least and greatest ids bound the fetch of its
			// rows too: values known when the fetch starts, by which its
			// scan leaves out every partition outside them. The ids are
			// an array (= ANY, an index condition of each partition's
			// key), not IN (SELECT …): with that the planner chose a hash
			// join over every post between the two (1M posts: 570k rows
			// read, 470 ms, for a page of 21 rare-word posts; now 2 ms).
			return s.searchPage(ctx, pool, lim, `WITH m AS MATERIALIZED (SELECT p.id, p.score FROM posts p WHERE `+where+` AND `+bound+`),
				top AS MATERIALIZED (SELECT m.id FROM m`+orderBy("m")+` LIMIT `+n+`)
				SELECT `+sqlstore.PostColumns+`, p.`+sortCol+`, p.id FROM posts p
				WHERE p.id = ANY (ARRAY(SELECT top.id FROM top)) AND p.id >= (SELECT min(top.id) FROM top)
				  AND p.id <= (SELECT max(top.id) FROM top)`+orderBy("p"), c.args)
		}
		return s.searchPage(ctx, pool, lim, `WITH m AS MATERIALIZED (SELECT p.id, p.score FROM posts p WHERE `+where+` AND `+bound+`)
			SELECT `+sqlstore.PostColumns+`, p.`+sortCol+`, p.id FROM posts p
			WHERE p.id IN (SELECT m.id FROM m`+orderBy("m")+` LIMIT `+n+`)`+orderBy("p"), c.args)
	}
	var key string
	if sortCol == "score" {
		key = "(p.score, p.id) < (" + c.arg(sv) + ", " + c.arg(id) + ")"
	} else {
		key = "p.id < " + c.arg(id)
	}
	n := c.arg(lim + 1)
	return s.searchPage(ctx, pool, lim, `SELECT `+sqlstore.PostColumns+`, p.`+sortCol+`, p.id FROM posts p WHERE `+where+` AND `+key+
		orderBy("p")+` LIMIT `+n, c.args)
}

// estimate is the planner's estimate of how many posts match where.
func (s *Store) estimate(ctx context.Context, pool *pgxpool.Pool, where string, args []any) (float64, error) {
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	err := pool.QueryRow(ctx, numbered(`EXPLAIN (FORMAT JSON) SELECT 1 FROM posts p WHERE `+where),
		append([]any{pgx.QueryExecModeExec}, args...)...).Scan(&plan)
	if err != nil || len(plan) == 0 {
		return 0, fmt.Errorf("postgres: search: estimate: %w", err)
	}
	return plan[0].Plan.Rows, nil
}

// searchPage runs a compiled search. Each text is planned with its values
// (QueryExecModeExec, no cached generic plan): a generic plan cannot fold
// phraseto_tsquery($n) to a constant or see how rare a term is (measured:
// the probe went from 1.6 ms to ~9 ms once the cached statement turned
// generic).
func (s *Store) searchPage(ctx context.Context, pool *pgxpool.Pool, lim int, query string, args []any) (social.Page[social.Post], error) {
	page, err := sqlstore.PostPage(ctx, pgDB{pool: pool, planned: true}, lim, query, args)
	if err != nil {
		return page, fmt.Errorf("postgres: search: %w", err)
	}
	return page, nil
}
