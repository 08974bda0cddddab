package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/ingest/importer"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/edit"
	fx "github.com/roostapi/roost/internal/world/fixture"
)

// World is the admin API's world control (docs/testing.md): the editor
// of the served database's world, and the renderer of the public shapes
// its answers use (httpapi.NewRenderer).
type World struct {
	Editor *edit.Editor
	Render monitor.Renderer
}

// maxWorldBody bounds a fixture document or an imported body.
const maxWorldBody = 64 << 20

// worldRoutes are the world control's routes.
func worldRoutes() []route {
	profile, post := httpapi.ProfileType(), httpapi.FullPostType()
	changed, pair := reflect.TypeFor[changedBody](), reflect.TypeFor[edit.Pair]()
	rts := []route{
		{"POST", "/admin/world/users", "Create a user (the fixture's user fields); the answer is its public profile",
			(*handler).createUser, reflect.TypeFor[fx.User](), 201, profile, nil, []int{400, 422}, "", 0},
		{"PATCH", "/admin/world/users/{user_id}", "Change any fields of a user's profile: rename, protect, verify, counts, bio",
			(*handler).patchUser, reflect.TypeFor[fx.User](), 200, profile, nil, []int{400, 404, 422}, "", 0},
		{"POST", "/admin/world/posts", "Create a post, reply, quote or repost; the answer is the post in the full shape",
			(*handler).createPost, reflect.TypeFor[fx.Post](), 201, post, nil, []int{400, 422}, "", 0},
		{"PATCH", "/admin/world/posts/{tweet_id}", "Change a post's text (its entities follow), language or counts",
			(*handler).patchPost, reflect.TypeFor[edit.PostPatch](), 200, post, nil, []int{400, 404, 422}, "", 0},
		{"POST", "/admin/world/fixtures", "Write a fixture document (JSON, or YAML as application/yaml) in one transaction; the answer is the ids it gave by name",
			(*handler).fixtures, reflect.TypeFor[fx.Document](), 201, reflect.TypeFor[fx.Result](),
			[]queryParam{{"now", "clock of the document's relative and left-out times when it names none: RFC 3339, or wall (default " +
				fx.DefaultNow.Format(time.RFC3339) + ")"}}, []int{400, 422}, "yaml", maxWorldBody},
		{"POST", "/admin/world/import", "Import a body as roost import reads a file (a recorded page of the API, a tweets.js…)",
			(*handler).importBody, nil, 200, reflect.TypeFor[importBody](), []queryParam{
				{"format", "the body's format instead of detecting it: " + strings.Join(importer.Formats(), ", ")},
				{"strict", "true: refuse the whole body at its first malformed record, writing nothing"},
				{"followers_of", "user id whose followers a GraphQL Followers capture lists"},
				{"following_of", "user id whose followings a GraphQL Following capture lists"},
				{"reposters_of", "post id whose reposters a GraphQL Retweeters capture lists"},
				{"list_members_of", "list id whose members a GraphQL ListMembers capture lists"},
				{"likers_of", "post id whose likers a GraphQL Favoriters capture lists"},
				{"likes_of", "user id whose likes a GraphQL Likes capture lists"}}, []int{422}, "raw", maxWorldBody},
	}
	for _, k := range []struct {
		kind  edit.Kind
		about string
	}{{edit.Follows, "a follow: follower and followee (screen names or ids)"},
		{edit.Likes, "a like: user (a screen name or an id) and post (an id)"},
		{edit.ListMembers, "a list member: list (an id) and user (a screen name or an id)"},
		{edit.ListSubscribers, "a list subscriber: list (an id) and user (a screen name or an id)"},
		{edit.CommunityMembers, "a community member: community (an id), user (a screen name or an id) and role (Member when left out)"}} {
		path := "/admin/world/" + string(k.kind)
		rts = append(rts,
			route{"POST", path, "Add " + k.about + "; changed is false when it was there already", relate(k.kind, true),
				pair, 201, changed, nil, []int{400, 422}, "", 0},
			route{"DELETE", path, "Remove " + k.about + "; changed is false when it was not there", relate(k.kind, false),
				pair, 200, changed, nil, []int{400, 422}, "", 0})
	}
	return rts
}

