package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// deletedCall is one request of TestDeletionsEverywhere: the route it
// exercises and its status once rootPost and dave are deleted (200 before).
type deletedCall struct {
	route string
	call
	after  int
	before int // 0: 200
}

// deletionCalls reach rootPost and dave (and what hangs off them) through
// every route: by their ids (404 once deleted) and through everything
// that listed them (200, without them).
func deletionCalls() []deletedCall {
	q := url.QueryEscape
	all := q("include:nativeretweets") // every post
	c := func(route, path string, after int) deletedCall {
		return deletedCall{route: route, call: call{path: path}, after: after}
	}
	post := func(route, path, body string, after int) deletedCall {
		return deletedCall{route: route, call: call{method: http.MethodPost, path: path, body: body}, after: after}
	}
	hook := `"webhook_url":"http://127.0.0.1:9/hook"`
	return []deletedCall{
		c("user_tweets", "/social/user/1/tweets", 200), c("user_tweets", "/social/user/4/tweets", 404),
		c("user_tweets_and_replies", "/social/user/1/tweets-and-replies", 200),
		c("user_tweets_and_replies", "/twitter/user/4/tweets-and-replies", 404),
		c("community_tweets", "/social/community/7/tweets", 200), c("community_tweets", "/social/community/7/tweets?type=Top", 200),
		post("tweets_by_ids", "/social/tweets-by-ids", `{"ids":["101","102","105"]}`, 200),
		post("tweets_by_ids", "/social/tweets-by-ids", `{"ids":["101","301"]}`, 404),
		post("users_by_usernames", "/social/users-by-usernames", `{"usernames":["dave","alice"]}`, 200),
		post("users_by_usernames", "/social/users-by-usernames", `{"usernames":["dave"]}`, 404),
		c("user_lists", "/social/user/1/lists", 200), c("user_lists", "/social/user/4/lists", 404),
		c("list_tweets", "/social/list/9/tweets", 200),
		c("thread", "/social/thread/101", 404), c("thread", "/social/thread/102", 200),
		c("mentions", "/social/user/bob/mentions", 200), c("mentions", "/social/user/dave/mentions", 404),
		c("retweeted_by", "/social/tweets/101/retweeted_by", 404), c("retweeted_by", "/social/tweets/104/retweeted_by", 200),
		c("affiliates", "/social/user/3/affiliates", 200), c("affiliates", "/social/user/4/affiliates", 404),
		c("verified_followers", "/social/user/1/verified-followers", 200),
		c("verified_followers", "/social/user/4/verified-followers", 404),
		c("following", "/social/user/1/following", 200), c("following", "/social/user/4/following", 404),
		c("community_members", "/social/community/7/members", 200),
		c("list_members", "/social/list/9/members", 200),
		c("highlights", "/social/user/1/highlights", 200), c("highlights", "/social/user/4/highlights", 404),
		c("search", "/social/search?query=hello", 200), c("search", "/social/search?type=Top&query="+q("#go"), 200),
		c("search", "/social/search?query="+all, 200), c("search", "/social/search?type=Top&query="+all, 200),
		c("search", "/social/search?query="+q("from:dave"), 200), c("search", "/social/search?query="+q("community post"), 200),
		c("balance", "/user/balance", 200),
		c("user", "/social/user/1", 200), c("user", "/social/user/4", 404), c("user", "/social/user/dave", 404),
		post("users_by_ids", "/social/users-by-ids", `{"ids":["4","1"]}`, 200),
		post("users_by_ids", "/social/users-by-ids", `{"ids":["4"]}`, 404),
		c("extended_bio", "/social/user/alice/extended-bio", 200), c("extended_bio", "/social/user/dave/extended-bio", 404),
		c("followers", "/social/user/1/followers", 200), c("followers", "/social/user/4/followers", 404),
		c("tweet", "/social/tweets/101", 404), c("tweet", "/social/tweets/105", 404), c("tweet", "/social/tweets/104", 200),
		c("tweet", "/social/tweets/900", 200),
		c("tweet_comments", "/social/tweets/101/comments", 404), c("tweet_comments", "/social/tweets/102/comments", 200),
		c("tweet_comments", "/social/tweets/301/comments", 404),
		c("tweet_quotes", "/social/tweets/101/quotes", 404), c("tweet_quotes", "/social/tweets/104/quotes", 200),
		c("list", "/social/list/9", 200),
		c("space", "/social/space/"+space, 200),
		c("commented_by", "/social/tweets/101/commented_by/2", 404), c("commented_by", "/social/tweets/102/commented_by/1", 200),
		c("commented_by", "/social/tweets/301/commented_by/5", 404),
		c("retweeted_by_user", "/social/tweets/101/retweeted_by/5", 404),
		c("retweeted_by_user", "/social/tweets/104/retweeted_by/4", 404),
		c("following_user", "/social/user/1/following/4", 404), c("following_user", "/social/user/4/following/1", 404),
		c("following_user", "/social/user/1/following/3", 200),
		c("statuses_show", "/social/statuses/show?id=101", 404), c("statuses_show", "/social/statuses/show?id=102", 200),
		c("followers_list", "/social/followers/list?user_id=1", 200), c("followers_list", "/social/followers/list?user_id=4", 404),
		c("friends_list", "/social/friends/list?user_id=1", 200), c("friends_list", "/social/friends/list?user_id=4", 404),
		c("search_users", "/social/search-users?query=dave", 200), c("search_users", "/social/search-users?query=a", 200),
		c("user_likes", "/social/user/5/likes", 200), c("user_likes", "/social/user/4/likes", 404),
		c("liking_users", "/social/tweets/101/liking_users", 404), c("liking_users", "/social/tweets/200/liking_users", 200),
		c("search_counts", "/social/search/counts?granularity=day&query="+all, 200),
		c("search_counts", "/social/search/counts?granularity=hour&query=hello", 200),
		c("search_top", "/social/search/top?field=authors&query="+all, 200),
		c("search_top", "/social/search/top?field=reply_to&query="+q("from:erin"), 200),
		c("search_top", "/social/search/top?field=mentions&query="+all, 200),
		c("search_top", "/social/search/top?field=hashtags&query="+all, 200),
		c("search_export", "/social/search/export?format=jsonl&query="+all, 200),
		c("search_export", "/social/search/export?format=ids&query="+all, 200),
		c("search_network", "/social/search/network?format=csv&part=nodes&query="+all, 200),
		c("search_network", "/social/search/network?format=csv&part=edges&query="+all, 200),
		post("monitor_user_tweets", "/monitors/user-tweets", `{"user_id":"4",`+hook+`}`, 422),
		post("monitor_user_following", "/monitors/user-following", `{"user_screen_name":"dave",`+hook+`}`, 422),
		post("monitor_user_profile", "/monitors/user-profile", `{"user_id":"4",`+hook+`}`, 422),
		post("monitor_search_query", "/monitors/search-query", `{"query":"from:dave","refresh_frequency":60,`+hook+`}`, 200),
		post("monitor_search_pump_fun", "/monitors/search-pump-fun", `{`+hook+`}`, 200),
		c("monitors", "/monitors", 200),
		{route: "monitor", call: call{path: "/monitors/01hx1r99s0nsqq1ffdhmyyqbfr"}, after: 404, before: 404},
		{route: "monitor_update", call: call{method: http.MethodPatch, path: "/monitors/01hx1r99s0nsqq1ffdhmyyqbfr",
			body: `{"webhook_url":null}`}, after: 404, before: 404},
		{route: "monitor_delete", call: call{method: http.MethodDelete, path: "/monitors/01hx1r99s0nsqq1ffdhmyyqbfr"},
			after: 404, before: 404},
		post("user_webhook", "/user/webhook", `{"url":null}`, 200),
	}
}

