package httpapi

import (
	"net/http"
	"testing"
)

// TestCORS: listed origins get the CORS headers and their preflights a
// 204; other origins, and every origin by default, get none.
func TestCORS(t *testing.T) {
	eng := engines()[0]
	open := newEnv(t, eng, Config{CORSOrigins: []string{"https://app.example"}}, fixture())
	key, _ := open.key(t, plenty, 0)
	preflight := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET",
		"Access-Control-Request-Headers": "authorization"}

	w := open.do(call{method: http.MethodOptions, path: "/social/user/1/tweets", header: preflight})
	if w.Code != http.StatusNoContent || w.Body.Len() != 0 {
		t.Fatalf("preflight: %d %q", w.Code, w.Body)
	}
	for h, want := range map[string]string{"Access-Control-Allow-Origin": "https://app.example",
		"Access-Control-Allow-Methods": corsMethods, "Access-Control-Allow-Headers": corsAllowHeaders,
		"Access-Control-Max-Age": corsMaxAge, "Vary": "Origin"} {
		if got := w.Header().Get(h); got != want {
			t.Errorf("preflight %s = %q, want %q", h, got, want)
		}
	}
	w = open.do(call{path: "/social/user/1/tweets", key: key, header: map[string]string{"Origin": "https://APP.example"}})
	if w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != "https://APP.example" ||
		w.Header().Get("Access-Control-Expose-Headers") != corsExposeHeaders {
		t.Errorf("GET from a listed origin: %d %v", w.Code, w.Header())
	}
	w = open.do(call{path: "/social/user/1/tweets", header: map[string]string{"Origin": "https://app.example"}})
	if w.Code != 401 || w.Header().Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("a 401 must carry CORS headers so the browser can read it: %d %v", w.Code, w.Header())
	}
	w = open.do(call{path: "/social/user/1/tweets", key: key, header: map[string]string{"Origin": "https://evil.example"}})
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an unlisted origin got CORS headers: %v", w.Header())
	}
	w = open.do(call{method: http.MethodOptions, path: "/social/user/1/tweets",
		header: map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"}})
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from an unlisted origin: %d %v", w.Code, w.Header())
	}

	any := newEnv(t, eng, Config{CORSOrigins: []string{"*"}}, nil)
	if w := any.do(call{method: http.MethodOptions, path: "/user/balance", header: preflight}); w.Code != 204 ||
		w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("* allows any origin: %d %v", w.Code, w.Header())
	}
	none := newEnv(t, eng, Config{}, nil)
	if w := none.do(call{method: http.MethodOptions, path: "/user/balance", header: preflight}); w.Code != 405 ||
		w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no origins by default: %d %v", w.Code, w.Header())
	}
}
