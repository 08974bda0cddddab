package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestMonitorsOff: a handler built without Config.Monitors answers the
// monitoring endpoints 503, whatever the store keeps, and charges nothing.
func TestMonitorsOff(t *testing.T) {
	e := newEnv(t, engines()[0], Config{}, fixture())
	key, id := e.key(t, plenty, 0)
	for _, c := range []call{
		{path: "/monitors"},
		{method: http.MethodPost, path: "/monitors/user-tweets", body: `{"user_id":"1"}`},
		{method: http.MethodPost, path: "/user/webhook", body: `{"url":"http://127.0.0.1/hook"}`},
	} {
		c.key = key
		w := e.do(c)
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "Monitors are not available on this server") {
			t.Errorf("%s %s: %d %s, want 503", c.method, c.path, w.Code, w.Body)
		}
	}
	if b := e.balance(t, id); b != plenty {
		t.Errorf("balance %d, want %d", b, plenty)
	}
}
