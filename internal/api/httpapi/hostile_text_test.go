package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// Text that no store can hold (issue 31): PostgreSQL's text refuses a NUL
// byte and invalid UTF-8 (SQLSTATE 22021, a 500), SQLite cuts LIKE
// patterns and FTS5 strings at a NUL (a billed page of strangers, or a
// 500). Every text input of every route is checked at the edge: a 422
// naming the parameter, never a 5xx, never a charge.

// hostileText are values no store can hold: NUL bytes, and invalid UTF-8
// (a stray byte, a cut sequence, an encoded surrogate).
var hostileText = []string{"\x00", "ab\x00c", "url:abc\x00def", "\xff", "ab\xffc", "\xe6\x9d", "x\xed\xa0\x80"}

// textCase is a request with one hostile text input and what the 422 must
// say: the parameter it names and the problem.
type textCase struct {
	what           string
	method, target string
	body           string
	param, problem string
}

// pathValue is a valid value of a path parameter, so that a request fails
// only on the input a case makes hostile.
func pathValue(param string) string {
	switch param {
	case paramUsername, paramUser:
		return "alice"
	case paramSpaceID:
		return "1OdJrXWaPVPGX"
	case paramMonitorID:
		return "0123456789abcdefghijklmnop"
	}
	return "1"
}

// textQueryParams are the query parameters a route reads, and a valid
// value of each.
func textQueryParams(rt *route) map[string]string {
	qs := map[string]string{}
	if rt.inQuery {
		qs[rt.param] = pathValue(rt.param)
	}
	if rt.query {
		qs["query"] = "golang"
	}
	if rt.ordered {
		qs["type"] = "Top"
	}
	if rt.paged {
		qs["cursor"] = ""
	}
	for _, p := range researchParameters()[rt.name] {
		qs[p.name] = ""
	}
	if rt.name == "search_top" {
		qs["field"] = "hashtags"
	}
	if rt.name == "monitors" {
		qs["page"] = "1"
	}
	return qs
}

// bodyFields are the top-level fields of a route's JSON body.
func bodyFields(rt *route) []string {
	switch rt.body {
	case bodyIDs:
		return []string{"ids"}
	case bodyUsernames:
		return []string{"usernames"}
	case bodyObject:
		return monitorRequest(rt.name).Order
	}
	return nil
}

