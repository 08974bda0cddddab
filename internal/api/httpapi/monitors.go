package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/roostapi/roost/client/wire"
	"github.com/roostapi/roost/internal/jsonenc"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// paramMonitorID is a monitor's id in a path.
const paramMonitorID = "monitor_id"

const msgMonitorNotFound = "Monitor not found"

// monitorRoutes are the hosted service's monitoring endpoints (its SDK's
// Monitors and POST /user/webhook): free, answered under the prefixes and
// at the root, as the SDK calls them.
func monitorRoutes() []*route {
	create := func(name, path string, parse func(a *args) (creator, error)) *route {
		return &route{name: name, method: http.MethodPost, path: path, root: true, free: true, body: bodyObject,
			serve: serveCreate(parse)}
	}
	byID := func(name, method string, serve func(context.Context, *server, *args) (any, int, error)) *route {
		rt := &route{name: name, method: method, path: "/monitors/{monitor_id}", root: true, free: true,
			param: paramMonitorID, notFound: msgMonitorNotFound, serve: serve}
		if method == http.MethodPatch {
			rt.body = bodyObject
		}
		return rt
	}
	return []*route{
		create("monitor_user_tweets", "/monitors/user-tweets", parseUserMonitor(monitor.UserTweets)),
		create("monitor_user_following", "/monitors/user-following", parseUserMonitor(monitor.UserFollowing)),
		create("monitor_user_profile", "/monitors/user-profile", parseUserMonitor(monitor.UserProfile)),
		create("monitor_search_query", "/monitors/search-query", parseSearchMonitor),
		create("monitor_search_pump_fun", "/monitors/search-pump-fun", parsePumpFunMonitor),
		{name: "monitors", method: http.MethodGet, path: "/monitors", root: true, free: true, params: parseMonitorPage,
			serve: serveMonitors},
		byID("monitor", http.MethodGet, serveMonitor),
		byID("monitor_update", http.MethodPatch, serveMonitorUpdate),
		byID("monitor_delete", http.MethodDelete, serveMonitorDelete),
		{name: "user_webhook", method: http.MethodPost, path: "/user/webhook", bare: true, free: true, body: bodyObject,
			serve: serveUserWebhook},
	}
}

const success = "success"

// newMonitor is a monitor as the hosted API answers it, with roost's
// status (active, or paused while the key's balance does not cover an
// event).
func newMonitor(m *monitor.Monitor) wire.Monitor {
	o := wire.Monitor{ID: m.ID, CreatedAt: wire.Time{Time: m.CreatedAt}, MonitorType: m.Kind, WebhookURL: m.WebhookURL,
		Parameters: map[string]string{}, Status: m.State}
	json.Unmarshal(m.Params, &o.Parameters) //nolint:errcheck // stored by this package
	if m.Kind == monitor.SearchQuery {
		o.RefreshFrequency = strconv.Itoa(m.Refresh)
	}
	return o
}

// monitors is the server's monitor service, or a 503 when it has none.
func (s *server) monitors() (*monitor.Service, error) {
	if s.mon == nil {
		return nil, &apiError{status: http.StatusServiceUnavailable, message: "Monitors are not available on this server"}
	}
	return s.mon, nil
}

// monitorAnswer maps the service's errors to answers.
func monitorAnswer(err error) error {
	var inv *monitor.Invalid
	switch {
	case errors.As(err, &inv):
		return invalid(inv.Param, inv.Problem)
	case errors.Is(err, social.ErrNotFound):
		return notFound(msgMonitorNotFound)
	}
	return err
}

// optURL reads an optional URL field: absent or null is nil, a string
// (empty: nil) is the URL.
func optURL(a *args, field string) (*string, error) {
	raw, ok := a.fields[field]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var u string
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, invalid(field, "must be a string or null")
	}
	if u = strings.TrimSpace(u); u == "" {
		return nil, nil
	}
	return &u, nil
}

// creator makes a monitor of a key with its webhook (nil: the key's).
type creator func(ctx context.Context, svc *monitor.Service, keyID int64, hook *string) (monitor.Monitor, error)

// serveCreate serves a monitor's creation: parse reads the route's own
// fields, then webhook_url is read and the monitor made.
func serveCreate(parse func(a *args) (creator, error)) func(context.Context, *server, *args) (any, int, error) {
	return func(ctx context.Context, s *server, a *args) (any, int, error) {
		svc, err := s.monitors()
		if err != nil {
			return nil, 0, err
		}
		create, err := parse(a)
		if err != nil {
			return nil, 0, err
		}
		hook, err := optURL(a, "webhook_url")
		if err != nil {
			return nil, 0, err
		}
		m, err := create(ctx, svc, a.key.ID, hook)
		if err != nil {
			return nil, 0, monitorAnswer(err)
		}
		return wire.MonitorBody{Status: success, Data: newMonitor(&m)}, 0, nil
	}
}

