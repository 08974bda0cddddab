package main

import (
	"context"
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// queryArgs parses flags and positional arguments in any order: the
// positional ones, joined by spaces, are the search query (after "--" a
// query may start with "-").
func queryArgs(fs *flag.FlagSet, args []string) (string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return "", err
			}
			return "", usageError("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			words = append(words, rest...)
			break
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
	text := strings.Join(words, " ")
	if strings.TrimSpace(text) == "" {
		return "", usageError("a search query is required")
	}
	return text, nil
}

// researchStore opens --db and parses the query as of now.
func researchStore(ctx context.Context, e *env, db, text string) (social.Store, *search.Query, error) {
	q, err := search.Parse(text, time.Now())
	if err != nil {
		return nil, nil, usageError("query: %v", err)
	}
	s, err := openStore(ctx, e, db)
	if err != nil {
		return nil, nil, err
	}
	return s, q, nil
}

func cmdCounts(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "counts", "counts --db DB [--granularity minute|hour|day] [--csv] QUERY")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	gran := fs.String("granularity", "day", "length of the periods: minute, hour or day (UTC)")
	asCSV := fs.Bool("csv", false, "write CSV (start, end, tweet_count) instead of JSON")
	text, err := queryArgs(fs, args)
	if err != nil {
		return err
	}
	g, err := social.ParseGranularity(*gran)
	if err != nil {
		return usageError("--granularity must be minute, hour or day")
	}
	s, q, err := researchStore(ctx, e, *db, text)
	if err != nil {
		return err
	}
	defer s.Close()
	buckets, err := s.SearchCounts(ctx, q, g)
	if err != nil {
		return err
	}
	c, err := export.NewCounts(buckets, q, g)
	if err != nil {
		return usageError("the query spans more than %d %s periods: bound it with since: and until: or use a coarser --granularity",
			export.MaxBuckets, g)
	}
	if *asCSV {
		return c.WriteCSV(e.stdout)
	}
	return c.WriteJSON(e.stdout)
}

func cmdTop(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "top", "top --db DB --field FIELD [--limit N] [--granularity minute|hour|day] [--csv] QUERY")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	field := fs.String("field", "hashtags", "what to rank: hashtags, cashtags, mentions, urls, domains, authors, lang, source, reply_to or quoted_users")
	limit := fs.Int("limit", 10, "how many values (of each period)")
	gran := fs.String("granularity", "", "rank within periods of this length: minute, hour or day (default: the whole set)")
	asCSV := fs.Bool("csv", false, "write CSV instead of JSON")
	text, err := queryArgs(fs, args)
	if err != nil {
		return err
	}
	f, err := social.ParseTopField(*field)
	if err != nil {
		return usageError("--field: %v", strings.TrimSuffix(err.Error(), ": "+social.ErrInvalid.Error()))
	}
	if *limit <= 0 {
		return usageError("--limit must be more than 0")
	}
	g := social.NoGranularity
	if *gran != "" {
		if g, err = social.ParseGranularity(*gran); err != nil {
			return usageError("--granularity must be minute, hour or day")
		}
	}
	s, q, err := researchStore(ctx, e, *db, text)
	if err != nil {
		return err
	}
	defer s.Close()
	periods, err := s.SearchTop(ctx, q, f, *limit, g)
	if err != nil {
		return err
	}
	t := export.NewTop(periods, f, g)
	if *asCSV {
		return t.WriteCSV(e.stdout, f.Users())
	}
	return t.WriteJSON(e.stdout)
}
