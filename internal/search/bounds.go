package search

import "time"

// TimeRange is the creation times q bounds at its top level: the latest
// since:, since_time: or within_time: (inclusive) and the earliest until:
// or until_time: (exclusive); zero where q sets none. Bounds inside an OR
// or a negation bound nothing for certain and are not counted.
func TimeRange(q *Query) (since, until time.Time) {
	p := Lower(q)
	return p.Since, p.Until
}
