package admin

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// TestWorldDeletes: DELETE /admin/world/posts/{tweet_id} and
// /admin/world/users/{user_id} answer 204 and the public API no longer
// knows what they deleted; 404 for what is not stored, which is then not
// tombstoned either; 422 for a bad id; 401 without the token. Every
// answer fits the admin document.
func TestWorldDeletes(t *testing.T) {
	f := newFixture(t)
	f.admin = Handler(&Service{Store: f.store, Data: f.store}, token, nil)
	ctx := context.Background()
	found, err := f.store.SearchUsers(ctx, "", social.PageReq{Limit: 2})
	if err != nil || len(found.Items) != 2 {
		t.Fatalf("users: %v %v", found, err)
	}
	us := found.Items
	pg, err := f.store.UserPosts(ctx, us[0].ID, true, social.PageReq{Limit: 1})
	if err != nil || len(pg.Items) == 0 {
		t.Fatalf("posts: %v %v", pg, err)
	}
	post, user := pg.Items[0].ID, us[1].ID
	var made withSecret
	if code := f.call(f.admin, http.MethodPost, "/admin/keys", token, `{"credits_usd":"10"}`, &made); code != 201 {
		t.Fatal(code)
	}
	key := made.Key
	for _, c := range []struct {
		path       string
		code       int
		public     string
		publicCode int
	}{
		{"/admin/world/posts/" + strconv.FormatInt(post, 10), 204, "/twitter/tweets/" + strconv.FormatInt(post, 10), 404},
		{"/admin/world/posts/" + strconv.FormatInt(post, 10), 404, "", 0},
		{"/admin/world/users/" + strconv.FormatInt(user, 10), 204, "/twitter/user/" + strconv.FormatInt(user, 10), 404},
		{"/admin/world/users/" + strconv.FormatInt(user, 10), 404, "", 0},
		{"/admin/world/users/0", 422, "", 0},
		{"/admin/world/posts/abc", 422, "", 0},
		{"/admin/world/posts/777", 404, "", 0},
	} {
		if code := f.call(f.admin, http.MethodDelete, c.path, token, "", nil); code != c.code {
			t.Errorf("DELETE %s: %d, want %d", c.path, code, c.code)
		}
		if c.public != "" {
			if code := f.call(f.public, http.MethodGet, c.public, key, "", nil); code != c.publicCode {
				t.Errorf("GET %s after the deletion: %d, want %d", c.public, code, c.publicCode)
			}
		}
	}
	if code := f.call(f.admin, http.MethodDelete, "/admin/world/posts/1", "", "", nil); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	// 777 was not stored: it is no tombstone, and can be written.
	st, err := f.store.Write(ctx, &social.Batch{Posts: []social.Post{{ID: 777, AuthorID: us[0].ID, Text: "new"}}})
	if err != nil || st.PostsInserted != 1 {
		t.Errorf("a post the admin API did not find was tombstoned: %+v %v", st, err)
	}
}