// parseUserMonitor reads user_id (a number or digits) or user_screen_name.
func parseUserMonitor(kind string) func(a *args) (creator, error) {
	return func(a *args) (creator, error) {
		var t monitor.Target
		if raw, ok := a.fields["user_id"]; ok && string(raw) != "null" {
			var v any
			if err := strictUnmarshal(raw, &v); err != nil {
				return nil, invalid("user_id", "must be a user id")
			}
			id, err := parseID(fmt.Sprint(v))
			if err != nil {
				return nil, invalid("user_id", err.Error())
			}
			t.UserID = id
		} else if raw, ok := a.fields["user_screen_name"]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &t.ScreenName); err != nil || strings.TrimPrefix(t.ScreenName, "@") == "" {
				return nil, invalid("user_screen_name", "must be a screen name")
			}
			t.ScreenName = strings.TrimPrefix(t.ScreenName, "@")
		} else {
			return nil, invalid("user_id", "or user_screen_name is required")
		}
		return func(ctx context.Context, svc *monitor.Service, keyID int64, hook *string) (monitor.Monitor, error) {
			return svc.CreateUser(ctx, keyID, kind, t, hook)
		}, nil
	}
}

// parseSearchMonitor reads query and refresh_frequency (a number or digits).
func parseSearchMonitor(a *args) (creator, error) {
	var query string
	if raw, ok := a.fields["query"]; !ok || json.Unmarshal(raw, &query) != nil || strings.TrimSpace(query) == "" {
		return nil, invalid("query", "is required (a search)")
	}
	raw, ok := a.fields["refresh_frequency"]
	if !ok {
		return nil, invalid("refresh_frequency", "is required (seconds)")
	}
	refresh := -1
	var v any
	if err := strictUnmarshal(raw, &v); err == nil {
		if n, err := strconv.Atoi(fmt.Sprint(v)); err == nil {
			refresh = n
		}
	}
	query = strings.Join(strings.Fields(query), " ")
	return func(ctx context.Context, svc *monitor.Service, keyID int64, hook *string) (monitor.Monitor, error) {
		return svc.CreateSearch(ctx, keyID, query, refresh, hook)
	}, nil
}

func parsePumpFunMonitor(*args) (creator, error) {
	return func(ctx context.Context, svc *monitor.Service, keyID int64, hook *string) (monitor.Monitor, error) {
		return svc.CreatePumpFun(ctx, keyID, hook)
	}, nil
}

func parseMonitorPage(a *args, qs url.Values) error {
	a.monitorsPage = 1
	if p := qs.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1_000_000 {
			return invalid("page", "must be a page number from 1")
		}
		a.monitorsPage = n
	}
	return nil
}

func serveMonitors(ctx context.Context, s *server, a *args) (any, int, error) {
	svc, err := s.monitors()
	if err != nil {
		return nil, 0, err
	}
	ms, total, last, err := svc.List(ctx, a.key.ID, a.monitorsPage)
	if err != nil {
		return nil, 0, err
	}
	out := wire.MonitorsPage{Data: make([]wire.Monitor, 0, len(ms)), Meta: wire.MonitorsMeta{ItemsCount: total, LastPage: last, Page: a.monitorsPage}}
	for i := range ms {
		out.Data = append(out.Data, newMonitor(&ms[i]))
	}
	return out, 0, nil
}

func serveMonitor(ctx context.Context, s *server, a *args) (any, int, error) {
	svc, err := s.monitors()
	if err != nil {
		return nil, 0, err
	}
	m, err := svc.Get(ctx, a.key.ID, a.name)
	if err != nil {
		return nil, 0, monitorAnswer(err)
	}
	d, err := svc.Details(ctx, m.ID)
	if err != nil {
		return nil, 0, err
	}
	out := wire.MonitorDetails{Monitor: newMonitor(&m), Events: map[string]int64{}, Deliveries: []wire.Delivery{}}
	for _, st := range []string{monitor.EventPending, monitor.EventDelivered, monitor.EventDead, monitor.EventDropped} {
		out.Events[st] = d.Events[st]
	}
	for _, at := range d.Attempts {
		out.Deliveries = append(out.Deliveries, wire.Delivery{EventID: monitor.EventID(at.EventID), Attempt: at.Attempt,
			Status: at.Status, Error: at.Error, DurationMS: at.Duration.Milliseconds(), At: wire.Time{Time: at.At}})
	}
	return wire.MonitorDetailsBody{Status: success, Data: out}, 0, nil
}

