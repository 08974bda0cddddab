package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlstore"
)

// A partitioned schema keeps post_author_months: the months (as the id
// range [lo, hi) of their partitions) each author has posts in, so that a
// timeline reads only those months' partitions (partedUserPostsSQL). It
// is a superset of the truth: a row trigger on posts adds the month of
// every post inserted, however (Write, COPY, restore, copy, a load, plain
// SQL), unless the writer added it (writeAuthorMonths), and of a post
// given another author; a deletion leaves its row, which costs a timeline
// one index probe, never a post.

// monthRowsSQL selects author_id, lo, hi of the months of the rows
// (author_id, id) of from, each once. The bounds are those of
// month.bounds (the epoch's month from the least bigint, as it holds
// every smaller id; the last to the greatest), looked up by width_bucket
// in an array of every month's least id made in Go (a binary search, where
// computing the month with date functions took a third of the trigger's
// time on a load).
func monthRowsSQL(from string) string {
	b := []string{"-9223372036854775808"}
	for m := epochMonth.next(); ; m = m.next() {
		lo, hi := m.bounds()
		b = append(b, lo)
		if hi == "MAXVALUE" {
			break
		}
	}
	b = append(b, "9223372036854775807")
	arr := `'{` + strings.Join(b, ",") + `}'::bigint[]`
	return `SELECT author_id, b[k] AS lo, b[k + 1] AS hi
		FROM (SELECT DISTINCT author_id, least(width_bucket(id, ` + arr + `), ` + strconv.Itoa(len(b)-1) + `) AS k
			FROM ` + from + `) a, (SELECT ` + arr + ` AS b) c`
}

// authorMonthsInsert adds the months of the rows of from that are
// missing, in key order (concurrent inserts then lock keys in one order).
func authorMonthsInsert(from string) string {
	return `INSERT INTO post_author_months (author_id, lo, hi)
		SELECT author_id, lo, hi FROM (` + monthRowsSQL(from) + `) r
		ORDER BY 1, 2
		ON CONFLICT DO NOTHING`
}

// authorMonthsSkip is the transaction's setting under which the row
// trigger leaves the months to the writer: writeAuthorMonths adds a
// batch's in one statement, then sets it while its posts are written.
const authorMonthsSkip = "roost.author_months"

// authorMonthsDDL makes the table and its row triggers on posts: each
// inserted post adds its author's month unless the writer added it
// (authorMonthsSkip), and a post given another author adds its month for
// that one. Row triggers, not one per statement with a transition table:
// PostgreSQL refuses every insert into a table with such a trigger once a
// partition is a foreign table ("cannot collect transition tuples from
// child foreign tables"), and a month may be moved to another server.
var authorMonthsDDL = []string{
	`CREATE TABLE post_author_months (author_id bigint NOT NULL, lo bigint NOT NULL, hi bigint NOT NULL,
		PRIMARY KEY (author_id, lo))`,
	`CREATE FUNCTION post_author_months_add() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		` + authorMonthsInsert("(SELECT NEW.author_id, NEW.id) AS r (author_id, id)") + `;
		RETURN NULL;
	END;
	$$`,
	`CREATE TRIGGER post_author_months_insert AFTER INSERT ON posts FOR EACH ROW
		WHEN (current_setting('` + authorMonthsSkip + `', true) IS DISTINCT FROM 'added')
		EXECUTE FUNCTION post_author_months_add()`,
	`CREATE TRIGGER post_author_months_update AFTER UPDATE OF author_id ON posts FOR EACH ROW
		WHEN (OLD.author_id IS DISTINCT FROM NEW.author_id)
		EXECUTE FUNCTION post_author_months_add()`,
}

// authorMonthsBatch is the least number of posts whose months a writer
// adds itself (writeAuthorMonths); fewer go through the row trigger.
const authorMonthsBatch = copyThreshold