// routeTarget is a route's path (under /social when it has prefixes) with
// path values from value, and the query string qs.
func routeTarget(rt *route, value func(param string) string, qs map[string]string) string {
	_, path, _ := strings.Cut(rt.patterns()[0], " ")
	for _, p := range []string{rt.param, rt.param2} {
		if p != "" && !(rt.inQuery && p == rt.param) {
			path = strings.Replace(path, "{"+p+"}", url.PathEscape(value(p)), 1)
		}
	}
	var q []string
	for _, k := range slices.Sorted(maps.Keys(qs)) {
		q = append(q, url.QueryEscape(k)+"="+url.QueryEscape(qs[k]))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + strings.Join(q, "&")
}

// hostileTextCases are, for every route, a request per text input (path
// value, query parameter, unknown parameter, parameter name, body field
// and its nested strings, body key) holding each hostile value.
func hostileTextCases() []textCase {
	var out []textCase
	seen := map[string]bool{}
	for _, rt := range routes() {
		if seen[rt.name] {
			continue
		}
		seen[rt.name] = true
		body := ""
		if rt.body != bodyNone {
			body = "{}"
		}
		base := textQueryParams(rt)
		for _, v := range hostileText {
			problem := social.CheckText(v).Error()
			add := func(what, target, body, param string) {
				out = append(out, textCase{what: fmt.Sprintf("%s %s %q", rt.name, what, v), method: rt.method,
					target: target, body: body, param: param, problem: problem})
			}
			for _, p := range []string{rt.param, rt.param2} {
				if p == "" || rt.inQuery && p == rt.param {
					continue
				}
				value := func(q string) string {
					if q == p {
						return v
					}
					return pathValue(q)
				}
				add("path "+p, routeTarget(rt, value, base), body, p)
			}
			for _, name := range append(slices.Sorted(maps.Keys(base)), "unknown") {
				qs := maps.Clone(base)
				qs[name] = v
				add("query "+name, routeTarget(rt, pathValue, qs), body, name)
			}
			qs := maps.Clone(base)
			qs["a"+v] = "1"
			out = append(out, textCase{what: fmt.Sprintf("%s parameter name %q", rt.name, "a"+v), method: rt.method,
				target: routeTarget(rt, pathValue, qs), body: body, param: "query string",
				problem: fmt.Sprintf("parameter name %q %v", "a"+v, social.CheckText("a"+v))})
			if !strings.Contains(v, "\x00") || rt.body == bodyNone {
				continue // JSON reads invalid UTF-8 as U+FFFD: only \u0000 cannot be stored
			}
			s, _ := json.Marshal(v)
			target := routeTarget(rt, pathValue, base)
			for _, f := range bodyFields(rt) {
				add("body "+f, target, fmt.Sprintf(`{%q:%s}`, f, s), f)
				add("body "+f+" entry", target, fmt.Sprintf(`{%q:["ok",%s]}`, f, s), f)
				add("body "+f+" nested", target, fmt.Sprintf(`{%q:{"k":[1,{"x":%s}]}}`, f, s), f)
				add("body "+f+" nested key", target, fmt.Sprintf(`{%q:{%s:1}}`, f, s), f)
			}
			add("body top level", target, string(s), "body")
			k, _ := json.Marshal("a" + v)
			out = append(out, textCase{what: fmt.Sprintf("%s body key %s", rt.name, k), method: rt.method, target: target,
				body: fmt.Sprintf(`{%s:1}`, k), param: "body",
				problem: fmt.Sprintf("field name %q %v", "a"+v, social.CheckText("a"+v))})
		}
	}
	return out
}

// issueTextCases are the reproductions of issue 31 (D1, D2), each with the
// answer it must get.
var issueTextCases = []textCase{
	{"D1 user", "GET", "/social/user/ab%00c", "", "user", "contains a NUL byte at byte 2"},
	{"D1 mentions", "GET", "/social/user/ab%00c/mentions", "", "username", "contains a NUL byte at byte 2"},
	{"D1 extended bio", "GET", "/social/user/ab%00c/extended-bio", "", "username", "contains a NUL byte at byte 2"},
	{"D1 search-users NUL", "GET", "/social/search-users?query=%00", "", "query", "contains a NUL byte at byte 0"},
	{"D1 search-users a NUL b", "GET", "/social/search-users?query=a%00b", "", "query", "contains a NUL byte at byte 1"},
	{"D1 users-by-usernames", "POST", "/social/users-by-usernames", `{"usernames":["ab\u0000c"]}`, "usernames", "contains a NUL byte at byte 2"},
	{"D1 user monitor", "POST", "/monitors/user-tweets", `{"user_screen_name":"ab\u0000c"}`, "user_screen_name", "contains a NUL byte at byte 2"},
	{"D1 from:", "GET", "/social/search?query=from:ab%00c", "", "query", "contains a NUL byte at byte 7"},
	{"D1 user invalid UTF-8", "GET", "/twitter/user/ab%FFc", "", "user", "is not valid UTF-8 at byte 2"},
	{"D1 search-users invalid UTF-8", "GET", "/social/search-users?query=a%ffb", "", "query", "is not valid UTF-8 at byte 1"},
	{"D2 url:", "GET", "/social/search?query=url:abc%00def", "", "query", "contains a NUL byte at byte 7"},
	{"D2 url: Top", "GET", "/social/search?query=url:abc%00def&type=Top", "", "query", "contains a NUL byte at byte 7"},
	{"D2 url: counts", "GET", "/social/search/counts?query=url:abc%00def", "", "query", "contains a NUL byte at byte 7"},
	{"D2 search monitor", "POST", "/monitors/search-query", `{"query":"url:abc\u0000def","refresh_frequency":60}`, "query", "contains a NUL byte at byte 7"},
}

// TestHostileText: every text input of every route holding a NUL byte or
// invalid UTF-8 is a 422 naming the parameter and the byte, on both
// engines; nothing answers 5xx and nothing is charged.
func TestHostileText(t *testing.T) {
	cases := append(slices.Clone(issueTextCases), hostileTextCases()...)
	eachEngine(t, func(t *testing.T, eng engine) {
		e, _ := monitorEnvOf(t, eng, fixture(), monitor.Options{})
		key, id := e.key(t, plenty, 1<<30)
		for _, c := range cases {
			w := e.do(call{method: c.method, path: c.target, key: key, body: c.body})
			var got wire.ErrorBody
			json.Unmarshal(w.Body.Bytes(), &got) //nolint:errcheck // checked below
			want := []string{c.problem}
			if w.Code != http.StatusUnprocessableEntity || got.Message != "Invalid "+c.param || !slices.Equal(got.Errors[c.param], want) {
				t.Errorf("%s: %s %s %s: %d %s\nwant 422 Invalid %s %q", c.what, c.method, c.target, c.body, w.Code,
					strings.TrimSpace(w.Body.String()), c.param, want)
			}
		}
		if b, n := e.balance(t, id), e.debits(t, id); b != plenty || n != 0 {
			t.Errorf("charged: balance %d (want %d), %d debits", b, plenty, n)
		}
	})
}

// TestHostileTextInBodies: invalid UTF-8 in a JSON body is read as U+FFFD
// (encoding/json), which any store holds: those requests are answered as
// the repaired text (a user not found, say), never with a 5xx, on both
// engines.
func TestHostileTextInBodies(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		e, _ := monitorEnvOf(t, eng, fixture(), monitor.Options{})
		key, id := e.key(t, plenty, 1<<30)
		for _, c := range []struct{ path, body string }{
			{"/social/users-by-usernames", "{\"usernames\":[\"ab\xffc\",\"\xed\xa0\x80\"]}"},
			{"/social/tweets-by-ids", "{\"ids\":[\"1\xff\"]}"},
			{"/monitors/user-tweets", "{\"user_screen_name\":\"ab\xffc\"}"},
			{"/monitors/search-query", "{\"query\":\"url:abc\xffdef\",\"refresh_frequency\":60}"},
			{"/user/webhook", "{\"url\":\"http://127.0.0.1/\xff\"}"},
		} {
			w := e.do(call{method: http.MethodPost, path: c.path, key: key, body: c.body})
			if w.Code >= 500 {
				t.Errorf("POST %s %q: %d %s", c.path, c.body, w.Code, w.Body)
			}
		}
		if b := e.balance(t, id); b != plenty {
			t.Errorf("charged %d", plenty-b)
		}
	})
}
