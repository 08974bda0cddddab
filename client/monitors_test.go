package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
)

// TestMonitorCreationRetries: a creation is tried again after a 429
// (answered before any work) but not after a 5xx or a lost answer, which
// could come after the monitor was made; reads are tried again after both.
func TestMonitorCreationRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fail      int
		wantCalls int32
	}{{"429", 429, 2}, {"500", 500, 1}, {"503", 503, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			var body map[string]any
			c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					writeErr(w, tc.fail, "busy")
					return
				}
				b, _ := io.ReadAll(r.Body)
				json.Unmarshal(b, &body)
				fmt.Fprint(w, `{"status":"success","data":{"id":"01j0000000000000000000000a","created_at":"2024-06-01T12:00:00.000000Z",`+
					`"monitor_type":"user_tweets","webhook_url":null,"parameters":{"user_id_str":"9007199254740993"},"status":"active"}}`)
			})
			m, err := c.CreateUserTweetsMonitor(t.Context(), UserMonitorRequest{UserID: 9007199254740993})
			if calls.Load() != tc.wantCalls {
				t.Errorf("%d calls, want %d", calls.Load(), tc.wantCalls)
			}
			var ae *Error
			if tc.fail == 429 && (err != nil || m.Parameters["user_id_str"] != "9007199254740993" || m.CreatedAt.Year() != 2024 ||
				body["user_id"] != "9007199254740993" || len(body) != 1) {
				t.Errorf("monitor %+v, body %v, err %v", m, body, err)
			}
			if tc.fail != 429 && (!errors.As(err, &ae) || ae.Status != tc.fail) {
				t.Errorf("err %v, want %d", err, tc.fail)
			}
		})
	}
	var calls atomic.Int32
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			writeErr(w, 500, "oops")
			return
		}
		fmt.Fprint(w, `{"status":"success","data":{"id":"m1","events":{"pending":2},"deliveries":[{"event_id":"e1","attempt":1,"status":0,"at":"2024-06-01T12:00:00.000000Z"}]}}`)
	})
	d, err := c.Monitor(t.Context(), "m1")
	if err != nil || calls.Load() != 2 || d.ID != "m1" || d.Events["pending"] != 2 || len(d.Deliveries) != 1 {
		t.Errorf("%+v %v after %d calls", d, err, calls.Load())
	}
}

// TestMonitorsAll walks the numbered pages to the last, at the root.
func TestMonitorsAll(t *testing.T) {
	const total, size = 57, 50
	var calls atomic.Int32
	c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/monitors" {
			t.Errorf("path %s", r.URL.Path)
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		var data []map[string]string
		for i := (page - 1) * size; i < min(total, page*size); i++ {
			data = append(data, map[string]string{"id": strconv.Itoa(i)})
		}
		b, _ := json.Marshal(map[string]any{"data": data, "meta": map[string]int{"items_count": total, "last_page": 2, "page": page}})
		w.Write(b)
	})
	n := 0
	for m, err := range c.MonitorsAll(t.Context()) {
		if err != nil || m.ID != strconv.Itoa(n) {
			t.Fatalf("monitor %d: %+v %v", n, m, err)
		}
		n++
	}
	if n != total || calls.Load() != 2 {
		t.Errorf("%d monitors in %d calls", n, calls.Load())
	}
}

// TestMonitorBodies: the bodies sent mirror the server's fields (null
// where the server reads null as a removal).
func TestMonitorBodies(t *testing.T) {
	hook := "http://127.0.0.1:9/hook"
	for _, tc := range []struct {
		name, method, path, want string
		call                     func(c *Client) error
	}{
		{"search", "POST", "/monitors/search-query", `{"query":"#go","refresh_frequency":60,"webhook_url":"http://127.0.0.1:9/hook"}`,
			func(c *Client) error {
				_, err := c.CreateSearchMonitor(t.Context(), SearchMonitorRequest{Query: "#go", RefreshFrequency: 60, WebhookURL: &hook})
				return err
			}},
		{"by name", "POST", "/monitors/user-profile", `{"user_screen_name":"ann"}`, func(c *Client) error {
			_, err := c.CreateUserProfileMonitor(t.Context(), UserMonitorRequest{UserScreenName: "ann"})
			return err
		}},
		{"following", "POST", "/monitors/user-following", `{"user_id":"5"}`, func(c *Client) error {
			_, err := c.CreateUserFollowingMonitor(t.Context(), UserMonitorRequest{UserID: 5})
			return err
		}},
		{"pump", "POST", "/monitors/search-pump-fun", `{}`, func(c *Client) error {
			_, err := c.CreatePumpFunMonitor(t.Context(), nil)
			return err
		}},
		{"patch", "PATCH", "/monitors/a%2Fb", `{"webhook_url":null}`, func(c *Client) error {
			_, err := c.SetMonitorWebhook(t.Context(), "a/b", nil)
			return err
		}},
		{"delete", "DELETE", "/monitors/m1", ``, func(c *Client) error { return c.DeleteMonitor(t.Context(), "m1") }},
		{"webhook", "POST", "/user/webhook", `{"url":"http://127.0.0.1:9/hook"}`, func(c *Client) error {
			w, err := c.SetWebhook(t.Context(), &hook)
			if err == nil && w.SigningSecret != "whsec_x" {
				err = fmt.Errorf("secret %q", w.SigningSecret)
			}
			return err
		}},
	} {
		c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			if r.Method != tc.method || r.URL.EscapedPath() != tc.path || string(b) != tc.want {
				t.Errorf("%s: %s %s %s, want %s %s %s", tc.name, r.Method, r.URL.EscapedPath(), b, tc.method, tc.path, tc.want)
			}
			fmt.Fprint(w, `{"status":"success","signing_secret":"whsec_x","data":{"id":"m1"}}`)
		}, WithPrefix("/social"))
		if err := tc.call(c); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestOlderPathIterators: FollowersListAll and FriendsListAll follow the
// cursors of the older paths, with user_id on every page.
func TestOlderPathIterators(t *testing.T) {
	for path, walk := range map[string]func(c *Client) []string{
		"/twitter/followers/list": func(c *Client) []string { return userIDs(c.FollowersListAll(t.Context(), 42)) },
		"/twitter/friends/list":   func(c *Client) []string { return userIDs(c.FriendsListAll(t.Context(), 42)) },
	} {
		c, _ := fake(t, func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.URL.Path != path || q.Get("user_id") != "42" {
				t.Errorf("%s?%s", r.URL.Path, r.URL.RawQuery)
			}
			if q.Get("cursor") == "" {
				fmt.Fprint(w, `{"next_cursor":"c2","users":[{"id_str":"1"},{"id_str":"2"}]}`)
				return
			}
			fmt.Fprint(w, `{"next_cursor":null,"users":[{"id_str":"3"}]}`)
		})
		if got := fmt.Sprint(walk(c)); got != "[1 2 3]" {
			t.Errorf("%s: %s", path, got)
		}
	}
}

func userIDs(seq func(func(User, error) bool)) []string {
	var out []string
	for u, err := range seq {
		if err != nil {
			return append(out, err.Error())
		}
		out = append(out, u.IDStr)
	}
	return out
}
