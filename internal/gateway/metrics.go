package gateway

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the gateway's Prometheus collectors.
type metrics struct {
	cache *prometheus.CounterVec // by route, result (hit, miss)
	calls *prometheus.CounterVec // by route, outcome (ok, error, budget)
	spend *prometheus.CounterVec // micro-USD by route
}

func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		cache: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_gateway_cache_total", Help: "Gateway page cache lookups by route and result (hit, miss).",
		}, []string{"route", "result"})),
		calls: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_gateway_upstream_calls_total", Help: "Upstream calls by route and outcome (ok, error, budget: refused by the shared budget).",
		}, []string{"route", "outcome"})),
		spend: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_gateway_upstream_micro_usd_total", Help: "Micro-USD billed by upstream, by route.",
		}, []string{"route"})),
	}
}

func register(reg prometheus.Registerer, c *prometheus.CounterVec) *prometheus.CounterVec {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing
			}
		}
		panic("gateway: register metrics: " + err.Error())
	}
	return c
}
