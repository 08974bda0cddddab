package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/roostapi/roost/internal/social"
)

// PartitionMonth is the one partitioning scheme: posts and the tables keyed
// by post are range-partitioned by post id, a calendar month (UTC) of
// snowflake ids each.
const PartitionMonth = "month"

// partTable is a table partitioned by post id: key is its partition key,
// pk the primary key each partition has. The partitioned table itself has
// no unique index (a foreign partition could not be attached to it); each
// partition's primary key holds the post id, so keys are unique across
// partitions too.
type partTable struct{ name, key, pk string }

// partTables are the tables keyed by post. Keys, the ledger, rate buckets,
// monitors and every table keyed by user stay unpartitioned.
var partTables = []partTable{
	{"posts", "id", "id"},
	{"post_mentions", "post_id", "name, post_id"},
	{"post_tags", "post_id", "tag, post_id"},
	{"likes", "post_id", "post_id, user_id"},
	{"reposts", "post_id", "post_id, user_id"},
}

// aheadMonths is how many months after the current one Open and Maintain
// create partitions for, so that writes rarely create one themselves.
const aheadMonths = 1

// month is a calendar month (UTC) of snowflake ids.
type month struct {
	y int
	m time.Month
}

// epochMonth is the month of snowflake id 0: its partition also holds every
// id below the next month's (sequential ids of imports, small test ids).
var epochMonth = monthAt(time.UnixMilli(social.SnowflakeEpochMS))

func monthAt(t time.Time) month {
	t = t.UTC()
	return month{t.Year(), t.Month()}
}

// monthOf is the month whose partition holds post id.
func monthOf(id int64) month {
	if id <= 0 {
		return epochMonth
	}
	return monthAt(time.UnixMilli((id >> social.SnowflakeShift) + social.SnowflakeEpochMS))
}

func (m month) start() time.Time { return time.Date(m.y, m.m, 1, 0, 0, 0, 0, time.UTC) }
func (m month) next() month      { return monthAt(m.start().AddDate(0, 1, 0)) }
func (m month) before(o month) bool {
	return m.y < o.y || m.y == o.y && m.m < o.m
}

// end is the least id after the month's, MaxInt64 past the last snowflake.
func (m month) end() int64 { return social.SnowflakeFloor(m.next().start().UnixMilli()) }

// suffix names the month's partitions: posts_y2026m01.
func (m month) suffix() string { return fmt.Sprintf("y%04dm%02d", m.y, int(m.m)) }

// bounds are the partition bound literals of the month's ids: the least id
// of its first millisecond to that of the next month's, MINVALUE for the
// epoch's month and MAXVALUE past the last snowflake.
func (m month) bounds() (lo, hi string) {
	lo = "MINVALUE"
	if epochMonth.before(m) {
		lo = strconv.FormatInt(social.SnowflakeFloor(m.start().UnixMilli()), 10)
	}
	hi = "MAXVALUE"
	if h := social.SnowflakeFloor(m.next().start().UnixMilli()); h < 1<<63-1 {
		hi = strconv.FormatInt(h, 10)
	}
	return lo, hi
}

// partitions creates the month partitions of one schema's post tables
// before rows of their months are written, and remembers which exist.
type partitions struct {
	pool *pgxpool.Pool
	log  *slog.Logger
	mu   sync.Mutex
	have map[month]bool
}

// ensureIDs creates the partitions the posts of ids belong in.
func (p *partitions) ensureIDs(ctx context.Context, ids []int64) error {
	var need []month
	p.mu.Lock()
	for _, id := range ids {
		if m := monthOf(id); !p.have[m] && !slices.Contains(need, m) {
			need = append(need, m)
		}
	}
	p.mu.Unlock()
	return p.ensure(ctx, need)
}

// ahead creates the partitions of the month of now and aheadMonths after.
func (p *partitions) ahead(ctx context.Context, now time.Time) error {
	m := monthAt(now)
	months := []month{m}
	for range aheadMonths {
		m = m.next()
		months = append(months, m)
	}
	return p.ensure(ctx, months)
}

