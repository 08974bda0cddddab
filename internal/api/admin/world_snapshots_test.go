package admin

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/roostapi/roost/internal/social"
)

// TestWorldSnapshots: POST /admin/world/snapshots saves the world (201;
// 409 for a name taken, 422 for a bad one), GET lists, POST
// …/{name}/restore puts a deleted post back and the public API serves it
// again (200; 404 unknown), DELETE drops (204; 404). Every answer fits
// the admin document.
func TestWorldSnapshots(t *testing.T) {
	f := newFixture(t)
	f.admin = Handler(&Service{Store: f.store, Data: f.store, Snapshots: f.store.(social.Snapshots)}, token, nil)
	ctx := context.Background()
	found, err := f.store.SearchUsers(ctx, "", social.PageReq{Limit: 1})
	if err != nil || len(found.Items) != 1 {
		t.Fatalf("users: %v %v", found, err)
	}
	pg, err := f.store.UserPosts(ctx, found.Items[0].ID, true, social.PageReq{Limit: 1})
	if err != nil || len(pg.Items) == 0 {
		t.Fatalf("posts: %v %v", pg, err)
	}
	post := "/twitter/tweets/" + strconv.FormatInt(pg.Items[0].ID, 10)
	var made withSecret
	if code := f.call(f.admin, http.MethodPost, "/admin/keys", token, `{"credits_usd":"10"}`, &made); code != 201 {
		t.Fatal(code)
	}
	var snap social.Snapshot
	if code := f.call(f.admin, http.MethodPost, "/admin/world/snapshots", token, `{"name":"clean"}`, &snap); code != 201 ||
		snap.Name != "clean" || snap.Posts == 0 {
		t.Fatalf("save: %d %+v", code, snap)
	}
	for _, c := range []struct {
		method, path, body string
		code               int
	}{
		{"POST", "/admin/world/snapshots", `{"name":"clean"}`, 409},
		{"POST", "/admin/world/snapshots", `{"name":"Not Good"}`, 422},
		{"POST", "/admin/world/snapshots", `{"name":""}`, 422},
		{"POST", "/admin/world/snapshots", `{"nom":"x"}`, 400},
		{"POST", "/admin/world/snapshots/nothing/restore", "", 404},
		{"POST", "/admin/world/snapshots/Bad!/restore", "", 422},
		{"DELETE", "/admin/world/snapshots/nothing", "", 404},
		{"DELETE", "/admin/world/posts/" + strconv.FormatInt(pg.Items[0].ID, 10), "", 204},
	} {
		if code := f.call(f.admin, c.method, c.path, token, c.body, nil); code != c.code {
			t.Errorf("%s %s %s: %d, want %d", c.method, c.path, c.body, code, c.code)
		}
	}
	if code := f.call(f.public, http.MethodGet, post, made.Key, "", nil); code != 404 {
		t.Errorf("GET %s after its deletion: %d", post, code)
	}
	var list snapshotsBody
	if code := f.call(f.admin, http.MethodGet, "/admin/world/snapshots", token, "", &list); code != 200 ||
		len(list.Snapshots) != 1 || list.Snapshots[0] != snap {
		t.Errorf("list: %d %+v", code, list)
	}
	var restored social.Snapshot
	if code := f.call(f.admin, http.MethodPost, "/admin/world/snapshots/clean/restore", token, "", &restored); code != 200 ||
		restored != snap {
		t.Errorf("restore: %d %+v", code, restored)
	}
	if code := f.call(f.public, http.MethodGet, post, made.Key, "", nil); code != 200 {
		t.Errorf("GET %s after the restore: %d", post, code)
	}
	if code := f.call(f.admin, http.MethodDelete, "/admin/world/snapshots/clean", token, "", nil); code != 204 {
		t.Errorf("drop: %d", code)
	}
	if code := f.call(f.admin, http.MethodPost, "/admin/world/snapshots/clean/restore", token, "", nil); code != 404 {
		t.Errorf("restore after the drop: %d", code)
	}
	// A server without snapshots answers 404.
	bare := Handler(&Service{Store: f.store}, token, nil)
	if code := f.call(bare, http.MethodGet, "/admin/world/snapshots", token, "", nil); code != 404 {
		t.Errorf("without snapshots: %d", code)
	}
}