func serveMonitorUpdate(ctx context.Context, s *server, a *args) (any, int, error) {
	svc, err := s.monitors()
	if err != nil {
		return nil, 0, err
	}
	if _, ok := a.fields["webhook_url"]; !ok {
		return nil, 0, invalid("webhook_url", "is required (a URL, or null to remove the monitor's own)")
	}
	hook, err := optURL(a, "webhook_url")
	if err != nil {
		return nil, 0, err
	}
	m, err := svc.SetWebhook(ctx, a.key.ID, a.name, hook)
	if err != nil {
		return nil, 0, monitorAnswer(err)
	}
	return wire.MonitorBody{Status: success, Data: newMonitor(&m)}, 0, nil
}

func serveMonitorDelete(ctx context.Context, s *server, a *args) (any, int, error) {
	svc, err := s.monitors()
	if err != nil {
		return nil, 0, err
	}
	if err := svc.Delete(ctx, a.key.ID, a.name); err != nil {
		return nil, 0, monitorAnswer(err)
	}
	return wire.StatusBody{Status: success}, 0, nil
}

func serveUserWebhook(ctx context.Context, s *server, a *args) (any, int, error) {
	svc, err := s.monitors()
	if err != nil {
		return nil, 0, err
	}
	if _, ok := a.fields["url"]; !ok {
		return nil, 0, invalid("url", "is required (a URL, or null to remove the default webhook)")
	}
	hook, err := optURL(a, "url")
	if err != nil {
		return nil, 0, err
	}
	secret, err := svc.SetDefaultWebhook(ctx, a.key.ID, hook)
	if err != nil {
		return nil, 0, monitorAnswer(err)
	}
	return wire.Webhook{Status: success, Message: "Webhook URL updated", SigningSecret: secret}, 0, nil
}

// eventRenderer renders monitor events' data as the API's details of a
// post and a user.
type eventRenderer struct{ store social.Reader }

// NewRenderer renders monitor events from store as this API shapes posts
// (the tweet details) and users (the user details).
func NewRenderer(store social.Reader) monitor.Renderer { return eventRenderer{store} }

func (r eventRenderer) Posts(ctx context.Context, ids []int64) (map[int64][]byte, error) {
	out := map[int64][]byte{}
	if len(ids) == 0 {
		return out, nil
	}
	posts, err := r.store.Posts(ctx, ids)
	if err != nil {
		return nil, err
	}
	views, err := social.Hydrate(ctx, r.store, posts)
	if err != nil {
		return nil, err
	}
	for i := range views {
		b, err := jsonenc.Marshal(newFullPost(&views[i]))
		if err != nil {
			return nil, err
		}
		out[views[i].Post.ID] = b
	}
	return out, nil
}

func (r eventRenderer) User(u *social.User) []byte {
	b, _ := jsonenc.Marshal(newProfile(u, true)) // a profile always encodes
	return b
}

// monitorRequest is the schema of a monitoring route's JSON body.
func monitorRequest(name string) *schema {
	url := func(desc string) *schema {
		return &schema{Type: []string{"string", "null"}, Description: desc, MaxLength: intp(2048)}
	}
	hook := url("the monitor's own webhook URL (http or https), over the key's default")
	obj := func(required []string, props map[string]*schema) *schema {
		return &schema{Type: "object", Required: required, Order: sortedKeys(props), Properties: props}
	}
	user := map[string]*schema{
		"user_id": {AnyOf: []*schema{{Type: "integer", Format: "int64"}, {Type: "string", Pattern: "^[0-9]+$"}},
			Description: "the user's id; required without user_screen_name"},
		"user_screen_name": {Type: "string", Description: "the user's screen name; required without user_id"},
		"webhook_url":      hook,
	}
	switch name {
	case "monitor_search_query":
		return obj([]string{"query", "refresh_frequency"}, map[string]*schema{
			"query": {Type: "string", Description: "a search (the operators of GET /search)"},
			"refresh_frequency": {AnyOf: []*schema{{Type: "integer", Minimum: intp(1), Maximum: intp(monitor.MaxRefresh)},
				{Type: "string", Pattern: "^[0-9]+$"}}, Description: "seconds between runs, 1 to 3600"},
			"webhook_url": hook})
	case "monitor_search_pump_fun":
		return obj(nil, map[string]*schema{"webhook_url": hook})
	case "monitor_update":
		return obj([]string{"webhook_url"}, map[string]*schema{"webhook_url": url("the monitor's own webhook URL; null or empty removes it")})
	case "user_webhook":
		return obj([]string{"url"}, map[string]*schema{"url": url("the key's default webhook URL; null or empty removes it")})
	}
	return obj(nil, user)
}