// The world control's answers besides the public shapes.
type (
	changedBody struct {
		Changed bool `json:"changed"`
	}
	importBody struct {
		Read          int            `json:"read"`
		PostsInserted int            `json:"posts_inserted"`
		PostsUpdated  int            `json:"posts_updated"`
		UsersInserted int            `json:"users_inserted"`
		UsersUpdated  int            `json:"users_updated"`
		Skipped       int            `json:"skipped"`
		SkipReasons   map[string]int `json:"skip_reasons"`
		Errors        []string       `json:"errors"`
		Notes         []string       `json:"notes"`
	}
)

// world is the world control, or nil (answered 404) when the server has
// none.
func (h *handler) world(w http.ResponseWriter) *World {
	if h.svc.World == nil {
		writeError(w, http.StatusNotFound, "Unknown endpoint: this server has no world control")
	}
	return h.svc.World
}

// worldRequest is the world control and the request's JSON body; false
// when either is missing (answered).
func (h *handler) worldRequest(w http.ResponseWriter, r *http.Request) (*World, any, bool) {
	wd := h.world(w)
	if wd == nil {
		return nil, nil, false
	}
	body, ok := tree(w, r)
	return wd, body, ok
}

// tree reads a JSON object body into its decoded tree (numbers kept as
// written), answering 400 when it is not one.
func tree(w http.ResponseWriter, r *http.Request) (any, bool) {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if _, ok := v.(map[string]any); err != nil || !ok {
		writeError(w, http.StatusBadRequest, "the body must be a JSON object of this endpoint")
		return nil, false
	}
	return v, true
}

// worldID reads the path's id parameter name.
func worldID(w http.ResponseWriter, r *http.Request, name string) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id < 1 {
		writeError(w, http.StatusUnprocessableEntity, name+" must be a positive integer")
		return 0, false
	}
	return id, true
}

// worldFail answers a world change's error: 404 for what the path names
// missing, 422 with every problem for a value refused, else as fail.
func (h *handler) worldFail(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, social.ErrNotFound):
		writeError(w, http.StatusNotFound, strings.TrimSuffix(err.Error(), ": "+social.ErrNotFound.Error()))
	case errors.Is(err, social.ErrInvalid):
		writeError(w, http.StatusUnprocessableEntity, strings.TrimSuffix(err.Error(), ": "+social.ErrInvalid.Error()))
	default:
		h.fail(w, r, err)
	}
}

func (h *handler) createUser(w http.ResponseWriter, r *http.Request) {
	h.user(w, r, http.StatusCreated, 0)
}

func (h *handler) patchUser(w http.ResponseWriter, r *http.Request) {
	if id, ok := worldID(w, r, "user_id"); ok {
		h.user(w, r, http.StatusOK, id)
	}
}

// user creates (id 0) or changes a user and answers its profile.
func (h *handler) user(w http.ResponseWriter, r *http.Request, status int, id int64) {
	wd, body, ok := h.worldRequest(w, r)
	if !ok {
		return
	}
	var u social.User
	var err error
	if id == 0 {
		u, err = wd.Editor.CreateUser(r.Context(), body)
	} else {
		u, err = wd.Editor.PatchUser(r.Context(), id, body)
	}
	if err != nil {
		h.worldFail(w, r, err)
		return
	}
	writeRaw(w, status, wd.Render.User(&u))
}

func (h *handler) createPost(w http.ResponseWriter, r *http.Request) {
	wd, body, ok := h.worldRequest(w, r)
	if !ok {
		return
	}
	id, err := wd.Editor.CreatePost(r.Context(), body)
	if err != nil {
		h.worldFail(w, r, err)
		return
	}
	h.post(w, r, wd, http.StatusCreated, id)
}

