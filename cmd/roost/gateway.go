package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/billing"
	"github.com/roostapi/roost/internal/gateway"
)

// upstreamKeyEnv names the environment variable of the upstream key.
const upstreamKeyEnv = "ROOST_UPSTREAM_KEY"

// gatewayFlags are serve's gateway flags.
type gatewayFlags struct {
	url     *string
	keyFile *string
	price   usdFlag
	limits  []gateway.Limit
	fresh   map[string]time.Duration
	timeout *time.Duration
	maxAge  *time.Duration
}

func addGatewayFlags(fs *flag.FlagSet) *gatewayFlags {
	g := &gatewayFlags{price: usdFlag{micros: gateway.DefaultPrice, set: true}, fresh: map[string]time.Duration{}}
	g.url = fs.String("upstream", "", "gateway mode: answer every data route from a page cache in the database, else from the roost-compatible API at this URL "+
		"(e.g. the hosted service or another roost), under its key; cursors are upstream's; fetched posts and users are stored, "+
		"and by-id reads answer from them while fresh, asking upstream once for the rest; "+
		"your users keep their own keys, balances, rate limits and ledger and pay --price per item as without it; "+
		"upstream failures (after the client's retries) are 500 and free, upstream's 402 is the shared budget spent, its 404/403/422 are passed on, free; "+
		"every request is logged with its upstream cost in the upstream_ledger table")
	g.keyFile = fs.String("upstream-key-file", "", "file holding the upstream API key (else the "+upstreamKeyEnv+" environment variable; never a flag value)")
	fs.Var(&g.price, "upstream-price", "what upstream bills per returned item, in USD, for the upstream ledger and budget (a cache hit costs nothing)")
	fs.Func("upstream-budget", "shared upstream budget in USD, e.g. 100 (in total) or 10/day (per UTC day); repeatable, the smallest of each kind applies; "+
		"each call reserves its page size × --upstream-price in the database first (exact across replicas on one PostgreSQL); "+
		"past it, requests that need upstream get 402, cached pages still serve (default: unlimited)",
		func(v string) error {
			l, err := gateway.ParseLimit(v)
			if err == nil {
				g.limits = append(g.limits, l)
			}
			return err
		})
	fs.Func("fresh", "how long a cached page is served, and a stored post (tweet) or user (profile) answers a by-id read, by class: CLASS=DURATION,… over the defaults "+freshDefaults()+
		" (search: search, search-users; timeline: timelines, mentions, highlights, likes, threads, comments, quotes, list and community posts; "+
		"tweet: posts, tweets-by-ids; profile: profiles, users-by-*, extended bio; relations: followers, following, members, reposters, likers, checks; "+
		"lists: a list, a user's lists; spaces)",
		func(v string) error { return gateway.ParseFresh(v, g.fresh) })
	g.timeout = fs.Duration("upstream-timeout", gateway.DefaultHoldExpiry, "an upstream call, retries included, is given up after 9/10 of this; "+
		"a budget reservation older than this was left by a crash (or kill -9) between reserving and settling and is released, "+
		"at start-up and then at most once a minute (what such a cut-short call cost upstream, if anything, is not counted)")
	g.maxAge = fs.Duration("cache-max-age", defaultCacheMaxAge, "cached pages older than this are deleted, at start-up and then at most once a minute "+
		"(0: kept for ever; at least the longest --fresh)")
	return g
}

// defaultCacheMaxAge is --cache-max-age unless set.
const defaultCacheMaxAge = 24 * time.Hour

func freshDefaults() string {
	var parts []string
	for _, c := range []string{gateway.ClassSearch, gateway.ClassTimeline, gateway.ClassTweet, gateway.ClassProfile,
		gateway.ClassRelations, gateway.ClassLists, gateway.ClassSpaces} {
		parts = append(parts, c+"="+gateway.DefaultFresh[c].String())
	}
	return strings.Join(parts, ",")
}

// upstreamKey reads the upstream key from --upstream-key-file or the
// environment.
func (g *gatewayFlags) upstreamKey() (string, error) {
	if *g.keyFile != "" {
		b, err := os.ReadFile(*g.keyFile)
		if err != nil {
			return "", usageError("--upstream-key-file: %v", err)
		}
		if k := strings.TrimSpace(string(b)); k != "" {
			return k, nil
		}
		return "", usageError("--upstream-key-file %s is empty", *g.keyFile)
	}
	if k := strings.TrimSpace(os.Getenv(upstreamKeyEnv)); k != "" {
		return k, nil
	}
	return "", usageError("--upstream needs its key in --upstream-key-file or %s", upstreamKeyEnv)
}

// validate checks the flags before anything is opened.
func (g *gatewayFlags) validate() error {
	if *g.url == "" {
		if *g.keyFile != "" || len(g.limits) > 0 || len(g.fresh) > 0 {
			return usageError("--upstream-key-file, --upstream-budget and --fresh need --upstream")
		}
		return nil
	}
	if g.price.micros <= 0 {
		return usageError("--upstream-price must be more than 0")
	}
	if *g.timeout < 10*time.Second {
		return usageError("--upstream-timeout must be at least 10s")
	}
	if *g.maxAge < 0 {
		return usageError("--cache-max-age must not be negative")
	}
	longest, class := time.Duration(0), ""
	for _, c := range slices.Sorted(maps.Keys(gateway.DefaultFresh)) {
		d := gateway.DefaultFresh[c]
		if f, ok := g.fresh[c]; ok {
			d = f
		}
		if d > longest {
			longest, class = d, c
		}
	}
	if *g.maxAge > 0 && longest > *g.maxAge {
		return usageError("--cache-max-age %v is shorter than --fresh %s=%v: pages still fresh would be deleted", *g.maxAge, class, longest)
	}
	if _, err := client.New(*g.url, ""); err != nil {
		return usageError("--upstream: %v", err)
	}
	_, err := g.upstreamKey()
	return err
}

// build makes the gateway over s, or nil without --upstream.
func (g *gatewayFlags) build(s store, e *env, reg *prometheus.Registry) (*gateway.Gateway, error) {
	if *g.url == "" {
		return nil, nil
	}
	key, err := g.upstreamKey()
	if err != nil {
		return nil, err
	}
	c, err := client.New(*g.url, key)
	if err != nil {
		return nil, usageError("--upstream: %v", err)
	}
	gs := s.Gateway()
	return gateway.New(gateway.Config{Client: c, Store: gs, Writer: s, Reader: gs.Data, Price: g.price.micros,
		Limits: g.limits, Fresh: g.fresh, HoldExpiry: *g.timeout, CacheMaxAge: *g.maxAge, Log: e.log, Registry: reg}), nil
}

// describe is the startup line of gateway mode.
func (g *gatewayFlags) describe() string {
	budget := "no upstream budget"
	if len(g.limits) > 0 {
		var parts []string
		for _, l := range g.limits {
			p := billing.FormatUSD(l.Micros) + " USD"
			if l.Daily {
				p += "/day"
			}
			parts = append(parts, p)
		}
		budget = "upstream budget " + strings.Join(parts, ", ")
	}
	return fmt.Sprintf("gateway to %s at %s USD per item, %s", *g.url, billing.FormatUSD(g.price.micros), budget)
}
