package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/store/sqlite"
	"github.com/roostapi/roost/internal/textentity"
)

// The examples talk to a roost started in the test process over a small
// store (exampleWorld), as they would to any roost or to the hosted
// service. This file is the external test package's own: package client
// itself imports no server package (TestNoServerDependencies).

// exampleNow is the clock of the example servers: it stands still.
func exampleNow() time.Time { return time.Date(2024, 5, 5, 0, 0, 0, 0, time.UTC) }

// exampleServer is a roost over exampleWorld and one key of it.
type exampleServer struct {
	URL, Key string
	close    func()
}

// Close stops the server and removes its store.
func (s *exampleServer) Close() { s.close() }

// startRoost serves exampleWorld over a fresh SQLite store with a key of
// 100 USD whose rate limit is rateLimit requests a minute (0: the
// server's default). Its clock stands still at exampleNow.
func startRoost(rateLimit int) *exampleServer {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "roost-example-*")
	if err != nil {
		panic(err)
	}
	st, err := sqlite.Open(ctx, filepath.Join(dir, "roost.db"), nil)
	if err != nil {
		panic(err)
	}
	if _, err := st.Write(ctx, exampleWorld()); err != nil {
		panic(err)
	}
	key, digest, prefix := billing.NewKey()
	if _, err := st.CreateKey(ctx, social.APIKey{Name: "example", Prefix: prefix, Digest: digest, RateLimit: rateLimit,
		CreatedAt: exampleNow()}, 100_000_000); err != nil {
		panic(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Now: exampleNow, Monitors: exampleMonitors(st)}, st, nil, nil))
	return &exampleServer{URL: srv.URL, Key: key, close: func() {
		srv.Close()
		st.Close()
		os.RemoveAll(dir)
	}}
}

// exampleMonitors is the monitor service of an example server, over st's
// monitors: private webhook targets are allowed, and it is not run
// (nothing is dispatched or delivered).
func exampleMonitors(st *sqlite.Store) *monitor.Service {
	return monitor.New(st.Monitors(), st, st, httpapi.NewRenderer(st), monitor.Options{AllowPrivate: true, Now: exampleNow}, nil)
}

// exampleWorld is three users and 45 posts of gopher's, one every two
// hours from 2024-05-01, each tagged #golang and every third #rust too;
// ids are the snowflakes of their times.
func exampleWorld() *social.Batch {
	t0 := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	b := &social.Batch{Users: []social.User{
		{ID: 1, ScreenName: "gopher", Name: "The Gopher", CreatedAt: t0.AddDate(-1, 0, 0)},
		{ID: 2, ScreenName: "ferris", Name: "Ferris", CreatedAt: t0.AddDate(-1, 0, 0)},
		{ID: 3, ScreenName: "duke", Name: "Duke", CreatedAt: t0.AddDate(-1, 0, 0)},
	}}
	for i := range 45 {
		at := t0.Add(time.Duration(i) * 2 * time.Hour)
		text := fmt.Sprintf("Day %d of learning Go #golang", i)
		if i%3 == 0 {
			text += " #rust"
		}
		id := (at.UnixMilli()-1288834974657)<<22 | int64(i)
		b.Posts = append(b.Posts, social.Post{ID: id, AuthorID: 1, CreatedAt: at, Text: text, Lang: "en",
			ConversationID: id, Entities: textentity.Extract(text)})
	}
	return b
}
