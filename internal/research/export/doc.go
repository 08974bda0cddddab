// Package export writes what research asks of a search: counts over time,
// top values, and the matching posts themselves as CSV (the columns of
// twarc-csv), JSON lines of roost's own post shape, API v1.1 statuses, API
// v2 pages (as twarc2 writes them) or bare ids. Every writer streams: it
// takes posts a chunk at a time and holds none after writing them.
package export

import "time"

// TimeLayout is how times are written in JSON: UTC with microseconds, as
// the API writes them.
const TimeLayout = "2006-01-02T15:04:05.000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }
