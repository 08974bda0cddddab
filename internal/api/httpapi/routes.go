package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/roostapi/roost/internal/social"
)

// Page sizes (docs/api.md, "Pages and cursors").
const (
	pageSize       = 20
	listsPageSize  = 100
	threadPageSize = 30
)

// prefixes are the first path segments every data endpoint answers under:
// the neutral one and the hosted service's (docs/api.md, "Paths and prefixes").
var prefixes = [...]string{"/social", "/twitter"}

// Path parameters.
const (
	paramUserID      = "user_id"
	paramCommunityID = "community_id"
	paramListID      = "list_id"
	paramThreadID    = "thread_id"
	paramTweetID     = "tweet_id"
	paramUsername    = "username"
	// paramUser is a user id or a username: digits are an id first.
	paramUser         = "user"
	paramSpaceID      = "space_id"
	paramID           = "id" // /statuses/show?id=
	paramSourceUserID = "source_user_id"
	paramTargetUserID = "target_user_id"
)

// route is one endpoint: where it answers, what it takes, and what it does.
type route struct {
	name     string // in the ledger, logs and metrics
	method   string
	path     string // below the prefix
	bare     bool   // registered as is, without prefixes
	root     bool   // registered under the prefixes and as is (the monitoring paths)
	param    string // the path parameter, if any
	param2   string // a second path parameter (an id), if any
	inQuery  bool   // param is a query-string parameter (the older paths)
	text     bool   // requires `query` as plain text, not a search
	paged    bool   // takes `cursor`
	ordered  bool   // takes `type` (Latest | Top)
	query    bool   // requires `query`
	body     bodyKind
	limit    int    // page size
	pinned   bool   // pages asked with a cursor lead with a pinned post: limit+1 items
	free     bool   // neither needs nor takes money
	notFound string // the 404 message when the addressed entity is missing
	// params reads the route's own query parameters, after query.
	params func(a *args, qs url.Values) error
	// serve does the work for validated args and returns the response
	// body and the number of billable items in it.
	serve func(ctx context.Context, s *server, a *args) (body any, items int, err error)
	// stream, instead of serve, writes a body that is not JSON as it is
	// made, charging through st (research_export.go).
	stream func(ctx context.Context, s *server, a *args, st *stream) error
	// local routes answer from the database even in gateway mode (the
	// research endpoints: the hosted service has none of them).
	local bool
}

