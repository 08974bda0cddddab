package sqlite

import (
	"database/sql"
	"fmt"

	"roost/social"
)

// collectPage reads up to limit items from rows, which must hold limit+1
// rows at most; scan reads one item and its keyset key. A row beyond limit
// means a next page exists, starting after the last item kept.
func collectPage[T any](rows *sql.Rows, limit int, scan func(*sql.Rows, *social.Key) (T, error)) (social.Page[T], error) {
	defer rows.Close()
	page := social.Page[T]{Items: make([]T, 0, limit)}
	var last social.Key
	for rows.Next() {
		var k social.Key
		item, err := scan(rows, &k)
		if err != nil {
			return page, err
		}
		if len(page.Items) == limit {
			page.Next = &last
			break
		}
		page.Items = append(page.Items, item)
		last = k
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("sqlite: query: %w", err)
	}
	return page, nil
}

// appendRows appends what scan makes of every row of rows to out, and
// closes rows.
func appendRows[T any](out []T, rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, rows.Close()
}
