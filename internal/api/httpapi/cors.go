package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// cors answers cross-origin browser clients from the origins an operator
// lists (Config.CORSOrigins): "*" allows any origin. No origin is allowed
// by default.
type cors []string

// allowed is the Access-Control-Allow-Origin value for origin, "" when the
// origin is not allowed.
func (c cors) allowed(origin string) string {
	switch {
	case origin == "" || len(c) == 0:
		return ""
	case slices.Contains(c, "*"):
		return "*"
	case slices.ContainsFunc(c, func(o string) bool { return strings.EqualFold(o, origin) }):
		return origin
	}
	return ""
}

// Headers a cross-origin client may send and read.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Idempotency-Key, X-Roost-Fault"
	corsExposeHeaders = "X-Request-Id, Retry-After, WWW-Authenticate, X-RateLimit-Limit, X-RateLimit-Remaining, " +
		"X-RateLimit-Reset, Idempotent-Replayed, X-Roost-Items, X-Roost-Items-Replayed, X-Roost-Charged-USD"
	corsMethods = "GET, POST, OPTIONS"
	corsMaxAge  = "600"
)

// apply sets the CORS headers of a response to an allowed origin and
// reports whether the request is a preflight, to be answered 204 with no
// body.
func (c cors) apply(w http.ResponseWriter, r *http.Request) bool {
	allow := c.allowed(r.Header.Get("Origin"))
	if allow == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", allow)
	h.Add("Vary", "Origin")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		return false
	}
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	return true
}
