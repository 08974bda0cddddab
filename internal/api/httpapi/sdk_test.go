package httpapi

import (
	"fmt"
	"net/http"
	"testing"
)

// TestSDKPaths calls every path of the hosted service's SDK (api.md,
// "# Twitter", and /user/balance) and every older path its earlier
// documentation names, as a client of the hosted service would, on the
// generated network: each answers 200 where the entity exists.
func TestSDKPaths(t *testing.T) { eachEngine(t, testSDKPaths) }

func testSDKPaths(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	x := sum.Examples
	if x.SpaceID == "" || x.ExtendedBioUsername == "" {
		t.Fatalf("the generated network has no example space or extended bio: %+v", x)
	}
	key, _ := e.key(t, plenty, 0)
	post, user, list, comm := fmt.Sprint(x.PostID), fmt.Sprint(x.UserID), fmt.Sprint(x.ListID), fmt.Sprint(x.CommunityID)
	calls := []struct{ method, path, body string }{
		// SocialActions
		{"GET", "/twitter/tweets/" + post + "/commented_by/" + user, ""},
		{"GET", "/twitter/user/" + user + "/following/" + fmt.Sprint(x.ListsUserID), ""},
		{"GET", "/twitter/tweets/" + post + "/retweeted_by/" + user, ""},
		// SearchResults
		{"GET", "/twitter/search?query=the&type=Latest", ""},
		// Spaces
		{"GET", "/twitter/space/" + x.SpaceID, ""},
		// Users
		{"POST", "/twitter/users-by-ids", `{"ids":["` + user + `"]}`},
		{"POST", "/twitter/users-by-usernames", `{"usernames":["` + x.Username + `"]}`},
		{"GET", "/twitter/user/" + fmt.Sprint(x.OrganizationUserID) + "/affiliates", ""},
		{"GET", "/twitter/user/" + user, ""},
		{"GET", "/twitter/user/" + x.Username, ""},
		{"GET", "/twitter/user/" + x.ExtendedBioUsername + "/extended-bio", ""},
		{"GET", "/twitter/user/" + user + "/followers", ""},
		{"GET", "/twitter/user/" + user + "/following", ""},
		{"GET", "/twitter/user/" + user + "/highlights", ""},
		{"GET", "/twitter/user/" + fmt.Sprint(x.ListsUserID) + "/lists", ""},
		{"GET", "/twitter/user/" + x.Username + "/mentions", ""},
		{"GET", "/twitter/user/" + user + "/tweets", ""},
		{"GET", "/twitter/user/" + user + "/tweets-and-replies", ""},
		{"GET", "/twitter/user/" + user + "/verified-followers", ""},
		// Tweets
		{"GET", "/twitter/tweets/" + post, ""},
		{"GET", "/twitter/tweets/" + post + "/comments", ""},
		{"GET", "/twitter/tweets/" + post + "/quotes", ""},
		{"GET", "/twitter/tweets/" + post + "/retweeted_by", ""},
		{"GET", "/twitter/thread/" + fmt.Sprint(x.ThreadID), ""},
		// Lists
		{"GET", "/twitter/list/" + list, ""},
		{"GET", "/twitter/list/" + list + "/members", ""},
		{"GET", "/twitter/list/" + list + "/tweets", ""},
		// Communities
		{"GET", "/twitter/community/" + comm + "/members", ""},
		{"GET", "/twitter/community/" + comm + "/tweets", ""},
		// User
		{"GET", "/user/balance", ""},
		// Older paths
		{"GET", "/twitter/statuses/show?id=" + post, ""},
		{"GET", "/twitter/followers/list?user_id=" + user, ""},
		{"GET", "/twitter/friends/list?user_id=" + user, ""},
		{"GET", "/twitter/search-users?query=" + x.Username[:3], ""},
		{"GET", "/twitter/user/" + user + "/likes", ""},
		{"GET", "/twitter/tweets/" + post + "/liking_users", ""},
	}
	for _, c := range calls {
		w := e.do(call{method: c.method, path: c.path, body: c.body, key: key})
		if w.Code != http.StatusOK {
			t.Errorf("%s %s: %d %s", c.method, c.path, w.Code, w.Body)
		}
	}
}