// ensure creates what is missing of the months' partitions, a transaction
// each under the schema's partition lock (processes sharing the database
// wait for each other, then find the partitions made). Each is created as
// a table of its own with its primary key, then attached: attaching takes
// a lock that lets reads and writes of the partitioned table go on, where
// CREATE TABLE … PARTITION OF would wait for them and hold them up.
func (p *partitions) ensure(ctx context.Context, months []month) error {
	for _, m := range months {
		p.mu.Lock()
		have := p.have[m]
		p.mu.Unlock()
		if have {
			continue
		}
		made := 0
		err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
			made = 0
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('roost partitions ' || current_schema()))`); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
			for _, t := range partTables {
				n, err := createPartition(ctx, tx, t, m)
				if err != nil {
					return err
				}
				made += n
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("postgres: partitions of %s: %w", m.suffix(), err)
		}
		if made > 0 {
			p.log.Info("created partitions", "month", m.suffix(), "tables", made)
		}
		p.mu.Lock()
		p.have[m] = true
		p.mu.Unlock()
	}
	return nil
}

// createPartition creates and attaches t's partition of month m unless a
// partition of that name exists; it reports how many it created.
func createPartition(ctx context.Context, tx pgx.Tx, t partTable, m month) (int, error) {
	name := t.name + "_" + m.suffix()
	var exists bool
	if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists); err != nil {
		return 0, fmt.Errorf("look up %s: %w", name, err)
	}
	if exists {
		return 0, nil
	}
	lo, hi := m.bounds()
	for _, q := range []string{
		`CREATE TABLE ` + name + ` (LIKE ` + t.name + ` INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`,
		`ALTER TABLE ` + name + ` ADD PRIMARY KEY (` + t.pk + `)`,
		`ALTER TABLE ` + t.name + ` ATTACH PARTITION ` + name + ` FOR VALUES FROM (` + lo + `) TO (` + hi + `)`,
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", name, err)
		}
	}
	return 1, nil
}

// postIDsOf are the post ids a batch writes rows of in partitioned tables.
func postIDsOf(b *social.Batch) []int64 {
	ids := make([]int64, 0, len(b.Posts)+len(b.Likes)+len(b.Reposts))
	for i := range b.Posts {
		ids = append(ids, b.Posts[i].ID)
	}
	for i := range b.Likes {
		ids = append(ids, b.Likes[i].PostID)
	}
	for i := range b.Reposts {
		ids = append(ids, b.Reposts[i].PostID)
	}
	return ids
}

// isPartitioned reports whether the schema's posts table is partitioned:
// the catalog is the record of how the database was created.
func isPartitioned(ctx context.Context, q pgx.Tx) (bool, error) {
	var kind string
	if err := q.QueryRow(ctx, `SELECT relkind::text FROM pg_class WHERE oid = 'posts'::regclass`).Scan(&kind); err != nil {
		return false, fmt.Errorf("postgres: partitioning: %w", err)
	}
	return kind == "p", nil
}

// partitionTables turns the empty post tables of a schema just migrated
// into partitioned ones (in the migration's transaction): each is made
// again PARTITION BY RANGE of its post id, with the same columns, defaults,
// indexes and triggers, and without its primary key, which its partitions
// get instead. A table holding rows is refused: an existing database is
// partitioned by copying it into a new one (roost copy).
func partitionTables(ctx context.Context, tx pgx.Tx) error {
	for _, t := range partTables {
		var rows bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.name+`)`).Scan(&rows); err != nil {
			return fmt.Errorf("postgres: partition %s: %w", t.name, err)
		}
		if rows {
			return fmt.Errorf("postgres: partition %s: it holds rows; copy the database into a new partitioned one instead (roost copy): %w",
				t.name, social.ErrInvalid)
		}
		var pk string
		if err := tx.QueryRow(ctx, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid = $1::text::regclass AND contype = 'p'`, t.name).Scan(&pk); err != nil {
			return fmt.Errorf("postgres: partition %s: primary key: %w", t.name, err)
		}
		if pk != "PRIMARY KEY ("+t.pk+")" {
			return fmt.Errorf("postgres: partition %s: primary key is %s, not (%s)", t.name, pk, t.pk)
		}
		idx, err := secondaryIndexes(ctx, tx, t.name)
		if err != nil {
			return err
		}
		rs, err := tx.Query(ctx, `SELECT pg_get_triggerdef(oid) FROM pg_trigger
			WHERE tgrelid = $1::text::regclass AND NOT tgisinternal ORDER BY tgname`, t.name)
		if err != nil {
			return fmt.Errorf("postgres: partition %s: triggers: %w", t.name, err)
		}
		trig, err := pgx.CollectRows(rs, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("postgres: partition %s: triggers: %w", t.name, err)
		}
		steps := []string{
			`CREATE TABLE ` + t.name + `_parted (LIKE ` + t.name + ` INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)
				PARTITION BY RANGE (` + t.key + `)`,
			`DROP TABLE ` + t.name,
			`ALTER TABLE ` + t.name + `_parted RENAME TO ` + t.name,
		}
		for i := 1; i < len(idx); i += 2 {
			steps = append(steps, idx[i])
		}
		steps = append(steps, trig...)
		for _, q := range steps {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("postgres: partition %s: %w", t.name, err)
			}
		}
	}
	return nil
}

// partitionKey is the URL parameter that asks for partitions: it is roost's,
// not a server setting, so it is taken out of the connection's parameters.
const partitionKey = "partition"

// partitionParam takes partition=… out of cfg and returns the scheme asked
// for, by opt or by the URL: "" or PartitionMonth.
func partitionParam(cfg *pgxpool.Config, opt string) (string, error) {
	if v, ok := cfg.ConnConfig.RuntimeParams[partitionKey]; ok {
		delete(cfg.ConnConfig.RuntimeParams, partitionKey)
		if opt == "" {
			opt = v
		}
	}
	if opt != "" && opt != PartitionMonth {
		return "", fmt.Errorf("postgres: partition=%q: the one scheme is %q: %w", opt, PartitionMonth, social.ErrInvalid)
	}
	return opt, nil
}
