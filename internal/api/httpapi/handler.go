package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/social"
)

// endpoint runs a route through its steps, in the order the API's money
// rules fix (docs/api.md, "The order of a request's checks"): 405 for another method → 401 →
// the key's hold on the server (429 past its share) → the sandbox's delay
// and injected 429 → the rate limit (429) → the body, read before any of
// the server's slots is taken (402 first for a key that cannot pay and
// could not replay) → a serving slot (503 when none is free) → 422 (and
// 413/415/400) → a kept response for a repeated Idempotency-Key → 402 when
// the balance is not positive → an injected 500 → the work → 404/403 →
// cost → debit only if the balance covers it (else 402, no data) and the
// client is still there → the response. Failed requests and empty pages
// cost nothing.
//
// An injected 429 stands in for the rate limiter (it takes no token); an
// injected 500 stands in for the work (after validation, the kept response
// and 402, so it took a rate-limit token like any request that got that
// far). Neither is charged.
func (s *server) endpoint(rt *route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := &passage{s: s, rt: rt, w: w, r: r, ctx: r.Context(), info: infoFrom(r.Context())}
		c.info.route = rt.name
		defer c.release()
		if !(c.method() && c.authenticate() && c.hold() && c.sandbox() && c.limit() && c.readBody() &&
			c.admit() && c.parse() && c.replayKept() && c.funded() && c.injected()) {
			return
		}
		if rt.stream != nil {
			s.streamed(w, r, rt, c.a, c.idem)
			return
		}
		page, items, ok := c.page()
		if ok && c.charge(page, items) {
			writeBody(w, http.StatusOK, page)
		}
	}
}

// passage is one request on its way through a route's steps. Each step
// returns false when it has answered the request (an error) and nothing
// more is to be done.
type passage struct {
	s    *server
	rt   *route
	w    http.ResponseWriter
	r    *http.Request
	ctx  context.Context
	info *reqInfo
	key  social.APIKey
	vs   social.Versions
	plan fault.Plan
	roll fault.Outcome
	// body is the request body as read (readBody), or bodyErr why it
	// could not be; parse answers either in its place among the checks.
	body    []byte
	bodyErr error
	a       *args
	idem    *social.StoredResponse
	gateway bool
	// held, slot and buf are what the steps took (the key's hold, a
	// slot, the page's buffer), given back by release.
	held, slot bool
	buf        *bytes.Buffer
}

// fail answers err and stops the steps. An answer before the request's
// body was read closes the connection after it: net/http would otherwise
// read what is left of the body first, as slowly as it comes.
func (c *passage) fail(err error) bool {
	if c.body == nil && c.bodyErr == nil && c.r.ContentLength != 0 {
		c.w.Header().Set("Connection", "close")
	}
	writeError(c.w, c.r, c.s.log, err)
	return false
}

// release gives back what the steps took.
func (c *passage) release() {
	if c.held {
		c.s.holds.put(c.key.ID)
	}
	if c.slot {
		<-c.s.slots
	}
	if c.buf != nil {
		c.s.buffers.put(c.buf)
	}
}

// method refuses another method than the route's (HEAD too: a response
// without its body is not sold): 405 with Allow.
func (c *passage) method() bool {
	if c.r.Method == c.rt.method {
		return true
	}
	c.w.Header().Set("Allow", c.rt.method)
	return c.fail(errMethod)
}

// authenticate finds the caller's key (401 without one).
func (c *passage) authenticate() bool {
	key, vs, err := c.s.authenticate(c.ctx, c.rt, c.r.Header.Get("Authorization"))
	if errors.Is(err, billing.ErrUnauthenticated) {
		err = errUnauthenticated
	}
	if err != nil {
		return c.fail(err)
	}
	c.key, c.vs = key, vs
	c.info.keyID = key.ID
	return true
}

// hold counts the request against its key's share of the server
// (Config.MaxPerKey): a key with that many requests under way is answered
// 429 at once, so that no key can hold the server's slots or memory.
func (c *passage) hold() bool {
	if !c.s.holds.take(c.key.ID) {
		return c.fail(errKeyBusy)
	}
	c.held = true
	return true
}

