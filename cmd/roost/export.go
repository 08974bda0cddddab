package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/roostapi/roost/internal/api/httpapi"
	"github.com/roostapi/roost/internal/research/export"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "export --db DB [--format csv|jsonl|ids|v1|v2] [--out FILE] [--limit N] QUERY")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	format := fs.String("format", export.FormatCSV, "csv (twarc-csv columns), jsonl (roost's post shape), ids, v1 (API v1.1) or v2 (API v2 pages)")
	out := fs.String("out", "", "file to write (default: standard output); written whole or not at all")
	limit := fs.Int64("limit", 0, "stop after this many posts (default: all)")
	flags := fs.Usage
	fs.Usage = func() {
		flags()
		fmt.Fprint(e.stdout, exportNote)
	}
	text, err := queryArgs(fs, args)
	if err != nil {
		return err
	}
	if !slices.Contains(export.Formats(), *format) {
		return usageError("--format must be one of %s", strings.Join(export.Formats(), ", "))
	}
	if *limit < 0 {
		return usageError("--limit must not be negative")
	}
	s, q, err := researchStore(ctx, e, *db, text)
	if err != nil {
		return err
	}
	defer s.Close()
	return toFile(e.stdout, *out, func(w io.Writer) error {
		xw, err := export.NewWriter(*format, w, httpapi.FullPost)
		if err != nil {
			return err
		}
		bar, err := exportBar(ctx, e, s, q, *limit)
		if err != nil {
			return err
		}
		n, err := export.Posts(ctx, s, q, xw, export.Options{Progress: bar.Set, Limit: *limit})
		if err != nil {
			return err
		}
		if err := xw.Close(); err != nil {
			return err
		}
		bar.Finish()
		fmt.Fprintf(e.stderr, "exported %d posts\n", n)
		return nil
	})
}

// exportNote ends roost export --help.
const exportNote = `
QUERY is a search query, as /social/search takes it; native reposts match
only with include:nativeretweets. The query include:nativeretweets alone
matches every post the database holds, reposts included: it exports the
whole database, streamed (memory stays flat however many posts).

Progress goes to standard error: a bar on a terminal (the matches are
counted first), elsewhere a line every 5 seconds ("exporting: N posts (R/s)").
`

// exportBar is the progress of an export on standard error: on a terminal
// a bar over the number of matches (counted first), elsewhere a line every
// few seconds.
func exportBar(ctx context.Context, e *env, s social.Store, q *search.Query, limit int64) (progress, error) {
	var total int64
	if isTerminal(e.stderr) {
		buckets, err := s.SearchCounts(ctx, q, social.Day)
		if err != nil {
			return nil, err
		}
		for _, b := range buckets {
			total += b.Count
		}
		if limit > 0 {
			total = min(total, limit)
		}
	}
	return newBar(e, "exporting", total, "posts"), nil
}

// toFile runs write on path (standard output when ""): a file is written
// beside its final name and renamed into place only when write succeeds,
// so a failed run never leaves a file that looks complete.
func toFile(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
