package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/social"
)

// apiError is an error answered with its own status and message.
type apiError struct {
	status     int
	message    string
	errors     map[string][]string // 422 details by parameter
	retryAfter time.Duration       // 429, 503
	retryNow   bool                // Retry-After: 0 (an injected 429 asked to)
	// cause is why a request the client broke failed (logged at info
	// level, never sent).
	cause error
}

func (e *apiError) Error() string { return e.message }

// Messages of the error answers (docs/api.md, "Errors"); those the hosted
// service answers with are its own words.
const (
	msgUnauthenticated = "No valid API key provided"
	msgRateLimited     = "Too many requests"
	msgInsufficient    = "Insufficient balance"
	msgInternal        = "Failed to fetch data from Twitter"
	msgNotFound        = "Not found"
	msgUserNotFound    = "User not found"
	msgTweetNotFound   = "Tweet not found"
	msgSpaceNotFound   = "Space not found"
	msgUnknownEndpoint = "Unknown endpoint"
	msgProtected       = "User is protected"
	msgInvalidCursor   = "Invalid cursor"
	msgTooLarge        = "Request body too large"
	msgUnsupported     = "Content-Type must be application/json"
	msgMethod          = "Method not allowed"
	msgTooExpensive    = "Query too expensive"
	msgBadBody         = "Request body could not be read"
	msgBusy            = "Server busy"
	msgReused          = "Idempotency-Key was used for another request"
	msgUnavailable     = "Service unavailable, try again shortly"
)

var (
	errUnauthenticated = &apiError{status: http.StatusUnauthorized, message: msgUnauthenticated}
	errInsufficient    = &apiError{status: http.StatusPaymentRequired, message: msgInsufficient}
	errProtected       = &apiError{status: http.StatusForbidden, message: msgProtected}
	errTooLarge        = &apiError{status: http.StatusRequestEntityTooLarge, message: msgTooLarge}
	errUnsupported     = &apiError{status: http.StatusUnsupportedMediaType, message: msgUnsupported}
	errMethod          = &apiError{status: http.StatusMethodNotAllowed, message: msgMethod}
	errUnknown         = &apiError{status: http.StatusNotFound, message: msgUnknownEndpoint}
	errBusy            = &apiError{status: http.StatusServiceUnavailable, message: msgBusy, retryAfter: time.Second}
	// errKeyBusy: the key has its share of the server under way
	// (Config.MaxPerKey).
	errKeyBusy = &apiError{status: http.StatusTooManyRequests, message: msgRateLimited, retryAfter: time.Second}
	// errUnavailable: the database could not be reached (a failover, a
	// lost connection); nothing was charged.
	errUnavailable = &apiError{status: http.StatusServiceUnavailable, message: msgUnavailable, retryAfter: unavailableRetry}
)

// unavailableRetry is the Retry-After of a request the database could not
// answer: long enough for a lost connection to be replaced or a standby
// promoted, short enough that a client retrying comes back soon.
const unavailableRetry = 2 * time.Second

// badBody is the 400 of a request body that ended early or came too
// slowly: the client's doing, so it is logged at info level.
func badBody(cause error) *apiError {
	return &apiError{status: http.StatusBadRequest, message: msgBadBody, cause: cause}
}

// invalid is a 422 naming the parameter and what is wrong with it.
func invalid(param, problem string) *apiError {
	msg := "Invalid " + param
	if param == "cursor" {
		msg = msgInvalidCursor
	}
	return &apiError{status: http.StatusUnprocessableEntity, message: msg,
		errors: map[string][]string{param: {problem}}}
}

// tooExpensive is the 422 of a search stopped after its timeout.
func tooExpensive(timeout time.Duration) *apiError {
	return &apiError{status: http.StatusUnprocessableEntity, message: msgTooExpensive,
		errors: map[string][]string{"query": {"the search found no complete page within " + timeout.String() +
			": narrow it with since:, until:, max_id:, from: or fewer negated terms"}}}
}

func notFound(msg string) *apiError { return &apiError{status: http.StatusNotFound, message: msg} }

// writeError answers err: an *apiError as itself; a failure after the
// client went away is not answered but logged at info level and counted
// as StatusClientClosed; social.ErrUnavailable is 503 with Retry-After,
// logged as a warning; anything else is a 500 whose cause goes to the log
// with the request id, never to the client.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
	case clientGone(r):
		info := infoFrom(r.Context())
		info.gone = true
		log.InfoContext(r.Context(), "client went away", "request_id", info.id, "method", r.Method,
			"path", r.URL.Path, "err", err)
		return
	case errors.Is(err, social.ErrUnavailable):
		log.WarnContext(r.Context(), "database unavailable", "request_id", infoFrom(r.Context()).id,
			"method", r.Method, "path", r.URL.Path, "err", err)
		ae = errUnavailable
	default:
		log.ErrorContext(r.Context(), "request failed",
			"request_id", infoFrom(r.Context()).id, "method", r.Method, "path", r.URL.Path, "err", err)
		ae = &apiError{status: http.StatusInternalServerError, message: msgInternal}
	}
	if ae.cause != nil {
		log.InfoContext(r.Context(), "bad request", "request_id", infoFrom(r.Context()).id,
			"method", r.Method, "path", r.URL.Path, "status", ae.status, "cause", ae.cause)
	}
	h := w.Header()
	switch ae.status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", "Bearer")
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		if ae.retryNow {
			h.Set("Retry-After", "0")
		} else {
			h.Set("Retry-After", seconds(ae.retryAfter))
		}
	}
	writeJSON(w, ae.status, wire.ErrorBody{Status: "error", Message: ae.message, Errors: ae.errors})
}

// clientGone reports whether r's client went away: the server cancels a
// request's context when its connection closes, and roost's own deadlines
// end contexts derived from it, never the request's own.
func clientGone(r *http.Request) bool {
	return errors.Is(r.Context().Err(), context.Canceled)
}

// seconds is a duration in whole seconds, rounded up, at least 1: the form
// of Retry-After and X-RateLimit-Reset.
func seconds(d time.Duration) string {
	return strconv.FormatInt(max(int64((d+time.Second-1)/time.Second), 1), 10)
}
