package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/gateway/ledger"
	"github.com/roostapi/roost/internal/ingest/importer"
	"github.com/roostapi/roost/internal/social"
)

// DefaultPrice is what upstream is assumed to bill per returned item, in
// micro-USD (0.0002 USD).
const DefaultPrice = client.DefaultPrice

// MsgBudgetSpent is the 402 message when the shared upstream budget does
// not cover a request that needs upstream.
const MsgBudgetSpent = "The shared upstream budget is spent"

// Config is a gateway's setup.
type Config struct {
	// Client calls upstream (its retries apply; its own budget should be
	// unset: the shared budget is Limits).
	Client *client.Client
	// Store keeps the page cache, the upstream ledger, the budget and
	// when each post and user was fetched.
	Store Store
	// Writer stores the posts and users of fetched pages; Reader reads
	// them back where Writer's writes are seen at once (by-id reads are
	// answered from those fetched lately: held.go).
	Writer social.Writer
	Reader Entities
	// Price is upstream's price per item in micro-USD (0: DefaultPrice).
	Price int64
	// Limits are the shared upstream budgets (none: unlimited).
	Limits []Limit
	// Fresh is how long a cached page of each class is served (missing
	// classes: DefaultFresh).
	Fresh map[string]time.Duration
	// HoldExpiry bounds an upstream call (retries included): a budget
	// reservation older than that was left by a crash and is released
	// (0: DefaultHoldExpiry).
	HoldExpiry time.Duration
	// CacheMaxAge is how long a cached page is kept (0: for ever).
	CacheMaxAge time.Duration
	// Now is the clock (nil: time.Now); Log the logger (nil: discard);
	// Registry receives the metrics (nil: none kept).
	Now      func() time.Time
	Log      *slog.Logger
	Registry prometheus.Registerer
}

// DefaultHoldExpiry is how long a budget reservation may live.
const DefaultHoldExpiry = 10 * time.Minute

// maintainEvery is how often fetching upstream also runs Maintain.
const maintainEvery = time.Minute

// Gateway is an httpapi.Upstream.
type Gateway struct {
	cfg     Config
	fresh   map[string]time.Duration
	flight  singleflight.Group
	metrics *metrics
	memory  *memory // pages served lately (memory.go)
	// maintained is when Maintain last ran (unix nanoseconds).
	maintained atomic.Int64
}

var _ httpapi.Upstream = (*Gateway)(nil)

// New returns a gateway.
func New(cfg Config) *Gateway {
	if cfg.Price <= 0 {
		cfg.Price = DefaultPrice
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
	}
	if cfg.HoldExpiry <= 0 {
		cfg.HoldExpiry = DefaultHoldExpiry
	}
	fresh := make(map[string]time.Duration, len(DefaultFresh))
	for c, d := range DefaultFresh {
		fresh[c] = d
	}
	for c, d := range cfg.Fresh {
		fresh[c] = d
	}
	return &Gateway{cfg: cfg, fresh: fresh, metrics: newMetrics(cfg.Registry), memory: newMemory(memoryBytes)}
}

// fetched is the outcome of one upstream call, shared by the requests
// that waited for it.
type fetched struct {
	page   ledger.Page
	leader string // the request that made the call and is charged its cost
	cost   int64  // what upstream billed
}

// Fetch answers one request from the cache or upstream (a by-id read
// from the stored posts and users it holds, upstream asked only for the
// rest: held.go), and records it in the upstream ledger.
func (g *Gateway) Fetch(ctx context.Context, req httpapi.UpstreamRequest) ([]byte, int, error) {
	entry := ledger.Entry{RequestID: req.RequestID, KeyID: req.KeyID, Endpoint: req.Route,
		Status: http.StatusOK, At: g.cfg.Now()}
	defer func() {
		if err := g.cfg.Store.LogUpstream(context.WithoutCancel(ctx), entry); err != nil {
			g.cfg.Log.ErrorContext(ctx, "upstream ledger", "request_id", req.RequestID, "err", err)
		}
	}()
	var body []byte
	var items int
	var err error
	if r, ok := byIDRoutes[req.Route]; ok {
		body, items, err = g.byID(ctx, req, r, &entry)
	} else {
		body, items, err = g.page(ctx, req, &entry)
	}
	if err != nil {
		var an *httpapi.Answer
		if errors.As(err, &an) {
			entry.Status = an.Status
		} else {
			entry.Status = http.StatusInternalServerError
		}
		return nil, 0, err
	}
	return body, items, nil
}

