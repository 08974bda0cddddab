package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/social"
)

// Research endpoints: counts over time and top values of a search query
// (research.go), its matches exported (research_export.go) and the network
// of its authors (research_network.go). They take the same query as
// /search and answer what research tools (twarc2, DMI-TCAT, 4CAT) make of
// it.

// researchArgs are the parameters the research endpoints take beside query.
type researchArgs struct {
	granularity social.Granularity
	field       social.TopField
	limit       int    // values of a top list, posts of an export
	format      string // of an export or a network
	network     networkArgs
}

// Top limits.
const (
	defaultTopLimit = 10
	maxTopLimit     = 1000
)

// parseCounts reads granularity (minute, hour or day; default day).
func parseCounts(a *args, qs url.Values) error {
	a.research.granularity = social.Day
	if v := qs.Get("granularity"); v != "" {
		g, err := social.ParseGranularity(v)
		if err != nil {
			return invalid("granularity", "must be minute, hour or day")
		}
		a.research.granularity = g
	}
	return nil
}

// parseTop reads field (required), limit (1..1000, default 10) and an
// optional granularity.
func parseTop(a *args, qs url.Values) error {
	v := qs.Get("field")
	if v == "" {
		return invalid("field", "is required")
	}
	f, err := social.ParseTopField(v)
	if err != nil {
		return invalid("field", fmt.Sprintf("must be one of %s", topFieldNames()))
	}
	a.research.field = f
	a.research.limit, err = intParam(qs, "limit", defaultTopLimit, 1, maxTopLimit)
	if err != nil {
		return err
	}
	if g := qs.Get("granularity"); g != "" {
		if a.research.granularity, err = social.ParseGranularity(g); err != nil {
			return invalid("granularity", "must be minute, hour or day")
		}
	}
	return nil
}

func topFieldNames() string {
	s := ""
	for i, f := range social.TopFields() {
		if i > 0 {
			s += ", "
		}
		s += string(f)
	}
	return s
}

// intParam reads an optional integer parameter in [lo, hi].
func intParam(qs url.Values, name string, def, lo, hi int) (int, error) {
	v := qs.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, invalid(name, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
	}
	return n, nil
}

// choice reads an optional parameter that takes one of values (the first
// is the default).
func choice(qs url.Values, name string, values []string) (string, error) {
	v := qs.Get(name)
	if v == "" {
		return values[0], nil
	}
	if !slices.Contains(values, v) {
		return "", invalid(name, "must be one of "+strings.Join(values, ", "))
	}
	return v, nil
}

// bounded runs fn within the search timeout: work stopped by it is 422
// Query too expensive, as a search page is.
func (s *server) bounded(ctx context.Context, what string, fn func(context.Context) error) error {
	sctx, cancel := context.WithTimeout(ctx, s.searchTimeout)
	defer cancel()
	if err := fn(sctx); err != nil {
		if ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
			return &apiError{status: http.StatusUnprocessableEntity, message: msgTooExpensive,
				errors: map[string][]string{"query": {what + " took longer than " + s.searchTimeout.String() +
					": narrow the query with since:, until:, from: or a rarer term"}}}
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// serveCounts is GET /search/counts: the matches of a query counted by
// period, every period between the query's since: and until: (or its
// first and last match) included, zeros too. One item per period that
// holds a match: the periods without one are free, so a chart costs what
// the matches it shows make (docs/research.md, "Over HTTP").
func serveCounts(ctx context.Context, s *server, a *args) (any, int, error) {
	var buckets []social.Bucket
	err := s.bounded(ctx, "counting", func(ctx context.Context) (err error) {
		buckets, err = s.store.SearchCounts(ctx, a.query, a.research.granularity)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	c, err := export.NewCounts(buckets, a.query, a.research.granularity)
	if err != nil {
		return nil, 0, invalid("granularity", fmt.Sprintf("the query spans more than %d %s periods: bound it with "+
			"since: and until: or ask for a coarser granularity", export.MaxBuckets, a.research.granularity))
	}
	items := 0
	for _, b := range c.Data {
		if b.TweetCount > 0 {
			items++
		}
	}
	return c, items, nil
}

// serveTop is GET /search/top: the most common values of a field among
// the matches, whole or by period. One item per value returned.
func serveTop(ctx context.Context, s *server, a *args) (any, int, error) {
	var periods []social.TopPeriod
	err := s.bounded(ctx, "ranking", func(ctx context.Context) (err error) {
		periods, err = s.store.SearchTop(ctx, a.query, a.research.field, a.research.limit, a.research.granularity)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	t := export.NewTop(periods, a.research.field, a.research.granularity)
	return t, t.Len(), nil
}
