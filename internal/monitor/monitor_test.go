package monitor

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestPrivateTargets: without AllowPrivate a private or loopback webhook
// is refused at registration and at connection time (a name that resolved
// elsewhere at registration cannot reach one); with it, both pass.
func TestPrivateTargets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	shared := &Service{opt: Options{}}
	ctx := context.Background()
	for _, u := range []string{srv.URL, "http://10.1.2.3/x", "http://[::1]:80/", "http://169.254.169.254/latest",
		"http://100.64.0.1/", "https://localhost/"} {
		err := shared.checkWebhook(ctx, "url", &u)
		var inv *Invalid
		if !errors.As(err, &inv) {
			t.Errorf("%s accepted on a shared deployment (%v)", u, err)
		}
	}
	for _, u := range []string{"ftp://example.com/", "http:///x", "example.com", "http://u:p@example.com/"} {
		if err := shared.checkWebhook(ctx, "url", &u); err == nil {
			t.Errorf("%s accepted", u)
		}
	}
	if _, err := newClient(Options{Timeout: time.Second}).Post(srv.URL, "application/json", strings.NewReader("{}")); !errors.Is(err, errPrivate) {
		t.Errorf("dial to a loopback address: %v, want refused", err)
	}
	local := &Service{opt: Options{AllowPrivate: true}}
	if err := local.checkWebhook(ctx, "url", &srv.URL); err != nil {
		t.Errorf("a local twin refused %s: %v", srv.URL, err)
	}
	resp, err := newClient(Options{AllowPrivate: true, Timeout: time.Second}).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("a local twin could not call %s: %v", srv.URL, err)
	}
	resp.Body.Close()
}

// TestBackoff: the wait doubles per failure, between half and all of the
// doubled value, and stops growing at MaxBackoff.
func TestBackoff(t *testing.T) {
	s := &Service{opt: Options{Backoff: time.Second, MaxBackoff: time.Minute}}
	for n := 1; n <= 60; n++ {
		full := min(time.Second<<min(n-1, 30), time.Minute)
		for range 20 {
			if d := s.backoff(n); d < full/2 || d > full {
				t.Fatalf("failure %d waits %v, want %v to %v", n, d, full/2, full)
			}
		}
	}
}

// TestNextRun: a search monitor's runs keep their period however late
// each starts; one a whole refresh behind runs a refresh after now.
func TestNextRun(t *testing.T) {
	due := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := Monitor{Refresh: 5, NextRunAt: due}
	for _, c := range []struct {
		late time.Duration
		want time.Time
	}{
		{0, due.Add(5 * time.Second)},
		{80 * time.Millisecond, due.Add(5 * time.Second)},
		{4999 * time.Millisecond, due.Add(5 * time.Second)},
		{5 * time.Second, due.Add(10 * time.Second)},
		{time.Hour, due.Add(time.Hour + 5*time.Second)},
	} {
		if got := nextRun(m, due.Add(c.late)); !got.Equal(c.want) {
			t.Errorf("ran %v late: next run %v, want %v", c.late, got, c.want)
		}
	}
}

// TestIDs: monitor ids are 26 lower-case characters that sort by creation.
func TestIDs(t *testing.T) {
	a := newID(time.UnixMilli(1_700_000_000_000))
	b := newID(time.UnixMilli(1_700_000_000_001))
	if !ValidID(a) || !ValidID(b) || a >= b {
		t.Errorf("ids %s, %s", a, b)
	}
	for _, bad := range []string{"", "01HX1R99S0NSQQ1FFDHMYYQBFR", "01hx1r99s0nsqq1ffdhmyyqbf", "01hx1r99s0nsqq1ffdhmyyqbf!"} {
		if ValidID(bad) {
			t.Errorf("%q is valid", bad)
		}
	}
}

// TestProfileChanges: only changed fields, with before and after.
func TestProfileChanges(t *testing.T) {
	if profileChanges([]byte(`{"name":"a","location":"x"}`), []byte(`{"name":"a","location":"x"}`)) != nil {
		t.Error("an unchanged profile changed")
	}
	got := string(profileChanges([]byte(`{"name":"a","location":"x"}`), []byte(`{"name":"a","location":"y"}`)))
	if got != `{"changes":{"location":{"before":"x","after":"y"}}}` {
		t.Errorf("changes %s", got)
	}
}
