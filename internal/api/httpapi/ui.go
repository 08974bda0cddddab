package httpapi

import (
	"embed"
	"io/fs"
	"net/http"
)

// The search page: static files built into the binary (nothing is fetched
// from the network when it runs). It speaks only the public API with the
// key a person signs in with, so keys, billing and rate limits hold.
//
//go:embed ui
var uiFiles embed.FS

// uiPolicy lets the page load its own files and call its own origin only.
const uiPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// handleUI registers the page at /ui and /ui/, and its two files; any
// other path (/ too) stays an unknown endpoint.
func (s *server) handleUI() {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded directory is part of the binary
	}
	file := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			infoFrom(r.Context()).route = "ui"
			h := w.Header()
			h.Set("Content-Security-Policy", uiPolicy)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			h.Set("Cache-Control", "no-cache")
			http.ServeFileFS(w, r, sub, name)
		}
	}
	for _, p := range []string{"/ui", "/ui/{$}"} {
		s.mux.HandleFunc("GET "+p, file("index.html"))
	}
	s.mux.HandleFunc("GET /ui/app.js", file("app.js"))
	s.mux.HandleFunc("GET /ui/app.css", file("app.css"))
}