// page answers req from the page cache, else upstream (one call for
// identical requests in flight), and notes in entry whether it was a hit
// and what this request's call cost.
func (g *Gateway) page(ctx context.Context, req httpapi.UpstreamRequest, entry *ledger.Entry) ([]byte, int, error) {
	key := cacheKey(req)
	if p, ok, err := g.cached(ctx, key, req); err != nil {
		return nil, 0, err
	} else if ok {
		entry.CacheHit = true
		g.metrics.cache.WithLabelValues(req.Route, "hit").Inc()
		return p.Body, p.Items, nil
	}
	g.metrics.cache.WithLabelValues(req.Route, "miss").Inc()
	v, err, _ := g.flight.Do(key, func() (any, error) {
		// The caller going away must not fail the others waiting.
		return g.fetch(context.WithoutCancel(ctx), key, req)
	})
	f, _ := v.(*fetched)
	if f != nil && f.leader == req.RequestID {
		entry.Micros = f.cost
	}
	if err != nil {
		return nil, 0, answer(req.Route, err)
	}
	return f.page.Body, f.page.Items, nil
}

// cached returns the page under key when it is fresh: the copy held in
// memory, else the stored one.
func (g *Gateway) cached(ctx context.Context, key string, req httpapi.UpstreamRequest) (ledger.Page, bool, error) {
	fresh := func(p ledger.Page) bool { return g.cfg.Now().Sub(p.FetchedAt) < g.fresh[Class(req.Route)] }
	if p, ok := g.memory.get(key, req.Deletions); ok && fresh(p) {
		return p, true, nil
	}
	p, ok, err := g.cfg.Store.Page(ctx, key)
	if err != nil || !ok {
		return p, false, err
	}
	if !fresh(p) {
		return p, false, nil
	}
	g.memory.put(key, p, req.Deletions)
	return p, true, nil
}

// fetch calls upstream for req under the shared budget, then stores the
// page and its data. It reserves what the largest page of the route can
// cost (req.MaxItems: a community page holds its pinned post too) and
// counts what upstream billed. It always returns a *fetched (its cost
// counts even when the call failed).
func (g *Gateway) fetch(ctx context.Context, key string, req httpapi.UpstreamRequest) (*fetched, error) {
	f := &fetched{leader: req.RequestID}
	// Another replica (or a call that just ended) may have stored it.
	if p, ok, err := g.cached(ctx, key, req); err != nil {
		return f, err
	} else if ok {
		f.page = p
		return f, nil
	}
	now := g.cfg.Now()
	g.maybeMaintain(ctx, now)
	limits := budgets(g.cfg.Limits, now)
	reserved := int64(max(req.MaxItems, 1)) * g.cfg.Price
	hold := rand.Text()
	if err := g.cfg.Store.Reserve(ctx, hold, limits, reserved, now); err != nil {
		if errors.Is(err, ledger.ErrBudgetSpent) {
			g.metrics.calls.WithLabelValues(req.Route, "budget").Inc()
			return f, &httpapi.Answer{Status: http.StatusPaymentRequired, Message: MsgBudgetSpent}
		}
		return f, err
	}
	// The call ends before its reservation could be taken for a crash's.
	callCtx, cancel := context.WithTimeout(ctx, g.cfg.HoldExpiry-g.cfg.HoldExpiry/10)
	body, items, err := g.cfg.Client.Raw(callCtx, req.Method, req.Path, req.Query, req.Body, req.MaxItems)
	cancel()
	if err == nil {
		// What upstream billed, even past the reservation: a page larger
		// than the route's largest is upstream's doing, and counting less
		// than it billed would let later calls spend past the budget.
		f.cost = int64(items) * g.cfg.Price
		if f.cost > reserved {
			g.cfg.Log.WarnContext(ctx, "upstream billed more than the largest page of the route", "request_id", req.RequestID,
				"route", req.Route, "items", items, "max_items", req.MaxItems, "micro_usd", f.cost, "reserved", reserved)
		}
	}
	if serr := g.cfg.Store.Settle(ctx, hold, limits, f.cost); serr != nil {
		g.cfg.Log.ErrorContext(ctx, "settle upstream budget", "request_id", req.RequestID, "err", serr)
	}
	g.metrics.spend.WithLabelValues(req.Route).Add(float64(f.cost))
	if err != nil {
		g.metrics.calls.WithLabelValues(req.Route, "error").Inc()
		return f, err
	}
	g.metrics.calls.WithLabelValues(req.Route, "ok").Inc()
	f.page = ledger.Page{Body: body, Items: items, FetchedAt: now}
	if err := g.cfg.Store.PutPage(ctx, key, req.Route, f.page); err != nil {
		g.cfg.Log.ErrorContext(ctx, "cache page", "request_id", req.RequestID, "err", err)
	} else {
		g.memory.put(key, f.page, req.Deletions)
	}
	g.storeData(ctx, req, body, now)
	return f, nil
}

