package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
)

// Raw calls any endpoint below the client's prefix (pathBelowPrefix
// already escaped, e.g. "/user/42/tweets") with the query and JSON body
// given (nil: none), with the client's retries and budget (reserving
// maxItems items), and returns the 2xx body as the server wrote it and the
// number of billable items in it (see CountItems).
func (c *Client) Raw(ctx context.Context, method, pathBelowPrefix string, query url.Values, body []byte, maxItems int) ([]byte, int, error) {
	var out []byte
	items := 0
	err := c.call(ctx, request{method: method, path: c.prefix + pathBelowPrefix, query: query, raw: body, maxItems: int64(maxItems)},
		func(b []byte) (int, error) {
			out, items = b, CountItems(b)
			return items, nil
		})
	return out, items, err
}

// CountItems is the number of billable items in an answer: the length of
// a top-level array, or of its "tweets", "users" or "lists" array, else 1
// for any other JSON object (one post, profile, list, space or check) and
// 0 for anything else.
func CountItems(b []byte) int {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	if b[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(b, &arr) != nil {
			return 0
		}
		return len(arr)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		return 0
	}
	for _, f := range [...]string{"tweets", "users", "lists"} {
		if raw, ok := obj[f]; ok {
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) == nil {
				return len(arr)
			}
		}
	}
	return 1
}