// sandbox reads the key's fault plan (a bad X-Roost-Fault header is 422
// here), rolls its dice, waits out a delay and answers an injected 429.
func (c *passage) sandbox() bool {
	plan, err := c.s.faultPlan(c.r, &c.key)
	if err != nil {
		return c.fail(err)
	}
	c.plan, c.roll = plan, c.s.dice.Roll(c.key.ID, plan)
	if c.roll.Delay > 0 {
		c.s.metrics.fault(c.rt.name, "delay")
		c.info.fault = "delay"
		if err := c.s.sleep(c.ctx, c.roll.Delay); err != nil {
			return c.fail(err) // the client went away
		}
	}
	if c.roll.Status == http.StatusTooManyRequests {
		c.s.inject(c.info, c.rt.name, c.roll)
		return c.fail(injected(c.roll, c.plan))
	}
	return true
}

// limit takes a token of the key's rate limit (429 without one).
func (c *passage) limit() bool {
	if err := c.s.allow(c.ctx, c.w.Header(), &c.key); err != nil {
		return c.fail(err)
	}
	return true
}

// readBody reads a route's request body before the request takes one of
// the server's slots, so that a body trickling in holds nothing but its
// key's hold; it must arrive within bodyTime of its length. A paid route's
// key that cannot pay is answered 402 before its body is read, unless the
// request carries an Idempotency-Key (a kept response is replayed free).
// The server's own ReadTimeout, when shorter, still bounds the body.
// Once the body is read whole its deadline is lifted.
func (c *passage) readBody() bool {
	if c.rt.body == bodyNone {
		return true
	}
	if !c.rt.free && c.key.Balance <= 0 && c.r.Header.Get(headerIdempotencyKey) == "" {
		return c.fail(errInsufficient)
	}
	if !jsonBody(c.r) {
		return true // 415 in parse: the body is not read
	}
	rc := http.NewResponseController(c.w)
	rc.SetReadDeadline(bodyDeadline(c.r, time.Now())) //nolint:errcheck // not every writer has deadlines
	if c.body, c.bodyErr = readBody(c.r); c.bodyErr == nil {
		// A body cut short keeps its deadline: net/http reads what is
		// left of it before it answers, and must not wait for it.
		rc.SetReadDeadline(time.Time{}) //nolint:errcheck // as above
	}
	return true
}

// admit takes one of the server's slots (Config.MaxConcurrent) for the
// work: 503 with Retry-After when none is free.
func (c *passage) admit() bool {
	if c.s.slots == nil {
		return true
	}
	select {
	case c.s.slots <- struct{}{}:
		c.slot = true
		return true
	default:
		return c.fail(errBusy)
	}
}

// parse validates the request's parameters and body (422, 413, 415,
// 400) and reads its Idempotency-Key.
func (c *passage) parse() bool {
	c.gateway = c.s.upstream != nil && !c.rt.free && !c.rt.local
	a, err := c.rt.parse(c.r, c.body, c.bodyErr, c.s.now(), c.gateway)
	if err != nil {
		return c.fail(err)
	}
	c.a = a
	if c.idem, err = idempotency(c.r, a, c.key.ID, c.s.now()); err != nil {
		return c.fail(err)
	}
	return true
}

// replayKept answers a repeated Idempotency-Key of a paid route with the
// response kept for it, free.
func (c *passage) replayKept() bool {
	if c.idem == nil || c.rt.free {
		return true
	}
	replayed, err := c.s.replay(c.ctx, c.w, c.idem)
	if err != nil {
		return c.fail(err)
	}
	return !replayed
}

// funded refuses a paid route to a key whose balance is not positive
// (402).
func (c *passage) funded() bool {
	if !c.rt.free && c.key.Balance <= 0 {
		return c.fail(errInsufficient)
	}
	return true
}

// injected answers the sandbox's injected 500, and hands the key and plan
// to the work.
func (c *passage) injected() bool {
	if c.roll.Status == http.StatusInternalServerError {
		c.s.inject(c.info, c.rt.name, c.roll)
		return c.fail(injected(c.roll, c.plan))
	}
	c.a.key, c.a.plan = &c.key, c.plan
	return true
}