func (h *handler) patchPost(w http.ResponseWriter, r *http.Request) {
	id, ok := worldID(w, r, "tweet_id")
	if !ok {
		return
	}
	wd, body, ok := h.worldRequest(w, r)
	if !ok {
		return
	}
	if err := wd.Editor.PatchPost(r.Context(), id, body); err != nil {
		h.worldFail(w, r, err)
		return
	}
	h.post(w, r, wd, http.StatusOK, id)
}

// renderWait is how long an answer waits for a post just written to be
// readable where the renderer reads (a read replica behind the primary).
const renderWait = 5 * time.Second

// post answers post id in the full shape.
func (h *handler) post(w http.ResponseWriter, r *http.Request, wd *World, status int, id int64) {
	for start := time.Now(); ; {
		out, err := wd.Render.Posts(r.Context(), []int64{id})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if b, ok := out[id]; ok {
			writeRaw(w, status, b)
			return
		}
		if time.Since(start) > renderWait {
			h.fail(w, r, errors.New("a post just written is not readable"))
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// relate answers a relation's POST (add) or DELETE.
func relate(k edit.Kind, add bool) func(*handler, http.ResponseWriter, *http.Request) {
	return func(h *handler, w http.ResponseWriter, r *http.Request) {
		wd, body, ok := h.worldRequest(w, r)
		if !ok {
			return
		}
		changed, err := wd.Editor.Relate(r.Context(), k, body, add)
		if err != nil {
			h.worldFail(w, r, err)
			return
		}
		status := http.StatusOK
		if add {
			status = http.StatusCreated
		}
		writeJSON(w, status, changedBody{Changed: changed})
	}
}

func (h *handler) fixtures(w http.ResponseWriter, r *http.Request) {
	wd := h.world(w)
	if wd == nil {
		return
	}
	now := fx.DefaultNow
	switch v := r.URL.Query().Get("now"); v {
	case "":
	case "wall":
		now = time.Now().UTC()
	default:
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeError(w, http.StatusUnprocessableEntity, "now must be an RFC 3339 time or wall")
			return
		}
		now = t
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, maxWorldBody+1))
	if err != nil || len(data) > maxWorldBody {
		writeError(w, http.StatusBadRequest, "the body must be a fixture document of at most 64 MiB")
		return
	}
	res, err := wd.Editor.Fixture(r.Context(), data, fx.FormatOf(r.Header.Get("Content-Type")), now)
	if err != nil {
		h.worldFail(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, res)
}

func (h *handler) importBody(w http.ResponseWriter, r *http.Request) {
	wd := h.world(w)
	if wd == nil {
		return
	}
	q := r.URL.Query()
	opt := importer.Options{Format: q.Get("format"), Strict: q.Get("strict") == "true"}
	for name, dst := range map[string]*int64{"followers_of": &opt.FollowersOf, "following_of": &opt.FollowingOf,
		"reposters_of": &opt.RepostersOf, "list_members_of": &opt.ListMembersOf, "likers_of": &opt.LikersOf,
		"likes_of": &opt.LikesOf} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				writeError(w, http.StatusUnprocessableEntity, name+" must be an id")
				return
			}
			*dst = n
		}
	}
	sum, err := wd.Editor.Import(r.Context(), http.MaxBytesReader(w, r.Body, maxWorldBody), opt)
	if err != nil {
		h.worldFail(w, r, err)
		return
	}
	out := importBody{Read: sum.Read, PostsInserted: sum.PostsInserted, PostsUpdated: sum.PostsUpdated,
		UsersInserted: sum.UsersInserted, UsersUpdated: sum.UsersUpdated, Skipped: sum.Skipped,
		SkipReasons: sum.SkipReasons, Errors: []string{}, Notes: sum.Notes}
	if out.SkipReasons == nil {
		out.SkipReasons = map[string]int{}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, e := range sum.Errors {
		out.Errors = append(out.Errors, e.Error())
	}
	writeJSON(w, http.StatusOK, out)
}

// writeRaw answers a body rendered already.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(bytes.TrimSpace(body), '\n')) //nolint:errcheck // the client went away
}
