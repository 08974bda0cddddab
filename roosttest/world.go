package roosttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/roostapi/roost/client/wire"
)

// Fields are the fields of a user, a post or a relation, named as the
// fixtures name them (docs/testing.md): "screen_name", "protected",
// "author", "full_text", "in_reply_to_status_id_str"…
type Fields map[string]any

// adminWait bounds one admin request.
const adminWait = time.Minute

// CreateUser creates a user and returns its profile: with the "id" given,
// else the next after the highest.
func (s *Server) CreateUser(u Fields) wire.Profile {
	s.tb.Helper()
	return answer[wire.Profile](s, "POST", "/admin/world/users", u, http.StatusCreated)
}

// PatchUser changes any fields of user id but its id and returns its
// profile.
func (s *Server) PatchUser(id int64, u Fields) wire.Profile {
	s.tb.Helper()
	return answer[wire.Profile](s, "PATCH", "/admin/world/users/"+strconv.FormatInt(id, 10), u, http.StatusOK)
}

// DeleteUser deletes user id as the network deletes an account: with its
// posts, follows, likes, reposts, lists and memberships.
func (s *Server) DeleteUser(id int64) {
	s.tb.Helper()
	s.world("DELETE", "/admin/world/users/"+strconv.FormatInt(id, 10), nil, http.StatusNoContent, nil)
}

// Post creates a post, reply, quote or repost ("author" and "full_text",
// "in_reply_to_status_id_str"…) and returns it as GET /twitter/tweets/{id}
// shows it. Monitors of its author see it as any new post.
func (s *Server) Post(p Fields) wire.FullPost {
	s.tb.Helper()
	return answer[wire.FullPost](s, "POST", "/admin/world/posts", p, http.StatusCreated)
}

// PatchPost changes post id's "full_text" (its entities follow), "lang"
// or counts and returns it.
func (s *Server) PatchPost(id int64, p Fields) wire.FullPost {
	s.tb.Helper()
	return answer[wire.FullPost](s, "PATCH", "/admin/world/posts/"+strconv.FormatInt(id, 10), p, http.StatusOK)
}

// DeletePost deletes post id as the network deletes one: from then on the
// API answers 404 Tweet not found for it.
func (s *Server) DeletePost(id int64) {
	s.tb.Helper()
	s.world("DELETE", "/admin/world/posts/"+strconv.FormatInt(id, 10), nil, http.StatusNoContent, nil)
}

// Follow makes follower follow followee (each a screen name or an id);
// false when it did already.
func (s *Server) Follow(follower, followee string) bool {
	s.tb.Helper()
	return s.relate("POST", "follows", Fields{"follower": follower, "followee": followee})
}

// Unfollow removes a follow; false when there was none.
func (s *Server) Unfollow(follower, followee string) bool {
	s.tb.Helper()
	return s.relate("DELETE", "follows", Fields{"follower": follower, "followee": followee})
}

// Like makes user (a screen name or an id) like post id; false when it
// did already.
func (s *Server) Like(user string, post int64) bool {
	s.tb.Helper()
	return s.relate("POST", "likes", Fields{"user": user, "post": strconv.FormatInt(post, 10)})
}

// Unlike removes a like; false when there was none.
func (s *Server) Unlike(user string, post int64) bool {
	s.tb.Helper()
	return s.relate("DELETE", "likes", Fields{"user": user, "post": strconv.FormatInt(post, 10)})
}

func (s *Server) relate(method, kind string, body Fields) bool {
	s.tb.Helper()
	want := http.StatusCreated
	if method == "DELETE" {
		want = http.StatusOK
	}
	return answer[struct {
		Changed bool `json:"changed"`
	}](s, method, "/admin/world/"+kind, body, want).Changed
}

// Snapshot saves the world as it is under name (1 to 32 lower-case
// letters, digits, _ or -): its users, posts, relations and search
// indexes, never the keys, their credit or the monitors.
func (s *Server) Snapshot(name string) Snapshot {
	s.tb.Helper()
	return answer[Snapshot](s, "POST", "/admin/world/snapshots", Fields{"name": name}, http.StatusCreated)
}

// Restore puts the world back exactly as snapshot name holds it.
func (s *Server) Restore(name string) Snapshot {
	s.tb.Helper()
	return answer[Snapshot](s, "POST", "/admin/world/snapshots/"+url.PathEscape(name)+"/restore", nil, http.StatusOK)
}

// answer sends an admin request and returns its answer, failing the
// test unless the status is want.
func answer[T any](s *Server, method, path string, body any, want int) T {
	s.tb.Helper()
	var out T
	s.world(method, path, body, want, &out)
	return out
}

// world sends an admin request and decodes its answer into out (when
// not nil), failing the test unless the status is want.
func (s *Server) world(method, path string, body any, want int, out any) {
	s.tb.Helper()
	status, b := s.Admin(method, path, body)
	if status != want {
		var e struct {
			Message string `json:"message"`
		}
		msg := string(b)
		if json.Unmarshal(b, &e) == nil && e.Message != "" {
			msg = e.Message
		}
		s.fail("%s %s: %d %s", method, path, status, msg)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.fail("%s %s: the answer: %v", method, path, err)
		}
	}
}

// Admin sends a request to the admin API (path from "/admin/…"; body nil,
// a []byte sent as it is, or a value sent as JSON) with the admin token,
// and returns the answer's status and body. It fails the test only when
// no answer comes; the status is the caller's to check.
func (s *Server) Admin(method, path string, body any) (int, []byte) {
	s.tb.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			s.fail("%s %s: the body: %v", method, path, err)
		}
		r = bytes.NewReader(data)
	}
	status, answer, err := s.send(method, path, r)
	if err != nil {
		s.fail("%s %s: %v", method, path, err)
	}
	return status, answer
}

func (s *Server) send(method, path string, body io.Reader) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), adminWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.AdminURL+path, body)
	if err != nil {
		return 0, nil, fmt.Errorf("request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+s.AdminToken)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("send: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("read the answer: %w", err)
	}
	return resp.StatusCode, b, nil
}
