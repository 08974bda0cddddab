package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/roostapi/roost/client"
)

// Walk every post a search matches. With Latest, SearchAll follows the
// cursors and, where a server stops giving them before the matches end
// (as the hosted service does), goes on with max_id: below the lowest id
// received, so no post comes twice.
func ExampleClient_SearchAll() {
	srv := startRoost(0) // a roost to talk to (see roost_test.go)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	n, first, last := 0, "", ""
	for t, err := range c.SearchAll(ctx, "#golang", client.Latest) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		if n == 0 {
			first = t.FullText
		}
		last = t.FullText
		n++
	}
	fmt.Println(n, "posts")
	fmt.Println("newest:", first)
	fmt.Println("oldest:", last)
	// Output:
	// 45 posts
	// newest: Day 44 of learning Go #golang
	// oldest: Day 0 of learning Go #golang #rust
}

// A spend budget stops a walk before the request that could cross it: the
// client reserves a page's most (20 items at 200 micro-USD) before asking.
func ExampleWithBudget() {
	srv := startRoost(0)
	defer srv.Close()
	// 10,000 micro-USD (0.01 USD) at the hosted price: two full pages,
	// and not a third.
	c, err := client.New(srv.URL, srv.Key, client.WithBudget(10_000, client.DefaultPrice))
	if err != nil {
		panic(err)
	}
	n := 0
	for _, err := range c.SearchAll(context.Background(), "#golang", client.Latest) {
		if errors.Is(err, client.ErrBudget) {
			fmt.Println("stopped:", err)
			break
		}
		if err != nil {
			panic(err)
		}
		n++
	}
	fmt.Printf("read %d posts for %d micro-USD\n", n, c.Spent())
	// Output:
	// stopped: client: the spend budget does not cover the next request
	// read 40 posts for 8000 micro-USD
}

// Non-2xx answers are *client.Error. 429 and 5xx are retried (Retry-After
// honoured) unless the retry policy says otherwise; here retries are off
// and the key may make one request a minute.
func ExampleError() {
	srv := startRoost(1)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key, client.WithRetry(client.Retry{}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 2 {
		_, err = c.UserByID(ctx, 1)
	}
	var ae *client.Error
	if errors.As(err, &ae) && ae.Status == 429 {
		fmt.Printf("%d %s: retry after %v (retryable: %v)\n", ae.Status, ae.Message, ae.RetryAfter, ae.Retryable())
	}
	// Output:
	// 429 Too many requests: retry after 1m0s (retryable: true)
}

// Count a query's matches by day: every day between the first and the
// last match, zeros included, one item per day billed.
func ExampleClient_Counts() {
	srv := startRoost(0)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key, client.WithPrefix("/social"))
	if err != nil {
		panic(err)
	}
	counts, err := c.Counts(context.Background(), "#rust", client.Day)
	if err != nil {
		panic(err)
	}
	for _, p := range counts.Data {
		fmt.Println(p.Start.Format("2006-01-02"), p.TweetCount)
	}
	fmt.Println("total", counts.Meta.TotalTweetCount)
	// Output:
	// 2024-05-01 4
	// 2024-05-02 4
	// 2024-05-03 4
	// 2024-05-04 3
	// total 15
}

// Rank the hashtags of a query's matches.
func ExampleClient_TopValues() {
	srv := startRoost(0)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key)
	if err != nil {
		panic(err)
	}
	top, err := c.TopValues(context.Background(), client.TopRequest{Query: "from:gopher", Field: client.TopHashtags, Limit: 5})
	if err != nil {
		panic(err)
	}
	for _, v := range top.Values {
		fmt.Println(v.Value, v.Count)
	}
	// Output:
	// #golang 45
	// #rust 15
}

// Export a query's matches as CSV, streamed: the file arrives as the
// server reads it. Read it to its end, then close it.
func ExampleClient_Export() {
	srv := startRoost(0)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key, client.WithBudget(1_000_000, 0))
	if err != nil {
		panic(err)
	}
	st, err := c.Export(context.Background(), client.ExportRequest{Query: "#rust", Format: client.ExportCSV, Limit: 100})
	if err != nil {
		panic(err)
	}
	defer st.Close()
	b, err := io.ReadAll(st)
	if err != nil {
		panic(err)
	}
	items, _ := st.Items()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	fmt.Println(st.Filename, len(lines)-1, "rows,", items, "items charged")
	fmt.Println(strings.Join(strings.Split(lines[0], ",")[:2], ","))
	fmt.Println("spent", c.Spent())
	// Output:
	// roost-export.csv 15 rows, 15 items charged
	// id,conversation_id
	// spent 3000
}

// Posts of an export come typed, oldest first, from ExportTweets.
func ExampleClient_ExportTweets() {
	srv := startRoost(0)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key)
	if err != nil {
		panic(err)
	}
	for t, err := range c.ExportTweets(context.Background(), "#rust", 3) {
		if err != nil {
			panic(err)
		}
		fmt.Println(t.TweetCreatedAt.Format("Jan 2 15:04"), t.User.ScreenName, t.FullText)
	}
	// Output:
	// May 1 00:00 gopher Day 0 of learning Go #golang #rust
	// May 1 06:00 gopher Day 3 of learning Go #golang #rust
	// May 1 12:00 gopher Day 6 of learning Go #golang #rust
}

// Monitors: make, list and delete them. Managing monitors is free; each
// event delivered to the webhook costs one item.
func ExampleClient_MonitorsAll() {
	srv := startRoost(0)
	defer srv.Close()
	c, err := client.New(srv.URL, srv.Key)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	hook := "http://127.0.0.1:9000/hook"
	if _, err := c.SetWebhook(ctx, &hook); err != nil {
		panic(err)
	}
	if _, err := c.CreateUserTweetsMonitor(ctx, client.UserMonitorRequest{UserScreenName: "gopher"}); err != nil {
		panic(err)
	}
	if _, err := c.CreateSearchMonitor(ctx, client.SearchMonitorRequest{Query: "#golang", RefreshFrequency: 60}); err != nil {
		panic(err)
	}
	var made, ids []string
	for m, err := range c.MonitorsAll(ctx) {
		if err != nil {
			panic(err)
		}
		made = append(made, m.MonitorType+" "+m.Parameters["user_screen_name"]+m.Parameters["query"]+" "+m.Status)
		ids = append(ids, m.ID)
	}
	slices.Sort(made) // listed by creation: two made in one millisecond come in either order
	fmt.Println(strings.Join(made, "\n"))
	// Delete after the walk: pages are numbered, so a deletion during it
	// would shift the monitors after it.
	for _, id := range ids {
		if err := c.DeleteMonitor(ctx, id); err != nil {
			panic(err)
		}
	}
	p, err := c.Monitors(ctx, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Meta.ItemsCount, "left")
	// Output:
	// search_keyword #golang active
	// user_tweets gopher active
	// 0 left
}