// authorMonthsBatchSQL adds the months of the posts whose author and post
// ids are the arrays $1 and $2.
var authorMonthsBatchSQL = authorMonthsInsert("unnest($1::bigint[], $2::bigint[]) AS r (author_id, id)")

// writeAuthorMonths runs write, which stores ps, in tx of a partitioned
// schema. From authorMonthsBatch posts on, it sets authorMonthsSkip for
// write's statements alone, then adds the posts' months in one statement:
// a load pays no trigger call per post. Last, so that a month new to both
// of two writers at once holds the second back for as short a time as
// may be (it waits for the first's commit).
func writeAuthorMonths(ctx context.Context, tx pgx.Tx, ps []social.Post, write func() error) error {
	if len(ps) < authorMonthsBatch {
		return write()
	}
	authors, ids := make([]int64, len(ps)), make([]int64, len(ps))
	for i := range ps {
		authors[i], ids[i] = ps[i].AuthorID, ps[i].ID
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('`+authorMonthsSkip+`', 'added', true)`); err != nil {
		return fmt.Errorf("post_author_months: %w", err)
	}
	if err := write(); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `SELECT set_config('`+authorMonthsSkip+`', '', true)`); err != nil {
		return fmt.Errorf("post_author_months: %w", err)
	}
	if _, err := tx.Exec(ctx, authorMonthsBatchSQL, authors, ids); err != nil {
		return fmt.Errorf("post_author_months: %w", err)
	}
	return nil
}

// authorMonths makes post_author_months in a partitioned schema that has
// none (a new one, or one partitioned by an earlier release: its posts'
// months are then read once, in the migration's transaction).
func authorMonths(ctx context.Context, tx pgx.Tx) error {
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass('post_author_months') IS NOT NULL`).Scan(&exists); err != nil {
		return fmt.Errorf("postgres: post_author_months: %w", err)
	}
	if exists {
		return nil
	}
	for _, q := range append(authorMonthsDDL, authorMonthsInsert("posts")) {
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("postgres: post_author_months: %w", err)
		}
	}
	return nil
}

// partedUserPostsSQL is a user's timeline page on a partitioned schema
// (sqlstore.Dialect.UserPosts; $1 the user, $2 the cursor's id, $3 the
// page's size plus one): the author's months newest first, each joined by
// a nested loop to a LATERAL of its newest $3 posts below the cursor,
// newest first, whose partitions are pruned to that month's when it runs.
// Months are disjoint id ranges, so that is the order of ids. The months
// are a subquery sorted by itself (OFFSET 0 keeps it one), so the outer
// ORDER BY, of the month alone, is met as the rows come and never sorts
// them again (with the post id as a second key it would: an incremental
// sort reads ahead into the next month; a sort of the month alone, chosen
// over the unsorted months, is not stable). The LIMIT stops at the month
// that fills the page, so older months never run. The LATERAL's limit is
// the months' column n ($3), which the planner cannot know: with $3 known
// it counts on the default estimate of a range of ids (a few of the
// author's posts a month) and sorts every post of the author's month
// before taking $3; not knowing it, it walks the month's index backwards
// and stops. TestAuthorMonthsPlan checks that shape in custom and
// generic plans.
func partedUserPostsSQL(withReplies bool) string {
	replies := ""
	if !withReplies {
		replies = ` AND p.reply_to_id = 0`
	}
	return `SELECT ` + sqlstore.PostColumns + `, p.id, p.id
		FROM (SELECT lo, hi, $3::bigint AS n FROM post_author_months WHERE author_id = $1 AND lo < $2 ORDER BY lo DESC OFFSET 0) m
		CROSS JOIN LATERAL (SELECT ` + sqlstore.PostColumns + ` FROM posts p
			WHERE p.author_id = $1 AND p.id >= m.lo AND p.id < least(m.hi, $2)` + replies + `
			ORDER BY p.id DESC LIMIT m.n) p
		ORDER BY m.lo DESC LIMIT $3`
}
