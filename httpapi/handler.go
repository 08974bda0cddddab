package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"roost/billing"
	"roost/social"
)

// endpoint runs a route in the order CONTRACT "Money" fixes: 401 → 429 →
// 422 (and 413/415) → 402 when the balance is not positive → the work →
// 404/403 → cost → debit only if the balance covers it (else 402, no data)
// → the response. Failed requests and empty pages cost nothing.
func (s *server) endpoint(rt *route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		info := infoFrom(ctx)
		info.route = rt.name
		fail := func(err error) { writeError(w, r, s.log, err) }

		key, err := billing.Authenticate(ctx, s.store, r.Header.Get("Authorization"))
		if errors.Is(err, billing.ErrUnauthenticated) {
			err = errUnauthenticated
		}
		if err != nil {
			fail(err)
			return
		}
		info.keyID = key.ID
		if err := s.allow(ctx, &key); err != nil {
			fail(err)
			return
		}
		a, err := rt.parse(r, s.now())
		if err != nil {
			fail(err)
			return
		}
		if !rt.free && key.Balance <= 0 {
			fail(errInsufficient)
			return
		}
		a.key = &key
		if rt.stream != nil {
			s.streamed(w, r, rt, a)
			return
		}
		body, items, err := rt.serve(ctx, s, a)
		if err != nil {
			fail(s.classify(rt, err))
			return
		}
		buf := s.buffers.get()
		defer s.buffers.put(buf)
		if err := encodeJSON(buf, body); err != nil {
			fail(err)
			return
		}
		if !rt.free {
			amount, _, err := s.biller.Charge(ctx, key.ID, info.id, rt.name, items)
			if errors.Is(err, social.ErrInsufficientBalance) {
				err = errInsufficient
			}
			if err != nil {
				fail(err)
				return
			}
			info.items, info.charged = items, amount
			s.metrics.charge(rt.name, items, amount)
		}
		writeBody(w, http.StatusOK, buf.Bytes())
	}
}

// allow applies the key's rate limit.
func (s *server) allow(ctx context.Context, key *social.APIKey) error {
	limit := s.rateLimit
	if key.RateLimit > 0 {
		limit = key.RateLimit
	}
	if limit < 0 {
		return nil
	}
	ok, retry, err := s.limiter.Allow(ctx, key.ID, limit)
	if err != nil {
		return fmt.Errorf("rate limit of key %d: %w", key.ID, err)
	}
	if !ok {
		return &apiError{status: http.StatusTooManyRequests, message: msgRateLimited, retryAfter: retry}
	}
	return nil
}

// classify maps a failure of the work to its answer: the route's 404
// message for a missing entity, 422 for input the store rejects, the
// error itself when it already is an answer, else a 500.
func (s *server) classify(rt *route, err error) error {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		return ae
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
