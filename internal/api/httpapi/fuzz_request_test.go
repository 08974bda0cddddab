package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// FuzzRequest sends a route (by index) with a fuzzed path value, raw query
// string and JSON body to the handler over a small SQLite store, with a
// funded key. It checks that nothing answers 5xx, and that a request with
// a NUL byte or invalid UTF-8 in a text input (a path value, a query
// parameter's name or value, a string of a body the route reads) is never
// a 200, so never charged. One store serves every iteration.
func FuzzRequest(f *testing.F) {
	e, _ := monitorEnvOf(f, engines()[0], fixture(), monitor.Options{})
	key, _ := e.key(f, plenty, 1<<30)
	rts := routes()
	index := map[string]uint8{}
	for i, rt := range rts {
		index[rt.name] = uint8(i)
	}
	for _, s := range []struct{ route, value, query, body string }{
		{"user", "ab\x00c", "", ""},
		{"mentions", "ab\x00c", "", ""},
		{"extended_bio", "ab\x00c", "", ""},
		{"user", "ab\xffc", "", ""},
		{"search_users", "", "query=%00", ""},
		{"search_users", "", "query=a%00b", ""},
		{"search_users", "", "query=a%FFb", ""},
		{"users_by_usernames", "", "", `{"usernames":["ab\u0000c"]}`},
		{"monitor_user_tweets", "", "", `{"user_screen_name":"ab\u0000c"}`},
		{"search", "", "query=url:abc%00def", ""},
		{"search", "", "query=url:abc%00def&type=Top", ""},
		{"search", "", "query=from:ab%00c", ""},
		{"search_counts", "", "query=url:abc%00def", ""},
		{"monitor_search_query", "", "", `{"query":"url:abc\u0000def","refresh_frequency":60}`},
		{"search", "", "query=golang&type=Top", ""},
		{"search_users", "", "query=ali", ""},
		{"user", "alice", "", ""},
		{"users_by_usernames", "", "", `{"usernames":["alice","bob"]}`},
		{"tweets_by_ids", "", "", `{"ids":[1,"2"]}`},
		{"monitor_update", "0123456789abcdefghijklmnop", "", `{"webhook_url":null}`},
		{"search_top", "", "query=go&field=hashtags", ""},
	} {
		f.Add(index[s.route], s.value, s.query, s.body)
	}
	f.Fuzz(func(t *testing.T, i uint8, value, query, body string) {
		rt := rts[int(i)%len(rts)]
		_, path, _ := strings.Cut(rt.patterns()[0], " ")
		hostile := false
		for _, p := range []string{rt.param, rt.param2} {
			if p == "" {
				continue
			}
			if rt.inQuery && p == rt.param {
				query = url.QueryEscape(p) + "=" + url.QueryEscape(value) + "&" + query
			} else {
				path = strings.Replace(path, "{"+p+"}", url.PathEscape(value), 1)
			}
			hostile = hostile || social.CheckText(value) != nil
		}
		hostile = hostile || hostileQuery(query) || rt.body != bodyNone && hostileJSON(body)
		r := httptest.NewRequest(rt.method, path, strings.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Authorization", "Bearer "+key)
		if rt.body != bodyNone {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		e.h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s?%s %q: %d %s", rt.method, path, query, body, w.Code, w.Body)
		}
		if hostile && w.Code == http.StatusOK {
			t.Fatalf("%s %s?%s %q holds a NUL byte or invalid UTF-8 and was answered 200: %s", rt.method, path, query,
				body, w.Body)
		}
	})
}

// hostileQuery reports whether a raw query string has a parameter name or
// value that decodes to text no store can hold.
func hostileQuery(raw string) bool {
	for _, pair := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(pair, "=")
		for _, s := range []string{k, v} {
			if d, err := url.QueryUnescape(s); err == nil && social.CheckText(d) != nil {
				return true
			}
		}
	}
	return false
}

// hostileJSON reports whether a JSON body holds a string, a key or a value
// at any depth, that no store can hold once decoded.
func hostileJSON(body string) bool {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(body)))
	if dec.Decode(&v) != nil {
		return false
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return social.CheckText(v) != nil
		case []any:
			for _, x := range v {
				if walk(x) {
					return true
				}
			}
		case map[string]any:
			for k, x := range v {
				if social.CheckText(k) != nil || walk(x) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
