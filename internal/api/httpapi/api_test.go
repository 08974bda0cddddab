package httpapi

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/social"
)

const plenty = 1_000_000_000 // micro-USD: 1000 USD

// endpointCases are the success requests of every endpoint, with the items
// each returns on its first page.
var endpointCases = []struct {
	name, method, path, body string
	items                    int
	paged                    bool
}{
	{"user_tweets", "GET", "/user/1/tweets", "", 20, true},
	{"user_tweets_and_replies", "GET", "/user/1/tweets-and-replies", "", 20, true},
	{"community_tweets", "GET", "/community/7/tweets", "", 20, true},
	{"community_tweets_top", "GET", "/community/7/tweets?type=top", "", 20, true},
	{"tweets_by_ids", "POST", "/tweets-by-ids", `{"ids":["105",101,"999",101,104]}`, 3, false},
	{"users_by_usernames", "POST", "/users-by-usernames", `{"usernames":["@Carol","nobody","alice","ALICE"]}`, 2, false},
	{"user_lists", "GET", "/user/1/lists", "", 1, true},
	{"list_tweets", "GET", "/list/9/tweets", "", 13, true},
	{"thread", "GET", "/thread/101", "", 3, true},
	{"mentions", "GET", "/user/BOB/mentions", "", 2, true},
	{"retweeted_by", "GET", "/tweets/101/retweeted_by", "", 2, true},
	{"affiliates", "GET", "/user/3/affiliates", "", 2, true},
	{"verified_followers", "GET", "/user/1/verified-followers", "", 2, true},
	{"following", "GET", "/user/1/following", "", 2, true},
	{"community_members", "GET", "/community/7/members", "", 3, true},
	{"list_members", "GET", "/list/9/members", "", 2, true},
	{"highlights", "GET", "/user/1/highlights", "", 2, true},
	{"search", "GET", "/search?query=community", "", 20, true},

	{"user_by_id", "GET", "/user/1", "", 1, false},
	{"user_by_name", "GET", "/user/@Carol", "", 1, false},
	{"user_by_digit_name", "GET", "/user/2024", "", 1, false},
	{"users_by_ids", "POST", "/users-by-ids", `{"ids":["3",1,999,"1"]}`, 2, false},
	{"extended_bio", "GET", "/user/alice/extended-bio", "", 1, false},
	{"extended_bio_empty", "GET", "/user/bob/extended-bio", "", 0, false},
	{"followers", "GET", "/user/1/followers", "", 3, true},
	{"tweet", "GET", "/tweets/104", "", 1, false},
	{"tweet_comments", "GET", "/tweets/101/comments", "", 1, true},
	{"tweet_quotes", "GET", "/tweets/101/quotes", "", 1, true},
	{"list", "GET", "/list/9", "", 1, false},
	{"space", "GET", "/space/1AbCdEfGhIjKl", "", 1, false},
	{"commented_by", "GET", "/tweets/101/commented_by/2", "", 1, false},
	{"commented_by_not", "GET", "/tweets/101/commented_by/3", "", 1, false},
	{"retweeted_by_user", "GET", "/tweets/101/retweeted_by/4", "", 1, false},
	{"following_user", "GET", "/user/4/following/1", "", 1, false},
	{"statuses_show", "GET", "/statuses/show?id=101", "", 1, false},
	{"followers_list", "GET", "/followers/list?user_id=1", "", 3, true},
	{"friends_list", "GET", "/friends/list?user_id=1", "", 2, true},
	{"search_users", "GET", "/search-users?query=A", "", 4, true},
	{"user_likes", "GET", "/user/4/likes", "", 2, true},
	{"liking_users", "GET", "/tweets/101/liking_users", "", 2, true},
}

func TestEndpointsGolden(t *testing.T) { eachEngine(t, testEndpointsGolden) }

