package monitor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/storetest"
	"github.com/roostapi/roost/internal/store/storetest/engines"
)

// TestUnstorableText: the service refuses what search refuses, a NUL byte
// or invalid UTF-8 in a search monitor's query, a user monitor's screen
// name or a webhook URL, as Invalid naming the parameter, on both engines
// (PostgreSQL failed the screen name's lookup with SQLSTATE 22021), and
// stores nothing.
func TestUnstorableText(t *testing.T) {
	ctx := context.Background()
	for _, eng := range engines.All() {
		t.Run(eng.Name, func(t *testing.T) {
			st := eng.Open(t)
			t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			if _, err := st.Write(ctx, &social.Batch{Users: []social.User{{ID: 1, ScreenName: "abc", CreatedAt: t0}}}); err != nil {
				t.Fatal(err)
			}
			keyID := storetest.NewKey(t, st, "m", 1_000_000)
			svc := monitor.New(st.Monitors(), st, st, nil, monitor.Options{AllowPrivate: true, Now: func() time.Time { return t0 }}, nil)
			hook := func(u string) *string { return &u }
			for what, c := range map[string]struct {
				param  string
				create func() (monitor.Monitor, error)
			}{
				"NUL in a screen name": {"user_screen_name", func() (monitor.Monitor, error) {
					return svc.CreateUser(ctx, keyID, monitor.UserTweets, monitor.Target{ScreenName: "ab\x00c"}, nil)
				}},
				"invalid UTF-8 in a screen name": {"user_screen_name", func() (monitor.Monitor, error) {
					return svc.CreateUser(ctx, keyID, monitor.UserProfile, monitor.Target{ScreenName: "ab\xffc"}, nil)
				}},
				"NUL in url:": {"query", func() (monitor.Monitor, error) {
					return svc.CreateSearch(ctx, keyID, "url:abc\x00def", 60, nil)
				}},
				"NUL between words": {"query", func() (monitor.Monitor, error) {
					return svc.CreateSearch(ctx, keyID, "a\x00b", 60, nil)
				}},
				"invalid UTF-8 in a query": {"query", func() (monitor.Monitor, error) {
					return svc.CreateSearch(ctx, keyID, "from:abc \xff", 60, nil)
				}},
				"invalid UTF-8 in a webhook": {"webhook_url", func() (monitor.Monitor, error) {
					return svc.CreateSearch(ctx, keyID, "golang", 60, hook("http://127.0.0.1/\xff"))
				}},
				"NUL in a webhook": {"webhook_url", func() (monitor.Monitor, error) {
					return svc.CreateUser(ctx, keyID, monitor.UserTweets, monitor.Target{ScreenName: "abc"}, hook("http://127.0.0.1/a\x00"))
				}},
			} {
				_, err := c.create()
				var inv *monitor.Invalid
				if !errors.As(err, &inv) || inv.Param != c.param {
					t.Errorf("%s: %v, want Invalid %s", what, err, c.param)
				}
			}
			if _, err := svc.SetDefaultWebhook(ctx, keyID, hook("http://127.0.0.1/\xff")); err == nil {
				t.Errorf("a default webhook with invalid UTF-8 was accepted")
			}
			if ms, total, _, err := svc.List(ctx, keyID, 1); err != nil || total != 0 || len(ms) != 0 {
				t.Errorf("monitors stored: %d, %v", total, err)
			}
		})
	}
}
