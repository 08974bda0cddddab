package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strconv"

	"github.com/roostapi/roost/client/wire"
)

// The monitoring endpoints, called at the root as the hosted service's SDK
// calls them (roost answers there and under the prefixes). They are free:
// the server charges each webhook event it delivers, not these calls.

// Monitor types, as Monitor.MonitorType names them.
const (
	MonitorUserTweets    = "user_tweets"
	MonitorUserFollowing = "user_following"
	MonitorUserProfile   = "user_profile"
	MonitorSearchQuery   = "search_keyword"
	MonitorSearchPumpFun = "search_pump_fun"
)

// Monitor states, as Monitor.Status names them.
const (
	MonitorActive = "active"
	MonitorPaused = "paused" // the key's balance does not cover an event
)

// UserMonitorRequest names the user a user monitor watches: by UserID,
// else by UserScreenName.
type UserMonitorRequest struct {
	UserID         int64  `json:"user_id,omitempty,string"`
	UserScreenName string `json:"user_screen_name,omitempty"`
	// WebhookURL is the monitor's own webhook (nil: the key's default).
	WebhookURL *string `json:"webhook_url,omitempty"`
}

// SearchMonitorRequest is a search monitor: every RefreshFrequency seconds
// (1 to 3600) Query runs over the posts newer than the last run.
type SearchMonitorRequest struct {
	Query            string `json:"query"`
	RefreshFrequency int    `json:"refresh_frequency"`
	// WebhookURL is the monitor's own webhook (nil: the key's default).
	WebhookURL *string `json:"webhook_url,omitempty"`
}

// monitorCall calls a monitoring endpoint and decodes its answer into out.
func monitorCall[T any](ctx context.Context, c *Client, req request, out *T) error {
	return c.call(ctx, req, func(b []byte) (int, error) { return 0, json.Unmarshal(b, out) })
}

// createMonitor posts a creation: only a 429 is tried again, so that a
// lost answer never makes a second monitor.
func (c *Client) createMonitor(ctx context.Context, path string, body any) (Monitor, error) {
	var out wire.MonitorBody
	err := monitorCall(ctx, c, request{method: "POST", path: "/monitors/" + path, body: body, once: true}, &out)
	return out.Data, err
}

// CreateUserTweetsMonitor watches a user's new posts (POST
// /monitors/user-tweets); a protected user is refused (422).
func (c *Client) CreateUserTweetsMonitor(ctx context.Context, r UserMonitorRequest) (Monitor, error) {
	return c.createMonitor(ctx, "user-tweets", r)
}

// CreateUserFollowingMonitor watches the accounts a user starts to follow
// (POST /monitors/user-following).
func (c *Client) CreateUserFollowingMonitor(ctx context.Context, r UserMonitorRequest) (Monitor, error) {
	return c.createMonitor(ctx, "user-following", r)
}

// CreateUserProfileMonitor watches changes of a user's profile (POST
// /monitors/user-profile).
func (c *Client) CreateUserProfileMonitor(ctx context.Context, r UserMonitorRequest) (Monitor, error) {
	return c.createMonitor(ctx, "user-profile", r)
}

// CreateSearchMonitor runs a search periodically over the new posts (POST
// /monitors/search-query).
func (c *Client) CreateSearchMonitor(ctx context.Context, r SearchMonitorRequest) (Monitor, error) {
	return c.createMonitor(ctx, "search-query", r)
}

// CreatePumpFunMonitor watches posts linking to pump.fun by authors of at
// least 1,000 followers (POST /monitors/search-pump-fun); webhookURL nil is
// the key's default webhook.
func (c *Client) CreatePumpFunMonitor(ctx context.Context, webhookURL *string) (Monitor, error) {
	return c.createMonitor(ctx, "search-pump-fun", struct {
		WebhookURL *string `json:"webhook_url,omitempty"`
	}{webhookURL})
}

// Monitors is one page (from 1) of the key's monitors, 50 a page.
func (c *Client) Monitors(ctx context.Context, page int) (MonitorsPage, error) {
	var out MonitorsPage
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	err := monitorCall(ctx, c, request{method: "GET", path: "/monitors", query: q}, &out)
	return out, err
}

// MonitorsAll iterates over the key's monitors, page after page until the
// last. Pages are numbered, not keyed: a monitor made or deleted during
// the walk can shift the others by one across a page boundary.
func (c *Client) MonitorsAll(ctx context.Context) iter.Seq2[Monitor, error] {
	return func(yield func(Monitor, error) bool) {
		for page := 1; ; page++ {
			p, err := c.Monitors(ctx, page)
			if err != nil {
				yield(Monitor{}, err)
				return
			}
			for _, m := range p.Data {
				if !yield(m, nil) {
					return
				}
			}
			if len(p.Data) == 0 || page >= p.Meta.LastPage {
				return
			}
		}
	}
}

// Monitor is one of the key's monitors with its events and last delivery
// attempts; another key's monitor is 404.
func (c *Client) Monitor(ctx context.Context, monitorID string) (MonitorDetails, error) {
	var out wire.MonitorDetailsBody
	err := monitorCall(ctx, c, request{method: "GET", path: "/monitors/" + url.PathEscape(monitorID)}, &out)
	return out.Data, err
}

// SetMonitorWebhook sets a monitor's own webhook (PATCH
// /monitors/{id}); nil removes it, so that the key's default applies.
func (c *Client) SetMonitorWebhook(ctx context.Context, monitorID string, webhookURL *string) (Monitor, error) {
	var out wire.MonitorBody
	body := struct {
		WebhookURL *string `json:"webhook_url"`
	}{webhookURL}
	err := monitorCall(ctx, c, request{method: "PATCH", path: "/monitors/" + url.PathEscape(monitorID), body: body}, &out)
	return out.Data, err
}

// DeleteMonitor deletes one of the key's monitors, its pending events and
// its log. Only a 429 is tried again (a second try of a delete that was
// done would answer 404).
func (c *Client) DeleteMonitor(ctx context.Context, monitorID string) error {
	var out struct{}
	return monitorCall(ctx, c, request{method: "DELETE", path: "/monitors/" + url.PathEscape(monitorID), once: true}, &out)
}

// SetWebhook sets the key's default webhook (POST /user/webhook), which a
// monitor's own overrides; nil removes it. The answer carries the key's
// signing secret.
func (c *Client) SetWebhook(ctx context.Context, webhookURL *string) (Webhook, error) {
	var out Webhook
	body := struct {
		URL *string `json:"url"`
	}{webhookURL}
	err := monitorCall(ctx, c, request{method: "POST", path: "/user/webhook", body: body}, &out)
	return out, err
}
