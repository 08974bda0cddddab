package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"roost/billing"
	"roost/gen"
	"roost/httpapi"
	"roost/social"
)

// maxSearchTimeout leaves a stopped search time to be answered within the
// server's write timeout (60 s).
const maxSearchTimeout = 50 * time.Second

// demoCredit is the opening credit of the demo key: 100 USD.
const demoCredit = 100 * billing.MicrosPerUSD

func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", "serve [--db PATH|URL] [--addr HOST:PORT] [flags]")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	price := usdFlag{micros: billing.DefaultPrice, set: true}
	fs.Var(&price, "price", "price of one returned item in US dollars")
	rate := fs.Int("rate-limit", httpapi.DefaultRateLimit, "default requests per minute per key (a key's own limit wins)")
	demo := fs.Bool("demo", true, "fill an empty database with the demo network and create a demo key")
	searchTimeout := fs.Duration("search-timeout", httpapi.DefaultSearchTimeout,
		"longest work for one search page; a slower one is answered 422 Query too expensive (at most "+maxSearchTimeout.String()+")")
	var origins []string
	fs.Func("cors-origins", "comma-separated origins whose browser clients may call the API (* for any; default none)",
		func(v string) error {
			for _, o := range strings.Split(v, ",") {
				if o = strings.TrimSpace(o); o != "" {
					origins = append(origins, o)
				}
			}
			return nil
		})
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *searchTimeout <= 0 || *searchTimeout > maxSearchTimeout {
		return usageError("--search-timeout must be more than 0 and at most %v", maxSearchTimeout)
	}
	if price.micros <= 0 {
		return usageError("--price must be more than 0")
	}
	if *rate <= 0 {
		return usageError("--rate-limit must be more than 0")
	}
	// Listen first: a bad or busy address fails before the database is
	// created or any demo data generated.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	defer ln.Close()
	s, err := openStore(ctx, *db, e.log)
	if err != nil {
		return err
	}
	defer s.Close()
	var demoKey string
	var examples *gen.Examples
	if *demo {
		if demoKey, examples, err = fillDemo(ctx, e, s); err != nil {
			return err
		}
	}
	limiter, err := newLimiter(s)
	if err != nil {
		return err
	}
	h := httpapi.New(httpapi.Config{Price: price.micros, RateLimit: *rate, SearchTimeout: *searchTimeout,
		CORSOrigins: origins}, s, limiter, e.log)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(e.stderr, "roost serving %s on %s (search page: %s/ui)\n", *db, base, base)
	if demoKey != "" {
		printDemo(e, base, demoKey, examples)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(e.stderr, "roost stopped")
	return nil
}

// fillDemo fills a database that holds nothing at all (no users, posts or
// keys) with the demo network and a demo key. A database that holds
// anything is left as it is, and no key is made.
func fillDemo(ctx context.Context, e *env, s social.Store) (string, *gen.Examples, error) {
	counts, err := s.Counts(ctx)
	if err != nil {
		return "", nil, err
	}
	if counts["users"] > 0 || counts["posts"] > 0 || counts["api_keys"] > 0 {
		return "", nil, nil
	}
	fmt.Fprintln(e.stderr, "empty database: generating the demo network (roost gen defaults)")
	sum, err := generate(ctx, e, s, gen.DefaultConfig())
	if err != nil {
		return "", nil, err
	}
	key, _, err := createKey(ctx, s, "demo", demoCredit, 0)
	if err != nil {
		return "", nil, err
	}
	return key, &sum.Examples, nil
}

// printDemo shows the demo key and ready curl lines.
func printDemo(e *env, base, key string, ex *gen.Examples) {
	fmt.Fprintf(e.stderr, "\nDemo API key (shown once, %s USD of credit):\n\n  export KEY=%s\n\nTry:\n\n",
		billing.FormatUSD(demoCredit), key)
	line := func(path string, note ...string) {
		fmt.Fprintf(e.stderr, "  curl -H \"Authorization: Bearer $KEY\" '%s%s'", base, path)
		for _, n := range note {
			fmt.Fprintf(e.stderr, "   # %s", n)
		}
		fmt.Fprintln(e.stderr)
	}
	line("/user/balance")
	if ex == nil {
		return
	}
	if ex.Username != "" {
		line("/social/search?query=from:" + ex.Username)
		line("/social/user/" + ex.Username + "/mentions")
	}
	id := func(v int64) string { return fmt.Sprint(v) }
	if ex.UserID != 0 {
		line("/social/user/" + id(ex.UserID) + "/tweets")
		line("/twitter/user/" + id(ex.UserID) + "/following")
	}
	if ex.ListsUserID != 0 {
		line("/social/user/" + id(ex.ListsUserID) + "/lists")
	}
	if ex.ThreadID != 0 {
		line("/social/thread/" + id(ex.ThreadID))
	}
	if ex.PostID != 0 {
		line("/social/tweets/" + id(ex.PostID) + "/retweeted_by")
	}
	if ex.CommunityID != 0 {
		line("/social/community/" + id(ex.CommunityID) + "/tweets?type=Top")
	}
	if ex.ListID != 0 {
		line("/social/list/" + id(ex.ListID) + "/members")
	}
	if ex.OrganizationUserID != 0 {
		line("/social/user/" + id(ex.OrganizationUserID) + "/affiliates")
	}
	if ex.ProtectedUserID != 0 {
		line("/social/user/"+id(ex.ProtectedUserID)+"/tweets", "403: a protected profile")
	}
	if ex.ShadowBannedUsername != "" {
		line("/social/search?query=from:"+ex.ShadowBannedUsername, "shadow-banned: no results")
	}
	if ex.PostID != 0 {
		fmt.Fprintf(e.stderr, "  curl -H \"Authorization: Bearer $KEY\" -H 'Content-Type: application/json' -d '{\"ids\":[\"%d\"]}' '%s/social/tweets-by-ids'\n", ex.PostID, base)
	}
	fmt.Fprintln(e.stderr)
}