// storeData writes the posts and users of a page fetched at at (one
// profile too), then marks them fetched (held.go). A page whose data
// cannot be read or written is still served (and logged).
func (g *Gateway) storeData(ctx context.Context, req httpapi.UpstreamRequest, body []byte, at time.Time) {
	if req.Route == "user" { // one profile, read as a page of one
		body = slices.Concat([]byte(`{"users":[`), body, []byte(`]}`))
	}
	b, err := importer.DecodePage(body)
	if err == nil && b != nil && b.Len() > 0 {
		if _, err = g.cfg.Writer.Write(ctx, b); err == nil {
			err = g.cfg.Store.MarkFetched(ctx, fetchedMarks(req.Route, body, b, at))
		}
	}
	if err != nil {
		g.cfg.Log.WarnContext(ctx, "store the data of an upstream page", "request_id", req.RequestID,
			"route", req.Route, "err", err)
	}
}

// answer maps an upstream failure to what the caller gets: upstream's
// 402 is the shared budget running out; its other 4xx answers about the
// request (404, 403, 422, …) are passed on; anything else (5xx, 429 and
// transport errors after the retries, 401 of the upstream key) is a 500.
func answer(route string, err error) error {
	var ce *client.Error
	if errors.As(err, &ce) {
		switch s := ce.Status; {
		case s == http.StatusPaymentRequired:
			return &httpapi.Answer{Status: s, Message: MsgBudgetSpent}
		case s >= 400 && s < 500 && s != http.StatusUnauthorized && s != http.StatusTooManyRequests &&
			s != http.StatusRequestTimeout:
			return &httpapi.Answer{Status: s, Message: ce.Message, Errors: ce.Errors}
		}
	}
	var an *httpapi.Answer
	if errors.As(err, &an) {
		return an
	}
	return fmt.Errorf("upstream %s: %w", route, err)
}

// cacheKey names a request's answer: the route, its path values, its
// query string (cursor included) and its body.
func cacheKey(req httpapi.UpstreamRequest) string {
	h := sha256.New()
	h.Write([]byte(req.Route + "\x00" + strings.Join(req.PathValues, "\x00") + "\x00\x00" + req.Query.Encode() + "\x00"))
	h.Write(req.Body)
	return hex.EncodeToString(h.Sum(nil))
}

// Maintain releases the budget reservations of calls a crash cut short
// (older than HoldExpiry), and deletes the fetched marks older than the
// tweet and profile freshness and the cached pages older than
// CacheMaxAge. roost serve runs it at start-up; fetching upstream runs it
// again at most once a minute.
func (g *Gateway) Maintain(ctx context.Context) error {
	now := g.cfg.Now()
	g.maintained.Store(now.UnixNano())
	calls, micros, err := g.cfg.Store.ReclaimHolds(ctx, now.Add(-g.cfg.HoldExpiry))
	if err != nil {
		return err
	}
	if calls > 0 {
		g.cfg.Log.WarnContext(ctx, "released the upstream budget reservations of calls cut short", "calls", calls,
			"micro_usd", micros, "older_than", g.cfg.HoldExpiry)
	}
	// A mark older than both freshnesses answers nothing.
	if _, err := g.cfg.Store.PruneFetched(ctx, now.Add(-max(g.fresh[ClassTweet], g.fresh[ClassProfile]))); err != nil {
		return err
	}
	if g.cfg.CacheMaxAge <= 0 {
		return nil
	}
	n, err := g.cfg.Store.PrunePages(ctx, now.Add(-g.cfg.CacheMaxAge))
	if err != nil {
		return err
	}
	if n > 0 {
		g.cfg.Log.InfoContext(ctx, "pruned cached pages", "pages", n, "older_than", g.cfg.CacheMaxAge)
	}
	return nil
}

// maybeMaintain runs Maintain when it last ran a minute or more before
// now, on one of the requests that find it so.
func (g *Gateway) maybeMaintain(ctx context.Context, now time.Time) {
	last := g.maintained.Load()
	if now.UnixNano()-last < int64(maintainEvery) || !g.maintained.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if err := g.Maintain(ctx); err != nil {
		g.cfg.Log.ErrorContext(ctx, "gateway maintenance", "err", err)
	}
}