func testEndpointsGolden(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, id := e.key(t, plenty, 0)
	for _, tc := range endpointCases {
		t.Run(tc.name, func(t *testing.T) {
			var bodies [2]string
			for i, prefix := range prefixes {
				before := e.balance(t, id)
				w := e.do(call{method: tc.method, path: prefix + tc.path, key: key, body: tc.body})
				if w.Code != http.StatusOK {
					t.Fatalf("%s %s: status %d: %s", tc.method, prefix+tc.path, w.Code, w.Body)
				}
				if ct := w.Header().Get("Content-Type"); ct != contentTypeJSON {
					t.Errorf("Content-Type %q", ct)
				}
				if w.Header().Get("X-Request-Id") == "" {
					t.Error("no X-Request-Id")
				}
				bodies[i] = w.Body.String()
				n := countItems(t, tc.name, w.Body.Bytes())
				if n != tc.items {
					t.Errorf("%d items, want %d", n, tc.items)
				}
				if drop := before - e.balance(t, id); drop != int64(n)*billing.DefaultPrice {
					t.Errorf("balance dropped %d for %d items, want %d", drop, n, int64(n)*billing.DefaultPrice)
				}
			}
			if bodies[0] != bodies[1] {
				t.Errorf("/social and /twitter answers differ")
			}
			golden(t, tc.name, []byte(bodies[0]))
		})
	}
}

// countItems is the number of billable items of the answer of a route
// (by its name or path).
func countItems(t *testing.T, name string, body []byte) int {
	t.Helper()
	if strings.Contains(name, "tweets_by_ids") || strings.Contains(name, "tweets-by-ids") {
		var arr []json.RawMessage
		if err := json.Unmarshal(body, &arr); err != nil {
			t.Fatalf("not an array: %v", err)
		}
		return len(arr)
	}
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Tweets == nil && p.Users == nil && p.Lists == nil { // one object: an item unless empty
		if strings.TrimSpace(string(body)) == "{}" {
			return 0
		}
		return 1
	}
	return len(p.items())
}

// errorCase is a request and its exact answer.
type errorCase struct {
	name   string
	c      call
	status int
	body   string
}

func TestErrors(t *testing.T) { eachEngine(t, testErrors) }

