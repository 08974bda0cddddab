package gateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Classes of routes, each with its own freshness.
const (
	ClassSearch    = "search"    // search, search-users
	ClassTimeline  = "timeline"  // timelines, mentions, highlights, likes, threads, comments, quotes, list and community posts
	ClassTweet     = "tweet"     // single posts and tweets-by-ids
	ClassProfile   = "profile"   // profiles, users-by-*, extended bio
	ClassRelations = "relations" // followers, following, reposters, likers, members, affiliates, checks
	ClassLists     = "lists"     // a list, a user's lists
	ClassSpaces    = "spaces"    // audio spaces
)

// DefaultFresh is how long a cached page of each class is served.
var DefaultFresh = map[string]time.Duration{
	ClassSearch:    time.Minute,
	ClassTimeline:  5 * time.Minute,
	ClassTweet:     10 * time.Minute,
	ClassProfile:   time.Hour,
	ClassRelations: time.Hour,
	ClassLists:     time.Hour,
	ClassSpaces:    time.Minute,
}

// routeClass is the class of each data route of httpapi.
var routeClass = map[string]string{
	"search": ClassSearch, "search_users": ClassSearch,

	"user_tweets": ClassTimeline, "user_tweets_and_replies": ClassTimeline, "community_tweets": ClassTimeline,
	"list_tweets": ClassTimeline, "thread": ClassTimeline, "mentions": ClassTimeline, "highlights": ClassTimeline,
	"tweet_comments": ClassTimeline, "tweet_quotes": ClassTimeline, "user_likes": ClassTimeline,

	"tweets_by_ids": ClassTweet, "tweet": ClassTweet, "statuses_show": ClassTweet,

	"users_by_usernames": ClassProfile, "users_by_ids": ClassProfile, "user": ClassProfile, "extended_bio": ClassProfile,

	"retweeted_by": ClassRelations, "affiliates": ClassRelations, "verified_followers": ClassRelations,
	"following": ClassRelations, "followers": ClassRelations, "followers_list": ClassRelations,
	"friends_list": ClassRelations, "community_members": ClassRelations, "list_members": ClassRelations,
	"liking_users": ClassRelations, "commented_by": ClassRelations, "retweeted_by_user": ClassRelations,
	"following_user": ClassRelations,

	"user_lists": ClassLists, "list": ClassLists,

	"space": ClassSpaces,
}

// Class is the class of a route; a route not named above is a timeline.
func Class(route string) string {
	if c, ok := routeClass[route]; ok {
		return c
	}
	return ClassTimeline
}

// ParseFresh reads "search=60s,timeline=5m,…" over the defaults.
func ParseFresh(s string, into map[string]time.Duration) error {
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, ok := strings.Cut(part, "=")
		if _, known := DefaultFresh[name]; !ok || !known {
			return fmt.Errorf("%q: want CLASS=DURATION, CLASS one of %s", part, strings.Join(slices.Sorted(maps.Keys(DefaultFresh)), ", "))
		}
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return fmt.Errorf("%q: %s is not a duration of 0 or more (e.g. 90s, 5m, 1h)", part, val)
		}
		into[name] = d
	}
	return nil
}
