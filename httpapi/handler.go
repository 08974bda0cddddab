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

	"github.com/roostapi/roost/billing"
	"github.com/roostapi/roost/fault"
	"github.com/roostapi/roost/social"
)

// endpoint runs a route in the order CONTRACT "Money" fixes: 401 → 429 →
// 422 (and 413/415/400) → a kept response for a repeated Idempotency-Key →
// 402 when the balance is not positive → the work → 404/403 → cost →
// debit only if the balance covers it (else 402, no data) → the response.
// Failed requests and empty pages cost nothing. A method other than the
// route's (HEAD too: a response without its body is not sold) is 405.
//
// The key's fault plan (the sandbox) is read after 401 (a bad
// X-Roost-Fault header is 422 there); its delay comes first, an injected
// 429 stands in for the rate limiter (it takes no token), and an injected
// 500 stands in for the work (after validation, the kept response and
// 402, so it took a rate-limit token like any request that got that
// far). Neither is charged.
func (s *server) endpoint(rt *route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		info := infoFrom(ctx)
		info.route = rt.name
		fail := func(err error) { writeError(w, r, s.log, err) }
		if r.Method != rt.method {
			w.Header().Set("Allow", rt.method)
			fail(errMethod)
			return
		}
		key, vs, err := s.authenticate(ctx, rt, r.Header.Get("Authorization"))
		if errors.Is(err, billing.ErrUnauthenticated) {
			err = errUnauthenticated
		}
		if err != nil {
			fail(err)
			return
		}
		info.keyID = key.ID
		plan, err := s.faultPlan(r, &key)
		if err != nil {
			fail(err)
			return
		}
		roll := s.dice.Roll(key.ID, plan)
		if roll.Delay > 0 {
			s.metrics.fault(rt.name, "delay")
			info.fault = "delay"
			if err := s.sleep(ctx, roll.Delay); err != nil {
				return // the client went away
			}
		}
		if roll.Status == http.StatusTooManyRequests {
			s.inject(info, rt.name, roll)
			fail(injected(roll, plan))
			return
		}
		if err := s.allow(ctx, w.Header(), &key); err != nil {
			fail(err)
			return
		}
		gateway := s.upstream != nil && !rt.free && !rt.local
		a, err := rt.parse(r, s.now(), gateway)
		if err != nil {
			fail(err)
			return
		}
		idem, err := idempotency(r, a, key.ID, s.now())
		if err != nil {
			fail(err)
			return
		}
		if idem != nil && !rt.free {
			if replayed, err := s.replay(ctx, w, idem); replayed || err != nil {
				if err != nil {
					fail(err)
				}
				return
			}
		}
		if !rt.free && key.Balance <= 0 {
			fail(errInsufficient)
			return
		}
		if roll.Status == http.StatusInternalServerError {
			s.inject(info, rt.name, roll)
			fail(injected(roll, plan))
			return
		}
		a.key, a.plan = &key, plan
		if rt.stream != nil {
			s.streamed(w, r, rt, a, idem)
			return
		}
		serve := rt.serve
		if gateway {
			serve = s.serveUpstream(rt, r)
		}
		var (
			page  []byte
			items int
		)
		cacheKey, cacheable := pageKey(r, rt, a, gateway)
		cacheable = cacheable && s.pages != nil && vs.Content >= 0
		if cacheable {
			var hit bool
			page, items, hit = s.pages.get(vs.Content, cacheKey)
			s.metrics.pageCache(hit)
			cacheable = !hit // a miss: the page made below is kept
		}
		if page == nil {
			body, n, err := serve(ctx, s, a)
			if err != nil {
				fail(s.classify(rt, err))
				return
			}
			buf := s.buffers.get()
			defer s.buffers.put(buf)
			if raw, ok := body.(rawJSON); ok {
				buf.Write(raw)
			} else if err := encodeJSON(buf, body); err != nil {
				fail(err)
				return
			}
			page, items = buf.Bytes(), n
			if cacheable {
				page = bytes.Clone(page)
				s.pages.put(vs.Content, cacheKey, page, items)
			}
		}
		if !rt.free {
			if idem != nil {
				idem.Body = page
			}
			charging := time.Now()
			amount, _, err := s.biller.Charge(ctx, social.Debit{KeyID: key.ID, RequestID: info.id,
				Endpoint: rt.name, Items: items, Response: idem})
			s.metrics.debit(time.Since(charging))
			switch {
			case errors.Is(err, social.ErrInsufficientBalance):
				err = errInsufficient
			case idem != nil && errors.Is(err, social.ErrConflict):
				// The same Idempotency-Key was paid for meanwhile: answer
				// what that request got.
				if replayed, rerr := s.replay(ctx, w, idem); replayed || rerr != nil {
					if rerr != nil {
						fail(rerr)
					}
					return
				}
			}
			if err != nil {
				fail(err)
				return
			}
			info.items, info.charged = items, amount
			s.metrics.charge(rt.name, items, amount)
		}
		writeBody(w, http.StatusOK, page)
	}
}

// noVersions caches nothing.
var noVersions = social.Versions{Content: -1, Keys: -1}

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

// balanceBody is GET /user/balance: the balance in USD, written exactly
// from integer micro-USD.
type balanceBody struct {
	BalanceUSD json.Number `json:"balance_usd"`
}

func serveBalance(_ context.Context, _ *server, a *args) (any, int, error) {
	return balanceBody{BalanceUSD: json.Number(billing.FormatUSD(a.key.Balance))}, 0, nil
}
