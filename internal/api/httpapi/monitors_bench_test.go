package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/roostapi/roost/internal/monitor"
	"github.com/roostapi/roost/internal/social"
)

// BenchmarkMonitorLatency is the time from a write's commit to its
// webhook POST, with 1,000 user_tweets monitors (one per user) and the
// service running as roost serve runs it: each iteration writes 10 posts
// of 10 users and waits for their 10 events. It reports p50 and p99.
func BenchmarkMonitorLatency(b *testing.B) {
	eachEngineB(b, func(b *testing.B, eng engine) {
		const users = 1000
		ctx := context.Background()
		st := eng.open(b)
		t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		batch := &social.Batch{}
		for u := 1; u <= users; u++ {
			batch.Users = append(batch.Users, social.User{ID: int64(u), ScreenName: "u" + strconv.Itoa(u), CreatedAt: t0})
		}
		if _, err := st.Write(ctx, batch); err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		arrived := map[string]time.Time{}
		got := make(chan struct{}, 1024)
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var p struct {
				Data struct {
					IDStr string `json:"id_str"`
				} `json:"data"`
			}
			json.Unmarshal(body, &p)
			mu.Lock()
			arrived[p.Data.IDStr] = time.Now()
			mu.Unlock()
			got <- struct{}{}
		}))
		defer rc.Close()
		svc := newMonitors(st, monitor.Options{})
		_, id := (&env{store: st}).key(b, 1_000_000_000, 0)
		if _, err := svc.SetDefaultWebhook(ctx, id, &rc.URL); err != nil {
			b.Fatal(err)
		}
		for u := 1; u <= users; u++ {
			if _, err := svc.CreateUser(ctx, id, monitor.UserTweets, monitor.Target{UserID: int64(u)}, nil); err != nil {
				b.Fatal(err)
			}
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); svc.Run(runCtx) }()
		defer func() { stop(); <-done }()
		committed := map[string]time.Time{}
		next := int64(1)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			batch := &social.Batch{}
			for j := range 10 {
				batch.Posts = append(batch.Posts, social.Post{ID: next, AuthorID: int64((i*10+j)%users + 1), CreatedAt: t0,
					Text: "latency", Lang: "en"})
				next++
			}
			if _, err := st.Write(ctx, batch); err != nil {
				b.Fatal(err)
			}
			at := time.Now()
			for _, p := range batch.Posts {
				committed[strconv.FormatInt(p.ID, 10)] = at
			}
			for range 10 {
				select {
				case <-got:
				case <-time.After(30 * time.Second):
					b.Fatal("an event did not arrive")
				}
			}
		}
		b.StopTimer()
		mu.Lock()
		defer mu.Unlock()
		var lat []time.Duration
		for id, at := range committed {
			lat = append(lat, arrived[id].Sub(at))
		}
		slices.Sort(lat)
		if len(lat) == 0 {
			return
		}
		p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / float64(time.Millisecond) }
		b.ReportMetric(p(0.5), "p50-ms")
		b.ReportMetric(p(0.99), "p99-ms")
		b.ReportMetric(0, "ns/op")
	})
}
