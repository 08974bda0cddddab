package httpapi

import (
	"time"

	"github.com/roostapi/roost/internal/search"
)

// parseQuery parses search text as of now (for relative time operators).
func parseQuery(text string, now time.Time) (*search.Query, error) {
	return search.Parse(text, now)
}