// page is the answer's body and billable items: from the page cache, or
// made by the route (or upstream, in gateway mode) and kept there.
func (c *passage) page() ([]byte, int, bool) {
	s, rt, a := c.s, c.rt, c.a
	serve := rt.serve
	if c.gateway {
		serve = s.serveUpstream(rt, c.r, c.vs.Deletions)
	}
	cacheKey, cacheable := pageKey(c.r, rt, a, c.gateway)
	cacheable = cacheable && s.pages != nil && c.vs.Content >= 0
	if cacheable {
		if page, items, hit := s.pages.get(c.vs.Content, cacheKey); hit {
			s.metrics.pageCache(true)
			return page, items, true
		}
		s.metrics.pageCache(false)
	}
	body, items, err := serve(c.ctx, s, a)
	if err != nil {
		return nil, 0, c.fail(s.classify(rt, err))
	}
	buf := s.buffers.get()
	c.buf = buf
	if raw, ok := body.(rawJSON); ok {
		buf.Write(raw)
	} else if err := encodeJSON(buf, body); err != nil {
		return nil, 0, c.fail(err)
	}
	page := buf.Bytes()
	if cacheable {
		page = bytes.Clone(page)
		s.pages.put(c.vs.Content, cacheKey, page, items)
	}
	return page, items, true
}

// charge debits a paid route's page (keeping it under its Idempotency-Key
// in the same transaction). A client gone before the debit is not
// charged; a debit refused for its balance is 402; the same
// Idempotency-Key paid for meanwhile answers what that request got.
func (c *passage) charge(page []byte, items int) bool {
	if c.rt.free {
		return true
	}
	if err := c.ctx.Err(); err != nil {
		return c.fail(err) // the client went away: nothing is charged
	}
	if c.idem != nil {
		c.idem.Body = page
	}
	charging := time.Now()
	amount, _, err := c.s.biller.Charge(c.ctx, social.Debit{KeyID: c.key.ID, RequestID: c.info.id,
		Endpoint: c.rt.name, Items: items, Response: c.idem})
	c.s.metrics.debit(time.Since(charging))
	switch {
	case errors.Is(err, social.ErrInsufficientBalance):
		err = errInsufficient
	case c.idem != nil && errors.Is(err, social.ErrConflict):
		// The same Idempotency-Key was paid for meanwhile: answer what
		// that request got.
		if replayed, rerr := c.s.replay(c.ctx, c.w, c.idem); replayed || rerr != nil {
			if rerr != nil {
				c.fail(rerr)
			}
			return false
		}
	}
	if err != nil {
		return c.fail(err)
	}
	c.info.items, c.info.charged = items, amount
	c.s.metrics.charge(c.rt.name, items, amount)
	setCharged(c.w.Header(), items, amount)
	return true
}

// headerCharged tells a client what a paid JSON answer cost, beside
// headerItems: decimal US dollars, as balance_usd is written.
const headerCharged = "X-Roost-Charged-USD"

// setCharged names what an answer charged: its items and their price in
// US dollars (0 and 0 for an answer replayed free).
func setCharged(h http.Header, items int, micros int64) {
	var b [48]byte
	n := strconv.AppendInt(b[:0], int64(items), 10)
	both := string(billing.AppendUSD(n, micros))
	// One string and one slice for both values, under their keys as
	// net/http writes them (a key in its canonical form is not rewritten).
	vals := []string{both[:len(n)], both[len(n):]}
	h[canonicalItems] = vals[:1:1]
	h[canonicalCharged] = vals[1:]
}

// The charge headers' names in net/http's canonical form
// (TestCanonicalHeaders).
const (
	canonicalItems   = headerItems
	canonicalCharged = "X-Roost-Charged-Usd"
)

// noVersions caches nothing.
var noVersions = social.Versions{Content: -1, Keys: -1, Deletions: -1}

// versions reads the store's change counters for a paid route's caches;
// noVersions for a free route (its answers are the key's own: balance,
// monitors), a store without them, or a failed read (the request then
// reads everything afresh and meets the store's failure itself).
func (s *server) versions(ctx context.Context, rt *route) social.Versions {
	if s.versioned == nil || rt.free {
		return noVersions
	}
	v, err := s.versioned.get(ctx)
	if err != nil {
		return noVersions
	}
	return v
}

