package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/roostapi/roost/internal/fault"
	"github.com/roostapi/roost/internal/social"
)

// faultPlan is the caller's sandbox plan: the X-Roost-Fault header when
// the request carries one (it replaces the key's own for this request),
// else the key's stored plan. A header that cannot be read is a 422
// naming it; a stored plan that cannot be read (written around the admin
// checks) is logged and injects nothing.
func (s *server) faultPlan(r *http.Request, key *social.APIKey) (fault.Plan, error) {
	if text := r.Header.Get(fault.Header); text != "" {
		p, err := fault.Parse(text)
		if err != nil {
			return p, invalid(fault.Header, err.Error())
		}
		return p, nil
	}
	p, err := fault.Parse(key.Fault)
	if err != nil {
		s.log.WarnContext(r.Context(), "the key's stored fault plan cannot be read; no faults injected",
			"key_id", key.ID, "fault", key.Fault, "err", err)
		return fault.Plan{}, nil
	}
	return p, nil
}

// injected is the answer of an injected failure: 429 with the plan's
// Retry-After, or 500 in the hosted error shape. Neither is logged as a
// failure of the server, and neither is charged.
func injected(o fault.Outcome, p fault.Plan) *apiError {
	if o.Status == http.StatusTooManyRequests {
		return &apiError{status: o.Status, message: msgRateLimited, retryAfter: time.Duration(p.RetryAfter) * time.Second,
			retryNow: p.RetryAfter == 0}
	}
	return &apiError{status: http.StatusInternalServerError, message: msgInternal}
}

// sleepCtx waits d or until ctx is done (Config.Sleep's default).
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