// daveZebra is a post of dave's whose id is the snowflake of its time:
// the research readers count and rank its words from the full-text index
// alone (sqlite/research_fast.go).
var daveZebra = social.SnowflakeFloor(at(600).UnixMilli()) + 7

// deletionWorld is the fixture, erin's reply to a community post of
// dave's, mentioning him (a post that stays and names a deleted account),
// and daveZebra.
func deletionWorld() *social.Batch {
	b := fixture()
	b.Posts = append(b.Posts, social.Post{ID: 900, AuthorID: erin, CreatedAt: at(500), Text: "@dave nice one", Lang: "en",
		InReplyToID: 301, InReplyToUserID: dave, InReplyToScreenName: "dave", ConversationID: 301,
		Entities: social.Entities{Mentions: []social.Mention{{UserID: dave, ScreenName: "dave", Start: 0, End: 5}}}},
		social.Post{ID: daveZebra, AuthorID: dave, CreatedAt: at(600), Text: "zebra crossing #zebra", Lang: "en",
			ConversationID: daveZebra, Entities: social.Entities{Hashtags: []social.Tag{{Text: "zebra", Start: 15, End: 21}}}})
	return b
}

// TestDeletionsEverywhere: once a post (rootPost: replied to, quoted,
// reposted, liked, highlighted, pinned) and a user (dave: posts in a
// community, follows both ways, a list member, an affiliate, a moderator,
// a speaker, liker and reposter) are deleted, no answer of any route —
// every public route and research endpoint, on both engines — holds them
// (as a post, a profile, a top value or a network node); the ones that
// address them answer 404 and cost nothing, and every answer costs what
// it returns. Before the deletion the same requests answer 200 and many
// hold them.
func TestDeletionsEverywhere(t *testing.T) {
	eachEngine(t, func(t *testing.T, eng engine) {
		st := eng.open(t)
		ctx := context.Background()
		if _, err := st.Write(ctx, deletionWorld()); err != nil {
			t.Fatal(err)
		}
		svc := newMonitors(st, monitor.Options{})
		e := &env{store: st, h: New(Config{Now: func() time.Time { return testNow }, RateLimit: -1, Monitors: svc}, st, nil, nil)}
		key, id := e.key(t, plenty, 0)
		calls := deletionCalls()
		covered := map[string]bool{}
		for _, c := range calls {
			covered[c.route] = true
		}
		for _, rt := range routes() {
			if !covered[rt.name] {
				t.Errorf("route %s is not exercised", rt.name)
			}
		}
		saw := 0
		for _, c := range calls {
			c.key = key
			w := e.do(c.call)
			if w.Code != cmp.Or(c.before, http.StatusOK) {
				t.Errorf("before: %s %s: %d %s", c.method, c.path, w.Code, w.Body)
			}
			if w.Code == http.StatusOK && len(deletedIn(t, c.path, w.Body.Bytes())) > 0 {
				saw++
			}
		}
		if saw < 30 {
			t.Fatalf("only %d answers held the post or the user before their deletion", saw)
		}
		if _, err := st.Write(ctx, &social.Batch{DeletePosts: []int64{rootPost}, DeleteUsers: []int64{dave}}); err != nil {
			t.Fatal(err)
		}
		posts, err := st.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			c.key = key
			before := e.balance(t, id)
			w := e.do(c.call)
			spent := before - e.balance(t, id)
			what := c.method + " " + c.path
			if w.Code != c.after {
				t.Errorf("%s: %d %s, want %d", what, w.Code, w.Body, c.after)
			}
			if found := deletedIn(t, c.path, w.Body.Bytes()); w.Code == http.StatusOK && len(found) > 0 {
				t.Errorf("%s holds what was deleted: %v", what, found)
			}
			items, _ := strconv.Atoi(w.Header().Get(headerItems))
			switch {
			case w.Code != http.StatusOK && spent != 0:
				t.Errorf("%s: %d cost %d", what, w.Code, spent)
			case strings.Contains(c.path, "/search/export"):
				if lines := int64(bytes.Count(w.Body.Bytes(), []byte("\n"))); lines != posts["posts"] || spent != lines*billing.DefaultPrice {
					t.Errorf("%s: %d lines of %d posts, cost %d", what, lines, posts["posts"], spent)
				}
			case strings.Contains(c.path, "/search/network"):
			case spent != int64(items)*billing.DefaultPrice:
				t.Errorf("%s: cost %d for %d items", what, spent, items)
			case w.Code == http.StatusOK && strings.HasPrefix(c.path, "/social") && items != returned(t, w.Body.Bytes()):
				t.Errorf("%s: charged %d items, returned %d", what, items, returned(t, w.Body.Bytes()))
			}
		}
		// What the deletions moved, as served.
		if body := e.do(call{path: "/social/list/9", key: key}).Body.String(); !strings.Contains(body, `"pinned_tweet_ids_str":[]`) {
			t.Errorf("alice's deleted pinned post is still pinned: %s", body)
		}
		var counts struct {
			Meta struct {
				TotalTweetCount int64 `json:"total_tweet_count"`
			} `json:"meta"`
		}
		for query, want := range map[string]int64{"include:nativeretweets": posts["posts"], "hello": 0, "#go": 0, "zebra": 0} {
			w := e.do(call{path: "/social/search/counts?granularity=day&query=" + url.QueryEscape(query), key: key})
			if err := json.Unmarshal(w.Body.Bytes(), &counts); err != nil || counts.Meta.TotalTweetCount != want {
				t.Errorf("counts of %s: %s (%v), want %d", query, w.Body, err, want)
			}
		}
		if w := e.do(call{path: "/social/search/top?field=hashtags&query=" + url.QueryEscape("include:nativeretweets"), key: key}); strings.Contains(w.Body.String(), "#go") ||
			strings.Contains(w.Body.String(), "#zebra") {
			t.Errorf("the deleted post's hashtag is a top value: %s", w.Body)
		}
	})
}