func testErrors(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, id := e.key(t, plenty, 0)
	revoked, rid := e.key(t, plenty, 0)
	if err := e.store.Revoke(t.Context(), rid); err != nil {
		t.Fatal(err)
	}
	unknown, _, _ := billing.NewKey()
	const (
		unauth = `{"status":"error","message":"No valid API key provided"}`
	)
	inv := func(msg, param, problem string) string {
		b, _ := json.Marshal(wire.ErrorBody{Status: "error", Message: msg, Errors: map[string][]string{param: {problem}}})
		return string(b)
	}
	msg := func(m string) string { return `{"status":"error","message":"` + m + `"}` }
	bigIDs := `{"ids":[` + strings.Repeat(`1,`, 100) + `1]}`
	cases := []errorCase{
		{"no key", call{path: "/social/user/1/tweets"}, 401, unauth},
		{"unknown key", call{path: "/social/user/1/tweets", key: unknown}, 401, unauth},
		{"revoked key", call{path: "/social/user/1/tweets", key: revoked}, 401, unauth},
		{"basic scheme", call{path: "/social/user/1/tweets", header: map[string]string{"Authorization": "Basic " + key}}, 401, unauth},
		{"balance no key", call{path: "/user/balance"}, 401, unauth},

		{"id letters", call{path: "/social/user/abc/tweets", key: key}, 422, inv("Invalid user_id", "user_id", "must be a decimal integer")},
		{"id zero", call{path: "/social/user/0/tweets", key: key}, 422, inv("Invalid user_id", "user_id", "must be between 1 and 9223372036854775807")},
		{"id signed", call{path: "/social/user/+1/tweets", key: key}, 422, inv("Invalid user_id", "user_id", "must be a decimal integer")},
		{"id overflow", call{path: "/social/list/9223372036854775808/tweets", key: key}, 422, inv("Invalid list_id", "list_id", "must be between 1 and 9223372036854775807")},
		{"id float", call{path: "/social/thread/1.5", key: key}, 422, inv("Invalid thread_id", "thread_id", "must be a decimal integer")},
		{"tweet id", call{path: "/social/tweets/x/retweeted_by", key: key}, 422, inv("Invalid tweet_id", "tweet_id", "must be a decimal integer")},
		{"community id", call{path: "/social/community/-7/members", key: key}, 422, inv("Invalid community_id", "community_id", "must be a decimal integer")},
		{"bad type", call{path: "/social/community/7/tweets?type=Oldest", key: key}, 422, inv("Invalid type", "type", "must be Latest or Top")},
		{"search bad type", call{path: "/social/search?query=x&type=hot", key: key}, 422, inv("Invalid type", "type", "must be Latest or Top")},
		{"cursor garbage", call{path: "/social/user/1/tweets?cursor=abc", key: key}, 422, inv("Invalid cursor", "cursor", "is not a cursor of this endpoint and query")},
		{"cursor null", call{path: "/social/user/1/tweets?cursor=null", key: key}, 422, inv("Invalid cursor", "cursor", "is null; omit it (or send it empty) for the first page")},
		{"cursor undefined", call{path: "/social/user/1/tweets?cursor=undefined", key: key}, 422, inv("Invalid cursor", "cursor", "is undefined; omit it (or send it empty) for the first page")},
		{"query missing", call{path: "/social/search", key: key}, 422, inv("Invalid query", "query", "is required")},
		{"query blank", call{path: "/social/search?query=%20%20", key: key}, 422, inv("Invalid query", "query", "is required")},
		{"ids missing", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{}`}, 422, inv("Invalid ids", "ids", "is required")},
		{"ids empty", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[]}`}, 422, inv("Invalid ids", "ids", "must have 1 to 100 entries, not 0")},
		{"ids 101", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: bigIDs}, 422, inv("Invalid ids", "ids", "must have 1 to 100 entries, not 101")},
		{"ids not array", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":"1,2"}`}, 422, inv("Invalid ids", "ids", "must be an array")},
		{"ids float", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[1.5]}`}, 422, inv("Invalid ids", "ids", "entry 0 must be a decimal integer")},
		{"ids exponent", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101,1e3]}`}, 422, inv("Invalid ids", "ids", "entry 1 must be a decimal integer")},
		{"ids bool", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[true]}`}, 422, inv("Invalid ids", "ids", "entry 0 must be an id, as a number or a string")},
		{"ids negative", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[-1]}`}, 422, inv("Invalid ids", "ids", "entry 0 must be a decimal integer")},
		{"ids huge", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[9223372036854775808]}`}, 422, inv("Invalid ids", "ids", "entry 0 must be between 1 and 9223372036854775807")},
		{"body not JSON", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `ids=1`}, 422, inv("Invalid body", "body", "must be a JSON object")},
		{"body array", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `[1]`}, 422, inv("Invalid body", "body", "must be a JSON object")},
		{"body trailing", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[1]} {}`}, 422, inv("Invalid body", "body", "must be a JSON object")},
		{"no body", call{method: "POST", path: "/social/tweets-by-ids", key: key}, 422, inv("Invalid body", "body", "must be a JSON object")},
		{"usernames number", call{method: "POST", path: "/social/users-by-usernames", key: key, body: `{"usernames":[1]}`}, 422, inv("Invalid usernames", "usernames", "entry 0 must be a string")},
		{"usernames at only", call{method: "POST", path: "/social/users-by-usernames", key: key, body: `{"usernames":["@"]}`}, 422, inv("Invalid usernames", "usernames", "entry 0 must be a screen name")},
		{"form body", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101]}`, header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, msg("Content-Type must be application/json")},
		{"too large", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101],"pad":"` + strings.Repeat("x", 1<<20) + `"}`}, 413, msg("Request body too large")},

		{"user 404", call{path: "/social/user/999/tweets", key: key}, 404, msg("Not found")},
		{"user replies 404", call{path: "/twitter/user/999/tweets-and-replies", key: key}, 404, msg("Not found")},
		{"community 404", call{path: "/social/community/999/tweets", key: key}, 404, msg("Not found")},
		{"tweets by ids 404", call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[999,"998"]}`}, 404, msg("Tweet not found")},
		{"usernames 404", call{method: "POST", path: "/social/users-by-usernames", key: key, body: `{"usernames":["nobody"]}`}, 404, msg("User not found")},
		{"lists 404", call{path: "/social/user/999/lists", key: key}, 404, msg("User not found")},
		{"list tweets 404", call{path: "/social/list/999/tweets", key: key}, 404, msg("Not found")},
		{"thread 404", call{path: "/social/thread/999", key: key}, 404, msg("Tweet not found")},
		{"mentions 404", call{path: "/social/user/nobody/mentions", key: key}, 404, msg("User not found")},
		{"retweeted_by 404", call{path: "/social/tweets/999/retweeted_by", key: key}, 404, msg("Tweet not found")},
		{"affiliates 404", call{path: "/social/user/999/affiliates", key: key}, 404, msg("User not found")},
		{"verified followers 404", call{path: "/social/user/999/verified-followers", key: key}, 404, msg("User not found")},
		{"following 404", call{path: "/social/user/999/following", key: key}, 404, msg("User not found")},
		{"community members 404", call{path: "/social/community/999/members", key: key}, 404, msg("User not found")},
		{"list members 404", call{path: "/social/list/999/members", key: key}, 404, msg("Not found")},
		{"highlights 404", call{path: "/social/user/999/highlights", key: key}, 404, msg("User not found")},

		{"user path", call{path: "/social/user/a%20b", key: key}, 422, inv("Invalid user", "user", "must be a user id or a screen name")},
		{"user name 404", call{path: "/social/user/nobody", key: key}, 404, msg("User not found")},
		{"user id 404", call{path: "/twitter/user/999", key: key}, 404, msg("User not found")},
		{"users by ids 404", call{method: "POST", path: "/social/users-by-ids", key: key, body: `{"ids":[999]}`}, 404, msg("User not found")},
		{"users by ids empty", call{method: "POST", path: "/social/users-by-ids", key: key, body: `{"ids":[]}`}, 422, inv("Invalid ids", "ids", "must have 1 to 100 entries, not 0")},
		{"users by ids letters", call{method: "POST", path: "/social/users-by-ids", key: key, body: `{"ids":["x"]}`}, 422, inv("Invalid ids", "ids", "entry 0 must be a decimal integer")},
		{"extended bio 404", call{path: "/social/user/nobody/extended-bio", key: key}, 404, msg("User not found")},
		{"followers 404", call{path: "/social/user/999/followers", key: key}, 404, msg("User not found")},
		{"tweet 404", call{path: "/social/tweets/999", key: key}, 404, msg("Tweet not found")},
		{"tweet id", call{path: "/social/tweets/1e3", key: key}, 422, inv("Invalid tweet_id", "tweet_id", "must be a decimal integer")},
		{"comments 404", call{path: "/social/tweets/999/comments", key: key}, 404, msg("Tweet not found")},
		{"quotes 404", call{path: "/social/tweets/999/quotes", key: key}, 404, msg("Tweet not found")},
		{"quotes cursor", call{path: "/social/tweets/101/quotes?cursor=abc", key: key}, 422, inv("Invalid cursor", "cursor", "is not a cursor of this endpoint and query")},
		{"list 404", call{path: "/social/list/999", key: key}, 404, msg("Not found")},
		{"space 404", call{path: "/social/space/nope123", key: key}, 404, msg("Space not found")},
		{"space id", call{path: "/social/space/a-b", key: key}, 422, inv("Invalid space_id", "space_id", "must be 1 to 32 letters and digits")},
		{"commented tweet 404", call{path: "/social/tweets/999/commented_by/1", key: key}, 404, msg("Tweet not found")},
		{"commented user 404", call{path: "/social/tweets/101/commented_by/999", key: key}, 404, msg("User not found")},
		{"commented user id", call{path: "/social/tweets/101/commented_by/x", key: key}, 422, inv("Invalid user_id", "user_id", "must be a decimal integer")},
		{"retweeted user 404", call{path: "/social/tweets/101/retweeted_by/999", key: key}, 404, msg("User not found")},
		{"following target 404", call{path: "/social/user/1/following/999", key: key}, 404, msg("User not found")},
		{"following source 404", call{path: "/social/user/999/following/1", key: key}, 404, msg("User not found")},
		{"following target id", call{path: "/social/user/1/following/0", key: key}, 422, inv("Invalid target_user_id", "target_user_id", "must be between 1 and 9223372036854775807")},
		{"statuses show no id", call{path: "/social/statuses/show", key: key}, 422, inv("Invalid id", "id", "is required")},
		{"statuses show 404", call{path: "/twitter/statuses/show?id=999", key: key}, 404, msg("Tweet not found")},
		{"followers list no user", call{path: "/social/followers/list", key: key}, 422, inv("Invalid user_id", "user_id", "is required")},
		{"friends list 404", call{path: "/social/friends/list?user_id=999", key: key}, 404, msg("User not found")},
		{"search users no query", call{path: "/social/search-users?query=%20", key: key}, 422, inv("Invalid query", "query", "is required")},
		{"likes 404", call{path: "/social/user/999/likes", key: key}, 404, msg("User not found")},
		{"likes protected", call{path: "/social/user/2/likes", key: key}, 403, msg("User is protected")},
		{"liking users 404", call{path: "/social/tweets/999/liking_users", key: key}, 404, msg("Tweet not found")},

		{"protected tweets", call{path: "/social/user/2/tweets", key: key}, 403, msg("User is protected")},
		{"protected replies", call{path: "/social/user/2/tweets-and-replies", key: key}, 403, msg("User is protected")},
		{"protected highlights", call{path: "/social/user/2/highlights", key: key}, 403, msg("User is protected")},

		{"unknown path", call{path: "/social/nope", key: key}, 404, msg("Unknown endpoint")},
		{"unknown top-level path", call{path: "/nope", key: key}, 404, msg("Unknown endpoint")},
		{"unknown prefix", call{path: "/v2/user/1/tweets", key: key}, 404, msg("Unknown endpoint")},
		{"trailing slash", call{path: "/social/user/1/tweets/", key: key}, 404, msg("Unknown endpoint")},
		{"unclean path", call{path: "/social//user/1/tweets", key: key}, 404, msg("Unknown endpoint")},
		{"dot segment", call{path: "/social/user/2/../1/tweets", key: key}, 404, msg("Unknown endpoint")},
		{"dot", call{path: "/social/./user/1/tweets", key: key}, 404, msg("Unknown endpoint")},
		{"head", call{method: "HEAD", path: "/social/user/1/tweets", key: key}, 405, msg("Method not allowed")},
		{"head balance", call{method: "HEAD", path: "/user/balance", key: key}, 405, msg("Method not allowed")},
		{"cursor stray percent", call{path: "/social/user/1/tweets?cursor=%", key: key}, 422, inv("Invalid cursor", "cursor", "is not valid percent-encoding")},
		{"cursor bad escape", call{path: "/social/user/1/tweets?cursor=%zz", key: key}, 422, inv("Invalid cursor", "cursor", "is not valid percent-encoding")},
		{"search cursor bad escape", call{path: "/social/search?query=community&cursor=%zz", key: key}, 422, inv("Invalid cursor", "cursor", "is not valid percent-encoding")},
		{"query bad escape", call{path: "/social/search?query=%zz", key: key}, 422, inv("Invalid query", "query", "is not valid percent-encoding")},
		{"parameter name bad escape", call{path: "/social/user/1/tweets?%zz=1", key: key}, 422, inv("Invalid query string", "query string", `parameter name "%zz" is not valid percent-encoding`)},
		{"forged search cursor", call{path: "/social/search?query=community&cursor=" + encodeCursor(cursorScope("search", "Latest", "community"), social.Key{Sort: math.MinInt64, ID: math.MinInt64}), key: key}, 422, inv("Invalid cursor", "cursor", "is not a cursor of this endpoint and query")},
	}
	before := e.balance(t, id)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := e.do(tc.c)
			if w.Code != tc.status || strings.TrimSpace(w.Body.String()) != tc.body {
				t.Errorf("got %d %s\nwant %d %s", w.Code, strings.TrimSpace(w.Body.String()), tc.status, tc.body)
			}
			if ct := w.Header().Get("Content-Type"); ct != contentTypeJSON {
				t.Errorf("Content-Type %q", ct)
			}
			if w.Code == 401 && w.Header().Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("401 without WWW-Authenticate: Bearer")
			}
		})
	}
	if after := e.balance(t, id); after != before {
		t.Errorf("failed requests cost %d micro-USD", before-after)
	}
	ledger, err := e.store.Ledger(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ledger {
		if l.Kind == "debit" {
			t.Errorf("failed request left a debit: %+v", l)
		}
	}
}

// TestAuthFirst: without a valid key every route answers 401, whatever
// else is wrong with the request and whatever the balance.
func TestAuthFirst(t *testing.T) { eachEngine(t, testAuthFirst) }

func testAuthFirst(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	bad := []call{
		{path: "/social/user/abc/tweets"}, {path: "/social/user/999/tweets"}, {path: "/social/user/2/tweets"},
		{path: "/social/search"}, {path: "/social/search?query=x&type=bad"}, {path: "/social/user/1/tweets?cursor=null"},
		{method: "POST", path: "/social/tweets-by-ids", body: `{"ids":[]}`},
		{method: "POST", path: "/social/tweets-by-ids", body: `{"ids":[999]}`},
		{method: "POST", path: "/twitter/users-by-usernames", body: `nope`, header: map[string]string{"Content-Type": "text/plain"}},
		{path: "/user/balance"},
	}
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			_, path, _ := strings.Cut(p, " ")
			bad = append(bad, call{method: rt.method, path: strings.NewReplacer("{user_id}", "0", "{community_id}", "x",
				"{list_id}", "1", "{thread_id}", "999", "{tweet_id}", "1", "{username}", "nobody").Replace(path)})
		}
	}
	for _, c := range bad {
		for _, auth := range []string{"", "Bearer", "Bearer roost_x", "Token abc"} {
			c.header = map[string]string{"Authorization": auth}
			w := e.do(c)
			if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("%s %s with %q: %d %s, want 401", c.method, c.path, auth, w.Code, w.Body)
			}
		}
	}
}

func TestMethodNotAllowed(t *testing.T) { eachEngine(t, testMethodNotAllowed) }

func testMethodNotAllowed(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	methods := map[string][]string{} // a path's methods, in route order
	for _, rt := range routes() {
		for _, p := range rt.patterns() {
			_, path, _ := strings.Cut(p, " ")
			methods[path] = append(methods[path], rt.method)
		}
	}
	for _, rt := range routes() {
		wrong := http.MethodPost
		if rt.method == http.MethodPost {
			wrong = http.MethodGet
		}
		for _, p := range rt.patterns() {
			_, path, _ := strings.Cut(p, " ")
			allow := strings.Join(methods[path], ", ")
			path = strings.NewReplacer("{user_id}", "1", "{community_id}", "7", "{list_id}", "9",
				"{thread_id}", "101", "{tweet_id}", "101", "{username}", "bob",
				"{monitor_id}", "01hx1r99s0nsqq1ffdhmyyqbfr").Replace(path)
			for _, m := range []string{wrong, http.MethodHead, http.MethodPut, http.MethodOptions} {
				w := e.do(call{method: m, path: path, key: key})
				if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != allow ||
					strings.TrimSpace(w.Body.String()) != `{"status":"error","message":"Method not allowed"}` {
					t.Errorf("%s %s: %d Allow %q %s; want 405 Allow %q", m, path, w.Code, w.Header().Get("Allow"), w.Body, allow)
				}
			}
		}
	}
	w := e.do(call{method: http.MethodDelete, path: "/healthz"})
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Content-Type") != contentTypeJSON {
		t.Errorf("DELETE /healthz: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
}

func TestBalanceEndpoint(t *testing.T) { eachEngine(t, testBalanceEndpoint) }

func testBalanceEndpoint(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	for _, tc := range []struct {
		credit int64
		want   string
	}{{12_345_600, `{"balance_usd":12.3456}`}, {0, `{"balance_usd":0}`}, {1, `{"balance_usd":0.000001}`},
		{9_007_199_254_740_993, `{"balance_usd":9007199254.740993}`}} {
		key, id := e.key(t, tc.credit, 0)
		w := e.do(call{path: "/user/balance", key: key})
		if w.Code != 200 || strings.TrimSpace(w.Body.String()) != tc.want {
			t.Errorf("balance %d: %d %s, want %s", tc.credit, w.Code, w.Body, tc.want)
		}
		if e.balance(t, id) != tc.credit {
			t.Errorf("the balance endpoint charged")
		}
	}
	// The balance endpoint has no prefix: /social/user/balance is the
	// profile of a user named balance.
	key, _ := e.key(t, plenty, 0)
	for _, prefix := range prefixes {
		if w := e.do(call{path: prefix + "/user/balance", key: key}); w.Code != http.StatusNotFound ||
			!strings.Contains(w.Body.String(), msgUserNotFound) {
			t.Errorf("%s/user/balance: %d %s, want 404 User not found", prefix, w.Code, w.Body)
		}
	}
}

func TestHealthAndMetrics(t *testing.T) { eachEngine(t, testHealthAndMetrics) }

func testHealthAndMetrics(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	if w := e.do(call{path: "/healthz"}); w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s", w.Code, w.Body)
	}
	e.do(call{path: "/social/user/1/tweets", key: key})
	e.do(call{path: "/social/user/999/tweets", key: key})
	w := e.do(call{path: "/metrics"})
	if w.Code != 200 {
		t.Fatalf("metrics: %d", w.Code)
	}
	for _, want := range []string{
		`roost_http_requests_total{route="user_tweets",status="200"} 1`,
		`roost_http_requests_total{route="user_tweets",status="404"} 1`,
		`roost_http_requests_total{route="healthz",status="200"} 1`,
		`roost_items_served_total{route="user_tweets"} 20`,
		`roost_charged_micro_usd_total{route="user_tweets"} 4000`,
		`roost_http_request_duration_seconds_count{route="user_tweets"} 2`,
		// The paid page waited for its debit; the 404 paid nothing.
		`roost_debit_seconds_count 1`,
	} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestRateLimit(t *testing.T) { eachEngine(t, testRateLimit) }

func testRateLimit(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, id := e.key(t, plenty, 2)
	for i := range 2 {
		if w := e.do(call{path: "/social/user/6/tweets", key: key}); w.Code != 200 {
			t.Fatalf("request %d: %d %s", i, w.Code, w.Body)
		}
	}
	// 429 comes before 422: a bad request of a limited key is still 429.
	w := e.do(call{path: "/social/user/x/tweets", key: key})
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "30" ||
		strings.TrimSpace(w.Body.String()) != `{"status":"error","message":"Too many requests"}` {
		t.Errorf("third request: %d Retry-After %q %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if e.balance(t, id) != plenty {
		t.Error("rate-limited requests were charged")
	}
}

// TestMoneyOrder: 402 comes after 422 and before the work; a page the
// balance cannot cover is 402 with nothing charged; empty pages are free.
func TestMoneyOrder(t *testing.T) { eachEngine(t, testMoneyOrder) }

func testMoneyOrder(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	broke, _ := e.key(t, 0, 0)
	msg402 := `{"status":"error","message":"Insufficient balance"}`
	if w := e.do(call{path: "/social/user/x/tweets", key: broke}); w.Code != 422 {
		t.Errorf("bad id with no balance: %d, want 422 first", w.Code)
	}
	for _, p := range []string{"/social/user/999/tweets", "/social/user/6/tweets", "/social/user/1/tweets"} {
		if w := e.do(call{path: p, key: broke}); w.Code != 402 || strings.TrimSpace(w.Body.String()) != msg402 {
			t.Errorf("%s with no balance: %d %s, want 402", p, w.Code, w.Body)
		}
	}
	// 1000 micro-USD pays 5 items: a page of 20 is refused whole.
	small, id := e.key(t, 1000, 0)
	if w := e.do(call{path: "/social/user/1/tweets", key: small}); w.Code != 402 || strings.TrimSpace(w.Body.String()) != msg402 {
		t.Errorf("page beyond balance: %d %s", w.Code, w.Body)
	}
	// A 404 with a positive balance is 404, not 402, and free.
	if w := e.do(call{path: "/social/user/999/tweets", key: small}); w.Code != 404 {
		t.Errorf("404 with small balance: %d", w.Code)
	}
	// An empty page is free.
	w := e.do(call{path: "/social/user/6/tweets", key: small})
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"next_cursor":null,"tweets":[]}` {
		t.Errorf("empty page: %d %s", w.Code, w.Body)
	}
	// A page it can pay for: 3 items.
	if w := e.do(call{path: "/social/thread/101", key: small}); w.Code != 200 {
		t.Errorf("thread of 3 with 1000: %d %s", w.Code, w.Body)
	}
	if got := e.balance(t, id); got != 400 {
		t.Errorf("balance %d, want 400", got)
	}
	ledger, _ := e.store.Ledger(t.Context(), id)
	last := ledger[len(ledger)-1]
	if last.Kind != "debit" || last.Endpoint != "thread" || last.Items != 3 || last.Amount != 600 || last.BalanceAfter != 400 || last.RequestID == "" {
		t.Errorf("ledger row %+v", last)
	}
}

