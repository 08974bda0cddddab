package postgres

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/store/sqlstore"
)

// TestHeldRows: a routed read holds its first rows back and scans them
// as pgx would have; an error within them hands none on (so the read may
// run again on the primary); past the hold, rows stream.
func TestHeldRows(t *testing.T) {
	s := open(t, freshURL(t))
	ctx := context.Background()
	type row struct {
		id    int64
		name  string
		null  sql.NullString
		flag  bool
		at    time.Time
		blob  []byte
		score float64
		tags  []string
	}
	query := `SELECT g::bigint, 'n' || g, CASE WHEN g % 2 = 0 THEN 'even' END, g % 3 = 0,
		timestamptz '2026-01-02 03:04:05.678+00' + g * interval '1 second', decode(lpad(to_hex(g), 2, '0'), 'hex'),
		g / 7.0::float8, ARRAY['a' || g, 'b']
		FROM generate_series(1, $1::int) g`
	read := func(n, hold int) ([]row, int, error) {
		var out []row
		delivered := 0
		err := queryOn(ctx, s.pool, query, []any{n}, func(r sqlstore.Rows) error {
			var x row
			if err := r.Scan(&x.id, &x.name, &x.null, &x.flag, &x.at, &x.blob, &x.score, &x.tags); err != nil {
				return err
			}
			out = append(out, x)
			return nil
		}, &delivered, hold)
		return out, delivered, err
	}
	for _, n := range []int{0, 3, holdRows, holdRows + 5} {
		direct, dn, err := read(n, 0)
		if err != nil {
			t.Fatal(err)
		}
		held, hn, err := read(n, holdRows)
		if err != nil {
			t.Fatal(err)
		}
		if dn != n || hn != n || !reflect.DeepEqual(direct, held) {
			t.Errorf("%d rows: held rows differ from direct ones (%d and %d delivered)", n, dn, hn)
		}
	}
	// Division by zero at the fourth row: held, nothing was handed on.
	fail := `SELECT 1 / (4 - g) FROM generate_series(1, 10) g`
	for _, c := range []struct{ hold, want int }{{0, 3}, {holdRows, 0}} {
		delivered := 0
		err := queryOn(ctx, s.pool, fail, nil, func(r sqlstore.Rows) error {
			var v int
			return r.Scan(&v)
		}, &delivered, c.hold)
		if err == nil || delivered != c.want {
			t.Errorf("hold %d: %d rows delivered before %v; want %d and an error", c.hold, delivered, err, c.want)
		}
	}
	var one int
	err := queryOn(ctx, s.pool, `SELECT 1, 2`, nil, func(r sqlstore.Rows) error { return r.Scan(&one) }, new(int), holdRows)
	if err == nil {
		t.Error("a held row scanned into fewer destinations than columns")
	}
}
