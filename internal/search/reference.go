package search

import "strings"

// Operator is one entry of the query language's reference: how it is
// written, what it matches (text in which `backquotes` mark code), and a
// query that uses it. docs/search.md and
// the API's /docs page are written from Reference, and its tests check it
// against the parser: every name:value operator and filter value is in it,
// and every example parses.
type Operator struct {
	Kind    string // the group it is listed under
	Syntax  string // as written, e.g. from:user
	About   string // what it matches
	Example string // a query using it
}

// Reference is every operator of the language, grouped by kind, in the
// order they are documented.
func Reference() []Operator {
	const (
		text   = "text"
		users  = "users"
		times  = "time and ids"
		kind   = "kind of post"
		conv   = "conversation"
		engage = "engagement"
	)
	var filters []string
	for _, n := range filterNames {
		filters = append(filters, "`"+n+"`")
	}
	return []Operator{
		{text, "words", "whole tokens, case- and accent-insensitive; CJK text by character; space is AND", "golang generics"},
		{text, `"phrase"`, "the words in this order; `*` stands for exactly one word", `"state of * art"`},
		{text, "+word", "the word (as a plain word: roost does not stem)", "+golang"},
		{text, "OR", "either side; upper case, and it binds tighter than the space: `a b OR c` is `a (b OR c)`", "golang OR rust"},
		{text, "-", "not: before a word, phrase, operator or group", "golang -rust"},
		{text, "( )", "a group", "(golang OR rust) -filter:replies"},
		{text, "#hashtag", "posts with the hashtag, any case", "#climate"},
		{text, "$cashtag", "posts with the cashtag, any case", "$TSLA"},
		{text, "url:text", "a substring of an expanded URL, any case; `_` stands for `-`", "url:github.com"},
		{text, "lang:code", "the post's language (`und`: undetermined)", "lang:en"},
		{users, "from:user", "posts by the user (never a shadow-banned author's)", "from:golang"},
		{users, "to:user", "replies to the user", "to:rob_pike"},
		{users, "@user", "posts that mention the user", "@gopher"},
		{users, "list:id", "posts of the list's members", "list:1470817464647417856"},
		{users, "filter:verified", "authors with legacy or blue verification", "golang filter:verified"},
		{users, "filter:blue_verified", "authors with blue verification", "golang filter:blue_verified"},
		{times, "since:YYYY-MM-DD[_HH:MM:SS_UTC]", "posted at or after (UTC)", "golang since:2025-01-01"},
		{times, "until:YYYY-MM-DD[_HH:MM:SS_UTC]", "posted before (UTC)", "golang until:2025-02-01_12:00:00_UTC"},
		{times, "since_time:seconds", "posted at or after the Unix time", "golang since_time:1735689600"},
		{times, "until_time:seconds", "posted before the Unix time", "golang until_time:1738368000"},
		{times, "since_id:id", "ids above (exclusive)", "golang since_id:1945115458370387970"},
		{times, "max_id:id", "ids up to (inclusive): read on past the last cursor", "golang max_id:1945115458370387970"},
		{times, "within_time:N(d|h|m|s)", "posted within the last N days, hours, minutes or seconds", "golang within_time:3h"},
		{kind, "filter:kind", "posts of a kind: " + strings.Join(filters, ", "), "golang filter:links"},
		{kind, "-filter:kind, exclude:kind", "posts not of that kind", "golang -filter:replies exclude:nativeretweets"},
		{kind, "include:nativeretweets", "native reposts too (left out by default); alone, every post", "from:golang include:nativeretweets"},
		{conv, "conversation_id:id", "posts of the conversation that post began", "conversation_id:1928965200070127618"},
		{conv, "quoted_tweet_id:id", "posts quoting the post", "quoted_tweet_id:1928965200070127618"},
		{conv, "quoted_user_id:id", "posts quoting a post of the user", "quoted_user_id:783214"},
		{conv, "in_reply_to_tweet_id:id", "direct replies to the post", "in_reply_to_tweet_id:1928965200070127618"},
		{engage, "min_faves:N", "at least N likes", "golang min_faves:100"},
		{engage, "min_retweets:N", "at least N reposts", "golang min_retweets:10"},
		{engage, "min_replies:N", "at least N replies", "golang min_replies:5"},
		{engage, "-min_faves:N, -min_retweets:N, -min_replies:N", "at most N", "golang -min_faves:10"},
	}
}
