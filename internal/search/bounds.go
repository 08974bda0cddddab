package search

import "time"

// TimeRange is the creation times q bounds at its top level: the latest
// since:, since_time: or within_time: (inclusive) and the earliest until:
// or until_time: (exclusive); zero where q sets none. Bounds inside an OR
// or a negation bound nothing for certain and are not counted.
func TimeRange(q *Query) (since, until time.Time) {
	if q == nil || q.Root == nil {
		return
	}
	kids := []Node{q.Root}
	if a, ok := q.Root.(And); ok {
		kids = a.Children
	}
	for _, k := range kids {
		t, ok := k.(TimeBound)
		switch {
		case !ok:
		case t.Since && (since.IsZero() || t.T.After(since)):
			since = t.T
		case !t.Since && (until.IsZero() || t.T.Before(until)):
			until = t.T
		}
	}
	return since, until
}