// authenticate is billing.Authenticate through the key cache. It reads
// the store's change counters (for the key and page caches) once the
// header holds a well-formed key: a malformed one costs no database read.
func (s *server) authenticate(ctx context.Context, rt *route, header string) (social.APIKey, social.Versions, error) {
	secret, err := billing.BearerKey(header)
	if err != nil {
		return social.APIKey{}, noVersions, err
	}
	vs := s.versions(ctx, rt)
	if vs.Keys < 0 {
		k, err := billing.LookupKey(ctx, s.store, secret)
		return k, vs, err
	}
	digest := billing.Digest(secret)
	if k, ok := s.keys.get(vs.Keys, digest); ok {
		return k, vs, nil
	}
	k, err := billing.LookupKey(ctx, s.store, secret)
	if err == nil {
		s.keys.put(vs.Keys, k)
	}
	return k, vs, err
}

// pageKey names a request's page in the page cache, and reports whether
// its page may be kept at all: a paid GET answered from the database (not
// gateway mode, not a research route), without a fault plan that changes
// its cursors. The key is the route, the path and query as sent, and for a
// search its canonical query, whose time bounds within_time: fixed when it
// was parsed.
func pageKey(r *http.Request, rt *route, a *args, gateway bool) (string, bool) {
	if rt.free || rt.local || gateway || rt.method != http.MethodGet || a.plan.LatestCursorPages > 0 {
		return "", false
	}
	k := rt.name + "\x00" + r.URL.Path + "?" + r.URL.RawQuery
	if a.query != nil {
		k += "\x00" + a.query.String()
	}
	return k, true
}

// inject counts an injected failure and names it in the request's log
// line.
func (s *server) inject(info *reqInfo, route string, o fault.Outcome) {
	code := strconv.Itoa(o.Status)
	s.metrics.fault(route, code)
	if info.fault != "" {
		code = info.fault + "+" + code
	}
	info.fault = code
}

// endpoints serves a path of one or more routes, by method; a method of
// none of them is 405 naming every method of the path.
func (s *server) endpoints(rts []*route) http.Handler {
	if len(rts) == 1 {
		return s.endpoint(rts[0])
	}
	by := map[string]http.HandlerFunc{}
	methods := make([]string, 0, len(rts))
	for _, rt := range rts {
		by[rt.method] = s.endpoint(rt)
		methods = append(methods, rt.method)
	}
	allow := strings.Join(methods, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := by[r.Method]; ok {
			h(w, r)
			return
		}
		infoFrom(r.Context()).route = rts[0].name
		w.Header().Set("Allow", allow)
		writeError(w, r, s.log, errMethod)
	})
}

// allow applies the key's rate limit and reports its state in the
// X-RateLimit-Limit, -Remaining and -Reset headers (seconds until the
// bucket is full again).
func (s *server) allow(ctx context.Context, h http.Header, key *social.APIKey) error {
	limit := s.rateLimit
	if key.RateLimit > 0 {
		limit = key.RateLimit
	}
	if limit < 0 {
		return nil
	}
	d, err := s.limiter.Allow(ctx, key.ID, limit)
	if err != nil {
		return fmt.Errorf("rate limit of key %d: %w", key.ID, err)
	}
	if d.Limit > 0 {
		h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(int64((d.Reset+time.Second-1)/time.Second), 10))
	}
	if !d.Allowed {
		return &apiError{status: http.StatusTooManyRequests, message: msgRateLimited, retryAfter: d.RetryAfter}
	}
	return nil
}

// classify maps a failure of the work to its answer: the route's 404
// message for a missing entity, 422 for input the store rejects, the
// error itself when it already is an answer, else a 500.
func (s *server) classify(rt *route, err error) error {
	var ae *apiError
	var an *Answer
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &an):
		return &apiError{status: an.Status, message: an.Message, errors: an.Errors}
	case errorsIsNotFound(err):
		return notFound(rt.notFound)
	case errors.Is(err, social.ErrInvalid):
		param := "request"
		if rt.query {
			param = "query"
		}
		return invalid(param, "is not supported")
	}
	return err
}

func errorsIsNotFound(err error) bool { return errors.Is(err, social.ErrNotFound) }

// serveBalance is GET /user/balance: the balance in USD, written exactly
// from integer micro-USD.
func serveBalance(_ context.Context, _ *server, a *args) (any, int, error) {
	return wire.Balance{USD: json.Number(billing.FormatUSD(a.key.Balance))}, 0, nil
}