// deletedIn lists what of rootPost, dave's posts and dave an answer
// holds: a post object (id_str with a text) of a deleted post, a profile
// (id_str with screen_name and followers_count) or a top value (id_str
// with count) of dave, a network node or edge end of dave, a line of an
// ids export. A reply's in_reply_to_* and a mention naming them are no
// such thing: they stay, as on the network.
func deletedIn(t *testing.T, path string, body []byte) []string {
	t.Helper()
	gone := map[string]bool{strconv.Itoa(rootPost): true, "105": true, strconv.FormatInt(daveZebra, 10): true}
	for i := 1; i < communityPosts; i += 2 { // dave's community posts
		gone[strconv.Itoa(300+i)] = true
	}
	const daveID = "4"
	var found []string
	switch {
	case strings.Contains(path, "format=ids"):
		for _, line := range strings.Fields(string(body)) {
			if gone[line] {
				found = append(found, "post "+line)
			}
		}
		return found
	case strings.Contains(path, "format=csv"):
		rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, r := range rows[1:] {
			if r[0] == daveID || r[1] == daveID || (strings.Contains(path, "part=nodes") && r[4] == daveID) {
				found = append(found, "node "+daveID)
			}
		}
		return found
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			idStr, _ := x["id_str"].(string)
			_, text := x["full_text"]
			_, text2 := x["text"]
			_, name := x["screen_name"]
			_, followers := x["followers_count"]
			_, count := x["count"]
			switch {
			case gone[idStr] && (text || text2):
				found = append(found, "post "+idStr)
			case idStr == daveID && (name && followers || count):
				found = append(found, "user "+idStr)
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for dec.More() {
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		walk(v)
	}
	return found
}

// returned is how many billable things a JSON answer holds: the posts,
// users or lists of a page, the elements of a bare array, the periods
// with a match of counts, the values of a top list, else one object.
func returned(t *testing.T, body []byte) int {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	switch x := v.(type) {
	case []any:
		return len(x)
	case map[string]any:
		_, page := x["field"] // a top list, its values omitted when none
		n := 0
		for _, k := range []string{"tweets", "users", "lists", "values"} {
			if a, ok := x[k].([]any); ok {
				n, page = n+len(a), true
			}
		}
		if ps, ok := x["periods"].([]any); ok {
			for _, p := range ps {
				n += len(p.(map[string]any)["values"].([]any))
			}
			page = true
		}
		if d, ok := x["data"].([]any); ok {
			for _, b := range d {
				if c, _ := b.(map[string]any)["tweet_count"].(float64); c > 0 {
					n++
				}
			}
			page = true
		}
		if page {
			return n
		}
		if _, ok := x["status"]; ok && x["status"] != "success" {
			return 0
		}
		return 1
	}
	panic(fmt.Sprintf("answer %s", body))
}