func TestPriceConfig(t *testing.T) { eachEngine(t, testPriceConfig) }

func testPriceConfig(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{Price: 7}, fixture())
	key, id := e.key(t, 1000, 0)
	if w := e.do(call{path: "/social/thread/101", key: key}); w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got := e.balance(t, id); got != 1000-3*7 {
		t.Errorf("balance %d, want %d", got, 1000-3*7)
	}
}

func TestMissingContentTypeAccepted(t *testing.T) { eachEngine(t, testMissingContentTypeAccepted) }

func testMissingContentTypeAccepted(t *testing.T, eng engine) {
	e := newEnv(t, eng, Config{}, fixture())
	key, _ := e.key(t, plenty, 0)
	w := e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101]}`,
		header: map[string]string{"Content-Type": ""}})
	if w.Code != 200 {
		t.Errorf("no Content-Type, JSON body: %d %s", w.Code, w.Body)
	}
	w = e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: `{"ids":[101]}`,
		header: map[string]string{"Content-Type": "Application/JSON; charset=utf-8"}})
	if w.Code != 200 {
		t.Errorf("Content-Type with parameters: %d %s", w.Code, w.Body)
	}
}

func TestIDsExact(t *testing.T) { eachEngine(t, testIDsExact) }

func testIDsExact(t *testing.T, eng engine) {
	const big = 1<<62 + 12345 // beyond 2^53
	b := fixture()
	p := b.Posts[0]
	p.ID, p.ConversationID = big, big
	b.Posts = append(b.Posts, p)
	e := newEnv(t, eng, Config{}, b)
	key, _ := e.key(t, plenty, 0)
	for _, body := range []string{`{"ids":[` + strconv.Itoa(big) + `]}`, `{"ids":["` + strconv.Itoa(big) + `"]}`} {
		w := e.do(call{method: "POST", path: "/social/tweets-by-ids", key: key, body: body})
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"id":`+strconv.Itoa(big)+`,"id_str":"`+strconv.Itoa(big)+`"`) {
			t.Errorf("%s: %d %.200s", body, w.Code, w.Body)
		}
	}
}
