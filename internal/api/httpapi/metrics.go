package httpapi

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the handler's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	items    *prometheus.CounterVec
	charged  *prometheus.CounterVec
	faults   *prometheus.CounterVec
	pages    *prometheus.CounterVec
	debits   prometheus.Histogram
}

// DebitSecondsMetric is the histogram of the time a paid page waited for
// its debit (see newMetrics); perf reads it from the registry.
const DebitSecondsMetric = "roost_debit_seconds"

// newMetrics registers the collectors, reusing ones already registered
// (two handlers on one registry share them).
func newMetrics(reg prometheus.Registerer) *metrics {
	return &metrics{
		requests: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"})),
		latency: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "roost_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"})),
		items: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_items_served_total", Help: "Billed items served by endpoint.",
		}, []string{"route"})),
		charged: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_charged_micro_usd_total", Help: "Micro-USD charged by endpoint.",
		}, []string{"route"})),
		faults: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_injected_faults_total",
			Help: "Failures and delays the sandbox injected on request (X-Roost-Fault or a key's fault plan), by route and fault (429, 500, delay).",
		}, []string{"route", "fault"})),
		pages: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "roost_page_cache_total",
			Help: "Paid pages that could be kept, by whether the page cache had them (hit) or they were read from the database (miss).",
		}, []string{"result"})),
		debits: register(reg, prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: DebitSecondsMetric,
			Help: "Time a paid page waited for its debit to be decided and committed durably, writes ahead of it on the database included.",
			// 50 µs to about 4.3 s, each bound 1.5 times the last: a
			// commit's wait is a fraction of a millisecond, a wait behind
			// other writes is milliseconds.
			Buckets: prometheus.ExponentialBuckets(0.00005, 1.5, 29),
		})),
	}
}

func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("httpapi: register metrics: " + err.Error())
	}
	return c
}

func (m *metrics) observe(info *reqInfo, status int, d time.Duration) {
	m.requests.WithLabelValues(info.route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(info.route).Observe(d.Seconds())
}

func (m *metrics) charge(route string, items int, amount int64) {
	if items > 0 {
		m.items.WithLabelValues(route).Add(float64(items))
		m.charged.WithLabelValues(route).Add(float64(amount))
	}
}

func (m *metrics) debit(d time.Duration) { m.debits.Observe(d.Seconds()) }

func (m *metrics) pageCache(hit bool) {
	if hit {
		m.pages.WithLabelValues("hit").Inc()
	} else {
		m.pages.WithLabelValues("miss").Inc()
	}
}

func (m *metrics) fault(route, kind string) { m.faults.WithLabelValues(route, kind).Inc() }

// readCounter is a store that counts the reads each of its databases
// answered (PostgreSQL with read replicas).
type readCounter interface {
	ReadsServed() map[string]int64
}

// readsCollector exports a readCounter as roost_db_reads_total{db}.
type readsCollector struct {
	desc *prometheus.Desc
	src  readCounter
}

func (c readsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c readsCollector) Collect(ch chan<- prometheus.Metric) {
	for db, n := range c.src.ReadsServed() {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.CounterValue, float64(n), db)
	}
}

// registerReads exports the store's read counts, when it keeps them.
func registerReads(reg prometheus.Registerer, store any) {
	rc, ok := store.(readCounter)
	if !ok {
		return
	}
	err := reg.Register(readsCollector{src: rc, desc: prometheus.NewDesc("roost_db_reads_total",
		"Data reads answered by each database: the primary or a read replica.", []string{"db"}, nil)})
	var are prometheus.AlreadyRegisteredError
	if err != nil && !errors.As(err, &are) {
		panic("httpapi: register metrics: " + err.Error())
	}
}
