package monitor

import "github.com/prometheus/client_golang/prometheus"

// metrics are the service's Prometheus metrics.
type metrics struct {
	deliveries *prometheus.CounterVec
	events     *prometheus.CounterVec
	seconds    prometheus.Histogram
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roost_webhook_deliveries_total",
			Help: "Webhook delivery attempts by outcome: delivered, retry, dead, paused (no balance), dropped (deleted)."}, []string{"outcome"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "roost_monitor_events_total",
			Help: "Monitor events stored in the outbox, by event."}, []string{"event"}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "roost_webhook_delivery_seconds",
			Help: "Time of one webhook delivery attempt.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 9)}),
	}
	if reg != nil {
		reg.MustRegister(m.deliveries, m.events, m.seconds)
	}
	return m
}
