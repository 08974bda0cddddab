package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/store/storetest/engines"
	"github.com/roostapi/roost/internal/world/edit"
)

// worldEnv is a world control and the public API over one store.
type worldEnv struct {
	t      *testing.T
	admin  http.Handler
	public http.Handler
	key    string
}

func newWorldEnv(t *testing.T, st engines.Store) *worldEnv {
	world := &World{Editor: edit.New(st.World(), st), Render: httpapi.NewRenderer(st)}
	svc := &Service{Store: st, World: world}
	key, _, err := svc.Create(context.Background(), "t", 1_000_000_000, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	return &worldEnv{t: t, admin: Handler(svc, token, nil), key: key,
		public: httpapi.New(httpapi.Config{RateLimit: -1}, st, nil, nil)}
}

// do sends an admin request (checked against the admin document) and
// decodes its JSON answer into a map; want is the status expected.
func (e *worldEnv) do(method, path, body string, want int) map[string]any {
	e.t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	e.admin.ServeHTTP(w, r)
	for _, m := range mismatches(adminValidator(e.t), httptest.NewRequest(method, path, strings.NewReader(body)), w) {
		e.t.Errorf("the OpenAPI document does not hold: %s", m)
	}
	if w.Code != want {
		e.t.Fatalf("%s %s %s: %d %s; want %d", method, path, body, w.Code, w.Body, want)
	}
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return out
}

// get reads a public endpoint and returns its status and body.
func (e *worldEnv) get(path string) (int, string) {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Authorization", "Bearer "+e.key)
	w := httptest.NewRecorder()
	e.public.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// expect checks that a public endpoint's answer holds (or, with has
// false, lacks) each of parts.
func (e *worldEnv) expect(path string, has bool, parts ...string) {
	e.t.Helper()
	code, body := e.get(path)
	if code != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	for _, p := range parts {
		if strings.Contains(body, p) != has {
			e.t.Errorf("GET %s: holds %s is %v, want %v:\n%.2000s", path, p, !has, has, body)
		}
	}
}

const worldDoc = `{"users": [{"screen_name": "alice"}, {"screen_name": "bob"}],
	"lists": [{"ref": "l", "name": "L", "owner": "alice"}],
	"communities": [{"ref": "c", "name": "C", "creator": "alice"}]}`

// TestWorldAPI: on both engines, each kind is created, changed and
// removed through the world control, and the public endpoints it
// affects answer accordingly at once.
func TestWorldAPI(t *testing.T) {
	for _, eng := range engines.All() {
		t.Run(eng.Name, func(t *testing.T) {
			e := newWorldEnv(t, eng.Open(t))
			res := e.do("POST", "/admin/world/fixtures", worldDoc, 201)
			list := res["lists"].(map[string]any)["l"].(string)
			comm := res["communities"].(map[string]any)["c"].(string)

			// Users: create, then rename, protect and verify.
			dave := e.do("POST", "/admin/world/users", `{"screen_name": "dave", "name": "Dave", "description": "hi"}`, 201)
			if dave["id_str"] != "3" || dave["screen_name"] != "dave" {
				t.Fatalf("created %v", dave)
			}
			e.expect("/social/user/dave", true, `"description":"hi"`)
			e.do("PATCH", "/admin/world/users/3", `{"screen_name": "david", "protected": true, "verified": true, "followers_count": 50}`, 200)
			e.expect("/social/user/david", true, `"protected":true`, `"verified":true`, `"followers_count":50`, `"description":"hi"`)
			if code, _ := e.get("/social/user/dave"); code != http.StatusNotFound {
				t.Errorf("the old name answers %d", code)
			}
			if code, _ := e.get("/social/user/3/tweets"); code != http.StatusForbidden {
				t.Errorf("a protected user's tweets answer %d", code)
			}
			e.do("PATCH", "/admin/world/users/999", `{"name": "x"}`, 404)
			e.do("POST", "/admin/world/users", `{"screen_name": "bob"}`, 422)
			if u := e.do("POST", "/admin/world/users", `{"id": "5000", "screen_name": "erin"}`, 201); u["id_str"] != "5000" {
				t.Errorf("created with an id: %v", u)
			}
			e.do("POST", "/admin/world/users", `{"id_str": "5000", "screen_name": "erin2"}`, 422)

			// Posts: create, reply, change.
			p := e.do("POST", "/admin/world/posts", `{"author": "alice", "full_text": "fresh #news for @bob"}`, 201)
			id := p["id_str"].(string)
			if p["user"].(map[string]any)["screen_name"] != "alice" || p["is_pinned"] != false {
				t.Fatalf("created %v", p)
			}
			e.expect("/social/user/1/tweets", true, id)
			e.expect("/social/search?query=%23news", true, id)
			e.expect("/social/user/bob/mentions", true, id)
			e.expect("/social/user/alice", true, `"statuses_count":1`)
			reply := e.do("POST", "/admin/world/posts", `{"author": "bob", "full_text": "@alice yes", "in_reply_to_status_id_str": "`+id+`"}`, 201)
			e.expect("/social/tweets/"+id, true, `"reply_count":1`)
			e.expect("/social/tweets/"+id+"/comments", true, reply["id_str"].(string))
			e.do("PATCH", "/admin/world/posts/"+id, `{"full_text": "edited #later", "favorite_count": 7}`, 200)
			e.expect("/social/tweets/"+id, true, `"full_text":"edited #later"`, `"favorite_count":7`)
			e.expect("/social/search?query=%23later", true, id)
			e.expect("/social/search?query=%23news", false, id)
			e.do("PATCH", "/admin/world/posts/12345", `{"favorite_count": 1}`, 404)
			e.do("POST", "/admin/world/posts", `{"author": "zed", "full_text": "x"}`, 422)

			// Relations: add (twice), then remove (twice).
			for _, r := range []struct {
				path, body, read, holds string
			}{
				{"follows", `{"follower": "bob", "followee": "alice"}`, "/social/user/1/followers", `"screen_name":"bob"`},
				{"likes", `{"user": "bob", "post": "` + id + `"}`, "/social/tweets/" + id + "/liking_users", `"screen_name":"bob"`},
				{"list-members", `{"list": "` + list + `", "user": "bob"}`, "/social/list/" + list + "/members", `"screen_name":"bob"`},
				{"list-subscribers", `{"list": "` + list + `", "user": "bob"}`, "/social/user/2/lists", `"id_str":"` + list + `"`},
				{"community-members", `{"community": "` + comm + `", "user": "bob", "role": "Moderator"}`,
					"/social/community/" + comm + "/members", `"community_role":"Moderator"`},
			} {
				if got := e.do("POST", "/admin/world/"+r.path, r.body, 201); got["changed"] != true {
					t.Errorf("POST %s: %v", r.path, got)
				}
				if got := e.do("POST", "/admin/world/"+r.path, r.body, 201); got["changed"] != false {
					t.Errorf("POST %s again: %v", r.path, got)
				}
				e.expect(r.read, true, r.holds)
				if got := e.do("DELETE", "/admin/world/"+r.path, r.body, 200); got["changed"] != true {
					t.Errorf("DELETE %s: %v", r.path, got)
				}
				if got := e.do("DELETE", "/admin/world/"+r.path, r.body, 200); got["changed"] != false {
					t.Errorf("DELETE %s again: %v", r.path, got)
				}
				e.expect(r.read, false, r.holds)
			}
			e.do("POST", "/admin/world/follows", `{"follower": "bob", "followee": "alice"}`, 201)
			e.expect("/social/user/alice", true, `"followers_count":1`)
			e.expect("/social/user/bob", true, `"friends_count":1`)
			e.do("POST", "/admin/world/likes", `{"user": "bob", "post": "`+id+`"}`, 201)
			e.expect("/social/tweets/"+id, true, `"favorite_count":8`)
			e.do("POST", "/admin/world/list-members", `{"list": "`+list+`", "user": "bob"}`, 201)
			e.expect("/social/list/"+list, true, `"member_count":1`)
			e.do("POST", "/admin/world/follows", `{"follower": "bob", "post": "1"}`, 422)

			// A recorded page of the API, replayed.
			page, err := os.ReadFile("../../ingest/importer/testdata/api_page.json")
			if err != nil {
				t.Fatal(err)
			}
			got := e.do("POST", "/admin/world/import", string(page), 200)
			if got["posts_inserted"].(float64) < 1 {
				t.Errorf("import: %v", got)
			}
			e.expect("/social/tweets/9000000000000000030", true, `"full_text":"served by roost #again"`)
			e.do("POST", "/admin/world/import?strict=true", `{"tweets": [{"nope": 1}]`, 422)
			e.do("POST", "/admin/world/fixtures", `{"users": [{"screen_name": "eve"}], "posts": [{"author": "eve", "full_text": "x", "in_reply_to": "gone"}]}`, 422)
			if code, _ := e.get("/social/user/eve"); code != http.StatusNotFound {
				t.Errorf("a refused fixture wrote eve: %d", code)
			}
		})
	}
}
