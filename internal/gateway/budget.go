package gateway

import (
	"fmt"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/gateway/ledger"
)

// Limit is one upstream budget: Micros micro-USD in total, or per UTC day
// when Daily.
type Limit struct {
	Micros int64
	Daily  bool
}

// ParseLimit reads "10/day" (a daily limit) or "100" (a total), in USD.
func ParseLimit(s string) (Limit, error) {
	amount, per, daily := strings.Cut(strings.TrimSpace(s), "/")
	if daily && per != "day" {
		return Limit{}, fmt.Errorf("%q: want USD or USD/day", s)
	}
	m, err := billing.ParseUSD(amount)
	if err != nil || m <= 0 {
		return Limit{}, fmt.Errorf("%q: want a positive amount of USD, or USD/day", s)
	}
	return Limit{Micros: m, Daily: daily}, nil
}

// budgets are the limits that apply at t, as stored periods, the
// smallest of each kind, the total first.
func budgets(limits []Limit, t time.Time) []ledger.Budget {
	var out []ledger.Budget
	for _, daily := range [...]bool{false, true} {
		b := ledger.Budget{Period: "total"}
		if daily {
			b.Period = "day:" + t.UTC().Format(time.DateOnly)
		}
		for _, l := range limits {
			if l.Daily == daily && (b.Limit == 0 || l.Micros < b.Limit) {
				b.Limit = l.Micros
			}
		}
		if b.Limit > 0 {
			out = append(out, b)
		}
	}
	return out
}
