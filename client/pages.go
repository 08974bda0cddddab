package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"strconv"

	"github.com/roostapi/roost/client/wire"
)

// Page sizes of the endpoints (the most items one page can hold).
const (
	pageSize       = 20
	threadPageSize = 30
	listsPageSize  = 100
	maxBatch       = 100
)

// Order is the order of a search or of community posts.
type Order string

// Orders.
const (
	Latest Order = "Latest"
	Top    Order = "Top"
)

// page fetches one page of a paged endpoint whose items are in field.
func page[T any](ctx context.Context, c *Client, path string, q url.Values, field string, size int, cursor string) (Page[T], error) {
	if q == nil {
		q = url.Values{}
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out Page[T]
	err := c.call(ctx, request{method: "GET", path: c.prefix + path, query: q, maxItems: int64(size)}, func(b []byte) (int, error) {
		// One pass over the page: the items decode with the rest.
		next, items, err := decodePage[T](b, field)
		if err != nil {
			return 0, err
		}
		if items == nil {
			// Absent, or null (an empty page): only the first is wrong.
			var env struct {
				Tweets json.RawMessage `json:"tweets"`
				Users  json.RawMessage `json:"users"`
				Lists  json.RawMessage `json:"lists"`
			}
			if err := json.Unmarshal(b, &env); err != nil {
				return 0, err
			}
			raw := map[string]json.RawMessage{"tweets": env.Tweets, "users": env.Users, "lists": env.Lists}[field]
			if len(raw) == 0 {
				return 0, fmt.Errorf("no %q array in the page", field)
			}
		}
		out.Items = items
		if next != nil {
			out.NextCursor = *next
		}
		out.Raw = b
		return len(out.Items), nil
	})
	return out, err
}

// object fetches one object (an item when counted is true).
func object[T any](ctx context.Context, c *Client, req request, counted func(*T) bool) (T, error) {
	var out T
	req.maxItems = 1
	err := c.call(ctx, req, func(b []byte) (int, error) {
		if err := json.Unmarshal(b, &out); err != nil {
			return 0, err
		}
		if counted != nil && !counted(&out) {
			return 0, nil
		}
		return 1, nil
	})
	return out, err
}

// walk iterates over every item of a paged endpoint from its first page,
// following next cursors until the last page.
func walk[T any](ctx context.Context, fetch func(ctx context.Context, cursor string) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			p, err := fetch(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.NextCursor == "" || len(p.Items) == 0 {
				return
			}
			cursor = p.NextCursor
		}
	}
}

func id(v int64) string { return strconv.FormatInt(v, 10) }

// decodePage decodes a page whose items are in field ("tweets", "users"
// or "lists", whose items are Lists) and returns its cursor and items (nil
// when absent or null).
func decodePage[T any](b []byte, field string) (*string, []T, error) {
	switch field {
	case "tweets":
		var p wire.TweetsPage[T]
		err := json.Unmarshal(b, &p)
		return p.NextCursor, p.Tweets, err
	case "users":
		var p wire.UsersPage[T]
		err := json.Unmarshal(b, &p)
		return p.NextCursor, p.Users, err
	}
	var p wire.ListsPage
	err := json.Unmarshal(b, &p)
	items, _ := any(p.Lists).([]T)
	return p.NextCursor, items, err
}
