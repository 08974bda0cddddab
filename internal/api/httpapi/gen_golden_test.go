package httpapi

import (
	"fmt"
	"net/http"
	"testing"
)

// TestGeneratedGoldens pins the first page of every endpoint over the
// generated network (fixed seed) to a golden file, on every engine: the
// same seed must give the same bytes whichever store serves it.
func TestGeneratedGoldens(t *testing.T) { eachEngine(t, testGeneratedGoldens) }

func testGeneratedGoldens(t *testing.T, eng engine) {
	e, sum := genEnv(t, eng)
	key, _ := e.key(t, 1_000_000_000, 0)
	ex := sum.Examples
	id := func(v int64) string { return fmt.Sprint(v) }
	for _, c := range []struct {
		name string
		call call
	}{
		{"user_tweets", call{path: "/social/user/" + id(ex.UserID) + "/tweets"}},
		{"user_tweets_and_replies", call{path: "/social/user/" + id(ex.UserID) + "/tweets-and-replies"}},
		{"community_tweets", call{path: "/social/community/" + id(ex.CommunityID) + "/tweets"}},
		{"community_tweets_top", call{path: "/social/community/" + id(ex.CommunityID) + "/tweets?type=Top"}},
		{"tweets_by_ids", call{method: http.MethodPost, path: "/social/tweets-by-ids",
			body: fmt.Sprintf(`{"ids":["%d",%d]}`, ex.PostID, ex.ThreadID)}},
		{"users_by_usernames", call{method: http.MethodPost, path: "/social/users-by-usernames",
			body: fmt.Sprintf(`{"usernames":["%s","@%s"]}`, ex.Username, ex.ShadowBannedUsername)}},
		{"user_lists", call{path: "/social/user/" + id(ex.ListsUserID) + "/lists"}},
		{"list_tweets", call{path: "/social/list/" + id(ex.ListID) + "/tweets"}},
		{"thread", call{path: "/social/thread/" + id(ex.ThreadID)}},
		{"mentions", call{path: "/social/user/" + ex.Username + "/mentions"}},
		{"retweeted_by", call{path: "/social/tweets/" + id(ex.PostID) + "/retweeted_by"}},
		{"affiliates", call{path: "/social/user/" + id(ex.OrganizationUserID) + "/affiliates"}},
		{"verified_followers", call{path: "/social/user/" + id(ex.UserID) + "/verified-followers"}},
		{"following", call{path: "/social/user/" + id(ex.ListsUserID) + "/following"}},
		{"community_members", call{path: "/social/community/" + id(ex.CommunityID) + "/members"}},
		{"list_members", call{path: "/social/list/" + id(ex.ListID) + "/members"}},
		{"highlights", call{path: "/social/user/" + id(ex.UserID) + "/highlights"}},
		{"search", call{path: "/social/search?query=from:" + ex.Username + "+-filter:replies"}},
		{"search_top", call{path: "/social/search?query=the+OR+de&type=Top"}},
		{"user", call{path: "/social/user/" + ex.Username}},
		{"users_by_ids", call{method: http.MethodPost, path: "/social/users-by-ids",
			body: fmt.Sprintf(`{"ids":["%d",%d]}`, ex.UserID, ex.ListsUserID)}},
		{"extended_bio", call{path: "/social/user/" + ex.ExtendedBioUsername + "/extended-bio"}},
		{"followers", call{path: "/social/user/" + id(ex.UserID) + "/followers"}},
		{"tweet", call{path: "/social/tweets/" + id(ex.PostID)}},
		{"tweet_comments", call{path: "/social/tweets/" + id(ex.PostID) + "/comments"}},
		{"tweet_quotes", call{path: "/social/tweets/" + id(ex.PostID) + "/quotes"}},
		{"list", call{path: "/social/list/" + id(ex.ListID)}},
		{"space", call{path: "/social/space/" + ex.SpaceID}},
		{"commented_by", call{path: "/social/tweets/" + id(ex.PostID) + "/commented_by/" + id(ex.UserID)}},
		{"retweeted_by_user", call{path: "/social/tweets/" + id(ex.PostID) + "/retweeted_by/" + id(ex.UserID)}},
		{"following_user", call{path: "/social/user/" + id(ex.UserID) + "/following/" + id(ex.ListsUserID)}},
		{"search_users", call{path: "/social/search-users?query=" + ex.Username[:3]}},
		{"user_likes", call{path: "/social/user/" + id(ex.UserID) + "/likes"}},
		{"liking_users", call{path: "/social/tweets/" + id(ex.PostID) + "/liking_users"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.call.key = key
			w := e.do(c.call)
			if w.Code != http.StatusOK {
				t.Fatalf("%s: status %d: %s", c.call.path, w.Code, w.Body.String())
			}
			golden(t, "gen/"+c.name, w.Body.Bytes())
		})
	}
}
