package httpapi

import (
	"net/http"
	"strings"

	"github.com/roostapi/roost/internal/api/openapi"
)

// What the document tells the /docs page beside OpenAPI's own fields: the
// section of each endpoint, the numbers of the hosted API's seventeen,
// and a curl line per operation.

// coreNumbers are the seventeen endpoints of the hosted API's
// specification, by route name, numbered as its sections are (docs/api.md,
// "The seventeen endpoints"; the route table's comments).
var coreNumbers = map[string]string{
	"user_tweets": "4.1", "user_tweets_and_replies": "4.2", "community_tweets": "4.3", "tweets_by_ids": "4.4",
	"users_by_usernames": "4.5", "user_lists": "4.6", "list_tweets": "4.7", "thread": "4.8", "mentions": "4.9",
	"retweeted_by": "4.10", "affiliates": "4.11", "verified_followers": "4.12", "following": "4.13",
	"community_members": "4.14", "list_members": "4.15", "highlights": "4.16", "search": "4.17",
}

// Sections of the /docs page, in its order.
const (
	sectionCore     = "core"
	sectionAccount  = "account"
	sectionReads    = "reads"
	sectionResearch = "research"
	sectionMonitors = "monitors"
	sectionService  = "service"
)

// section is the part of the /docs page that lists rt.
func section(rt *route, monitorNames map[string]bool) string {
	switch {
	case coreNumbers[rt.name] != "":
		return sectionCore
	case rt.name == "balance":
		return sectionAccount
	case rt.local:
		return sectionResearch
	case monitorNames[rt.name]:
		return sectionMonitors
	}
	return sectionReads
}

// sampleValues are the values the curl lines put in the path and query
// parameters: well-formed, and taken from the demo network roost serve
// makes on a first start (gen's defaults), which holds most of them.
var sampleValues = map[string]string{
	paramUserID:       "658972934554972160",
	paramCommunityID:  "1854571727556706304",
	paramListID:       "1470817464647417856",
	paramThreadID:     "1928965200070127618",
	paramTweetID:      "1945115458370387970",
	paramUsername:     "CarlosBianchi",
	paramUser:         "CarlosBianchi",
	paramSpaceID:      "1GSICjnBS2BfL",
	paramID:           "1945115458370387970",
	paramSourceUserID: "658972934554972160",
	paramTargetUserID: "558520833605746688",
	paramMonitorID:    "01hz3k9x2m4q8r7t6v5w0y1a2b",
}

// sampleQuery is the search a route's curl line sends.
func sampleQuery(rt *route) string {
	switch {
	case rt.text:
		return "gopher"
	case rt.local:
		return "#golang"
	}
	return "golang -filter:replies"
}

// sampleParams are a route's query parameters beyond the path's, query
// and type, and the file a streamed answer is written to.
var sampleParams = map[string]struct{ params, out string }{
	"search_counts":  {params: "granularity=day"},
	"search_top":     {params: "field=hashtags&limit=10"},
	"search_export":  {params: "format=csv", out: "posts.csv"},
	"search_network": {params: "edges=reply,mention&format=gexf", out: "network.gexf"},
}

// sampleBodies are the JSON bodies of the routes that take one.
var sampleBodies = map[string]string{
	"tweets_by_ids":           `{"ids": ["1945115458370387970"]}`,
	"users_by_usernames":      `{"usernames": ["CarlosBianchi"]}`,
	"users_by_ids":            `{"ids": ["658972934554972160"]}`,
	"monitor_user_tweets":     `{"user_screen_name": "CarlosBianchi", "webhook_url": "http://127.0.0.1:9000/hook"}`,
	"monitor_user_following":  `{"user_screen_name": "CarlosBianchi", "webhook_url": "http://127.0.0.1:9000/hook"}`,
	"monitor_user_profile":    `{"user_screen_name": "CarlosBianchi", "webhook_url": "http://127.0.0.1:9000/hook"}`,
	"monitor_search_query":    `{"query": "#golang", "refresh_frequency": 60, "webhook_url": "http://127.0.0.1:9000/hook"}`,
	"monitor_search_pump_fun": `{"webhook_url": "http://127.0.0.1:9000/hook"}`,
	"monitor_update":          `{"webhook_url": "http://127.0.0.1:9000/other"}`,
	"user_webhook":            `{"url": "http://127.0.0.1:9000/hook"}`,
}

// curlSample is a curl line that calls rt at path (one of its patterns'
// paths), with $ROOST the server's address and $KEY an API key.
func curlSample(rt *route, path string) openapi.CodeSample {
	var query []string // -d and --data-urlencode arguments
	for _, p := range []string{rt.param, rt.param2} {
		if p == "" {
			continue
		}
		if rt.inQuery && p == rt.param {
			query = append(query, "-d "+p+"="+sampleValues[p])
		} else {
			path = strings.Replace(path, "{"+p+"}", sampleValues[p], 1)
		}
	}
	if rt.query {
		query = append(query, "--data-urlencode '"+"query="+sampleQuery(rt)+"'")
	}
	if rt.ordered {
		order := "Latest"
		if rt.name == "community_tweets" {
			order = "Top"
		}
		query = append(query, "-d type="+order)
	}
	extra := sampleParams[rt.name]
	for p := range strings.SplitSeq(extra.params, "&") {
		if p != "" {
			query = append(query, "-d "+p)
		}
	}
	line := "curl"
	switch {
	case len(query) > 0:
		line += " -G"
	case rt.method != http.MethodGet && rt.method != http.MethodPost:
		line += " -X " + rt.method
	}
	line += ` -H "Authorization: Bearer $KEY"`
	if body, ok := sampleBodies[rt.name]; ok {
		line += ` -H 'Content-Type: application/json' -d '` + body + `'`
	}
	line += ` "$ROOST` + path + `"`
	if len(query) > 0 {
		line += " " + strings.Join(query, " ")
	}
	if extra.out != "" {
		line += " -o " + extra.out
	}
	return openapi.CodeSample{Lang: "shell", Label: "curl", Source: line}
}

// probeSample is the curl line of a probe: no key.
func probeSample(id string) openapi.CodeSample {
	path := "/" + id
	if id == "openapi" {
		path = "/openapi.json"
	}
	return openapi.CodeSample{Lang: "shell", Label: "curl", Source: `curl "$ROOST` + path + `"`}
}
