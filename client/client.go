package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roostapi/roost/client/wire"
)

// DefaultPrefix is the path prefix of the data endpoints on the hosted
// service; roost answers under it and under "/social".
const DefaultPrefix = "/twitter"

// DefaultPrice is the hosted price of one returned item in micro-USD
// (0.0002 USD), which budgets assume unless told otherwise.
const DefaultPrice = 200

// Client calls one server with one API key. It is safe for concurrent use.
type Client struct {
	base   string
	prefix string
	key    string
	hc     *http.Client
	retry  Retry
	budget *budget
	// sleep waits d or until ctx is done; now is the clock that dated
	// Retry-After waits count from (tests replace both).
	sleep func(ctx context.Context, d time.Duration) error
	now   func() time.Time
}

// Retry is how a failed request is tried again: on 429, on 5xx and on
// transport errors, up to Max more times, waiting Retry-After when the
// server names it (seconds or an HTTP-date), else Base·2ⁿ (at most Cap)
// with jitter.
type Retry struct {
	Max       int
	Base, Cap time.Duration
}

// DefaultRetry tries four more times, from half a second up to 30 s.
var DefaultRetry = Retry{Max: 4, Base: 500 * time.Millisecond, Cap: 30 * time.Second}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc (default: a client with a
// 90-second timeout).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithPrefix sets the path prefix of the data endpoints ("/twitter" or
// "/social").
func WithPrefix(p string) Option { return func(c *Client) { c.prefix = "/" + strings.Trim(p, "/") } }

// WithRetry sets the retry policy; Retry{} never retries.
func WithRetry(r Retry) Option { return func(c *Client) { c.retry = r } }

// WithBudget caps what the client spends at limit micro-USD, at price
// micro-USD per returned item (0: DefaultPrice). Before each request the
// client reserves the most that request can cost (its page size times the
// price) and refuses with ErrBudget one that could cross the limit.
func WithBudget(limit, price int64) Option {
	if price <= 0 {
		price = DefaultPrice
	}
	return func(c *Client) { c.budget = &budget{limit: limit, price: price} }
}

// New returns a client of the server at baseURL (e.g.
// "https://api.example" or "http://127.0.0.1:8080") using key.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q is not an http(s) URL", baseURL)
	}
	c := &Client{base: strings.TrimRight(baseURL, "/"), prefix: DefaultPrefix, key: key,
		hc: &http.Client{Timeout: 90 * time.Second}, retry: DefaultRetry, sleep: sleepCtx, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Spent is what the client has spent under its budget, in micro-USD (0
// without a budget).
func (c *Client) Spent() int64 {
	if c.budget == nil {
		return 0
	}
	return c.budget.spentNow()
}

// ErrBudget is returned, without a request, when the next request could
// cost more than what is left of the budget.
var ErrBudget = errors.New("client: the spend budget does not cover the next request")

// Error is an answer other than 2xx.
type Error struct {
	Status  int
	Message string
	// Errors names the bad parameters of a 422.
	Errors map[string][]string
	// RetryAfter is the wait a 429 or 503 asked for.
	RetryAfter time.Duration
	// RequestID is the server's X-Request-Id, for its log.
	RequestID string
}

func (e *Error) Error() string {
	return fmt.Sprintf("client: %d %s", e.Status, e.Message)
}

// Retryable reports whether the request may succeed when tried again.
func (e *Error) Retryable() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// request is one call: where, what, and the most items it can return.
type request struct {
	method   string
	path     string // below the base URL, prefix included where it applies
	query    url.Values
	body     any
	raw      []byte // an encoded body, sent as is (Raw)
	maxItems int64
	// once marks a request that must not be repeated once the server may
	// have acted on it (a monitor's creation): only a 429, answered before
	// any work, is retried.
	once bool
}

// encode is the request's body, encoded.
func (req *request) encode() ([]byte, error) {
	if req.body == nil {
		return req.raw, nil
	}
	b, err := json.Marshal(req.body)
	if err != nil {
		return nil, fmt.Errorf("client: encode request: %w", err)
	}
	return b, nil
}

// call sends req (retrying as c.retry says) and decodes a 2xx body with
// decode, which returns how many items it held; the budget is charged for
// them.
func (c *Client) call(ctx context.Context, req request, decode func([]byte) (int, error)) error {
	reserved, err := c.budget.reserve(req.maxItems)
	if err != nil {
		return err
	}
	items := 0
	defer func() { c.budget.settle(reserved, int64(items)) }()
	body, err := req.encode()
	if err != nil {
		return err
	}
	var data []byte
	err = c.retrying(ctx, req, func() error {
		resp, err := c.open(ctx, req, body)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if data, err = io.ReadAll(resp.Body); err != nil {
			return fmt.Errorf("client: %s %s: read: %w", req.method, req.path, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if items, err = decode(data); err != nil {
		return fmt.Errorf("client: %s %s: decode: %w", req.method, req.path, err)
	}
	return nil
}

// retrying runs try until it succeeds, fails for good or ctx ends,
// waiting between tries as c.retry says.
func (c *Client) retrying(ctx context.Context, req request, try func() error) error {
	for attempt := 0; ; attempt++ {
		err := try()
		if err == nil {
			return nil
		}
		wait, retry := c.backoff(req, err, attempt)
		if !retry || ctx.Err() != nil {
			return err
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// backoff says whether err is worth another try of req after attempt,
// and when.
func (c *Client) backoff(req request, err error, attempt int) (time.Duration, bool) {
	if attempt >= c.retry.Max {
		return 0, false
	}
	var ae *Error
	isAPI := errors.As(err, &ae)
	if req.once && (!isAPI || ae.Status != http.StatusTooManyRequests) {
		return 0, false
	}
	if isAPI {
		if !ae.Retryable() {
			return 0, false
		}
		if ae.RetryAfter > 0 {
			return ae.RetryAfter, true
		}
	}
	d := c.retry.Base << min(attempt, 30)
	if d <= 0 || (c.retry.Cap > 0 && d > c.retry.Cap) {
		d = c.retry.Cap
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1)), true // jitter: half fixed, half random
}

// open makes one HTTP request and returns the response to a 2xx answer,
// its body unread, an *Error for any other answer, or the transport's
// error.
func (c *Client) open(ctx context.Context, req request, body []byte) (*http.Response, error) {
	u := c.base + req.path
	if len(req.query) > 0 {
		u += "?" + req.query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	hr.Header.Set("Authorization", "Bearer "+c.key)
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", req.method, req.path, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: read: %w", req.method, req.path, err)
	}
	ae := &Error{Status: resp.StatusCode, RequestID: resp.Header.Get("X-Request-Id")}
	var eb wire.ErrorBody
	if json.Unmarshal(data, &eb) == nil && eb.Message != "" {
		ae.Message, ae.Errors = eb.Message, eb.Errors
	} else {
		ae.Message = http.StatusText(resp.StatusCode)
	}
	ae.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), c.now())
	return nil, ae
}

// retryAfter reads a Retry-After value (RFC 9110 §10.2.3), seconds or an
// HTTP-date, as the wait from now; 0 when there is none, it cannot be
// read, or its date has passed.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, int64(math.MaxInt64/time.Second))) * time.Second // no overflow
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// budget is a spend limit shared by every call of a client.
type budget struct {
	mu              sync.Mutex
	limit, price    int64
	spent, reserved int64
}

// reserve sets aside what a request of at most n items can cost.
func (b *budget) reserve(n int64) (int64, error) {
	if b == nil {
		return 0, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	left := b.limit - b.spent - b.reserved
	if n < 0 || left < 0 || n > left/b.price { // n·price ≤ left, without overflow
		return 0, ErrBudget
	}
	cost := n * b.price
	b.reserved += cost
	return cost, nil
}

// settle turns a reservation into the cost of the items a request
// returned: what the server charged, even past the reservation (a server
// that sends more than a page's size is not undercounted).
func (b *budget) settle(reserved, items int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= reserved
	b.spent += items * b.price
}

func (b *budget) spentNow() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// parseID reads a decimal id; 0 and an error for anything else.
func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("client: id %q is not a decimal id", s)
	}
	return id, nil
}