// routes is every endpoint: the seventeen of the hosted API's specification
// (numbered as in docs/api.md, "The seventeen endpoints"), the balance
// endpoint, and the hosted service's other reads (its SDK's paths, then the
// older paths of its earlier documentation).
func routes() []*route {
	table := []*route{
		{name: "user_tweets", method: http.MethodGet, path: "/user/{user_id}/tweets", param: paramUserID, paged: true, limit: pageSize, notFound: msgNotFound, serve: serveUserPosts(false)},                                                          // 4.1
		{name: "user_tweets_and_replies", method: http.MethodGet, path: "/user/{user_id}/tweets-and-replies", param: paramUserID, paged: true, limit: pageSize, notFound: msgNotFound, serve: serveUserPosts(true)},                                   // 4.2
		{name: "community_tweets", method: http.MethodGet, path: "/community/{community_id}/tweets", param: paramCommunityID, paged: true, ordered: true, limit: pageSize, pinned: true, notFound: msgNotFound, serve: serveCommunityPosts},           // 4.3
		{name: "tweets_by_ids", method: http.MethodPost, path: "/tweets-by-ids", body: bodyIDs, notFound: msgTweetNotFound, serve: serveTweetsByIDs},                                                                                                  // 4.4
		{name: "users_by_usernames", method: http.MethodPost, path: "/users-by-usernames", body: bodyUsernames, notFound: msgUserNotFound, serve: serveUsersByUsernames},                                                                              // 4.5
		{name: "user_lists", method: http.MethodGet, path: "/user/{user_id}/lists", param: paramUserID, paged: true, limit: listsPageSize, notFound: msgUserNotFound, serve: serveUserLists},                                                          // 4.6
		{name: "list_tweets", method: http.MethodGet, path: "/list/{list_id}/tweets", param: paramListID, paged: true, limit: pageSize, notFound: msgNotFound, serve: serveListPosts},                                                                 // 4.7
		{name: "thread", method: http.MethodGet, path: "/thread/{thread_id}", param: paramThreadID, paged: true, limit: threadPageSize, notFound: msgTweetNotFound, serve: serveThread},                                                               // 4.8
		{name: "mentions", method: http.MethodGet, path: "/user/{username}/mentions", param: paramUsername, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveMentions},                                                            // 4.9
		{name: "retweeted_by", method: http.MethodGet, path: "/tweets/{tweet_id}/retweeted_by", param: paramTweetID, paged: true, limit: pageSize, notFound: msgTweetNotFound, serve: serveUsers(postExists, social.Reader.Reposters)},                // 4.10
		{name: "affiliates", method: http.MethodGet, path: "/user/{user_id}/affiliates", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.Affiliates)},                        // 4.11
		{name: "verified_followers", method: http.MethodGet, path: "/user/{user_id}/verified-followers", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.VerifiedFollowers)}, // 4.12
		{name: "following", method: http.MethodGet, path: "/user/{user_id}/following", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.Following)},                           // 4.13
		{name: "community_members", method: http.MethodGet, path: "/community/{community_id}/members", param: paramCommunityID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveCommunityMembers},                                // 4.14
		{name: "list_members", method: http.MethodGet, path: "/list/{list_id}/members", param: paramListID, paged: true, limit: pageSize, notFound: msgNotFound, serve: serveUsers(listExists, social.Reader.ListMembers)},                            // 4.15
		{name: "highlights", method: http.MethodGet, path: "/user/{user_id}/highlights", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveHighlights},                                                         // 4.16
		{name: "search", method: http.MethodGet, path: "/search", paged: true, ordered: true, query: true, limit: pageSize, serve: serveSearch},                                                                                                       // 4.17
		{name: "balance", method: http.MethodGet, path: "/user/balance", bare: true, free: true, serve: serveBalance},

		{name: "user", method: http.MethodGet, path: "/user/{user}", param: paramUser, notFound: msgUserNotFound, serve: serveUser},
		{name: "users_by_ids", method: http.MethodPost, path: "/users-by-ids", body: bodyIDs, notFound: msgUserNotFound, serve: serveUsersByIDs},
		{name: "extended_bio", method: http.MethodGet, path: "/user/{username}/extended-bio", param: paramUsername, notFound: msgUserNotFound, serve: serveExtendedBio},
		{name: "followers", method: http.MethodGet, path: "/user/{user_id}/followers", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.Followers)},
		{name: "tweet", method: http.MethodGet, path: "/tweets/{tweet_id}", param: paramTweetID, notFound: msgTweetNotFound, serve: serveTweet},
		{name: "tweet_comments", method: http.MethodGet, path: "/tweets/{tweet_id}/comments", param: paramTweetID, paged: true, limit: pageSize, notFound: msgTweetNotFound, serve: servePostPosts(social.Reader.Replies)},
		{name: "tweet_quotes", method: http.MethodGet, path: "/tweets/{tweet_id}/quotes", param: paramTweetID, paged: true, limit: pageSize, notFound: msgTweetNotFound, serve: servePostPosts(social.Reader.Quotes)},
		{name: "list", method: http.MethodGet, path: "/list/{list_id}", param: paramListID, notFound: msgNotFound, serve: serveList},
		{name: "space", method: http.MethodGet, path: "/space/{space_id}", param: paramSpaceID, notFound: msgSpaceNotFound, serve: serveSpace},
		{name: "commented_by", method: http.MethodGet, path: "/tweets/{tweet_id}/commented_by/{user_id}", param: paramTweetID, param2: paramUserID, serve: serveCommentedBy},
		{name: "retweeted_by_user", method: http.MethodGet, path: "/tweets/{tweet_id}/retweeted_by/{user_id}", param: paramTweetID, param2: paramUserID, serve: serveRetweetedBy},
		{name: "following_user", method: http.MethodGet, path: "/user/{source_user_id}/following/{target_user_id}", param: paramSourceUserID, param2: paramTargetUserID, serve: serveFollowingCheck},

		{name: "statuses_show", method: http.MethodGet, path: "/statuses/show", param: paramID, inQuery: true, notFound: msgTweetNotFound, serve: serveTweet},
		{name: "followers_list", method: http.MethodGet, path: "/followers/list", param: paramUserID, inQuery: true, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.Followers)},
		{name: "friends_list", method: http.MethodGet, path: "/friends/list", param: paramUserID, inQuery: true, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUsers(userExists, social.Reader.Following)},
		{name: "search_users", method: http.MethodGet, path: "/search-users", paged: true, query: true, text: true, limit: pageSize, serve: serveSearchUsers},
		{name: "user_likes", method: http.MethodGet, path: "/user/{user_id}/likes", param: paramUserID, paged: true, limit: pageSize, notFound: msgUserNotFound, serve: serveUserLikes},
		{name: "liking_users", method: http.MethodGet, path: "/tweets/{tweet_id}/liking_users", param: paramTweetID, paged: true, limit: pageSize, notFound: msgTweetNotFound, serve: serveUsers(postExists, social.Reader.LikingUsers)},

		{name: "search_counts", local: true, method: http.MethodGet, path: "/search/counts", query: true, params: parseCounts, serve: serveCounts},
		{name: "search_top", local: true, method: http.MethodGet, path: "/search/top", query: true, params: parseTop, serve: serveTop},
		{name: "search_export", local: true, method: http.MethodGet, path: "/search/export", query: true, params: parseExport, stream: streamExport},
		{name: "search_network", local: true, method: http.MethodGet, path: "/search/network", query: true, params: parseNetwork, stream: streamNetwork},
	}
	return append(table, monitorRoutes()...)
}

// maxPage is the most items one page of the route can hold (and cost).
func (rt *route) maxPage() int {
	if rt.pinned {
		return rt.limit + 1
	}
	return rt.limit
}

// patterns are the ServeMux patterns a route answers.
func (rt *route) patterns() []string {
	if rt.bare {
		return []string{rt.method + " " + rt.path}
	}
	out := make([]string, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, rt.method+" "+p+rt.path)
	}
	if rt.root {
		out = append(out, rt.method+" "+rt.path)
	}
	return out
}
