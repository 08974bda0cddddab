package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/world/fixture"
	"github.com/roostapi/roost/internal/world/gen"
)

func cmdSeed(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "seed", "seed --db DB [--now TIME] FILE...")
	db := fs.String("db", "", "database to write into: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	now := nowFlag(fs)
	fs.Usage = seedUsage(e, fs.Usage)
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	if fs.NArg() == 0 {
		return usageError("no fixture files to seed")
	}
	clock, err := now()
	if err != nil {
		return err
	}
	files, err := fixture.ReadFiles(fs.Args(), clock)
	if err != nil {
		return err
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	res, b, err := fixture.Seed(ctx, s.World(), s, files)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stderr, seeded(b))
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// nowFlag defines --now, the clock of fixtures that name none; the
// function it returns reads it.
func nowFlag(fs interface {
	String(name, value, usage string) *string
}) func() (time.Time, error) {
	v := fs.String("now", "", "clock that relative times (\"-2h\") and left-out times count back from, in fixtures without "+
		"their own \"now\": an RFC 3339 time, or \"wall\" for the current time (default "+fixture.DefaultNow.Format(time.RFC3339)+")")
	return func() (time.Time, error) {
		switch *v {
		case "":
			return fixture.DefaultNow, nil
		case "wall":
			return time.Now().UTC(), nil
		}
		t, err := time.Parse(time.RFC3339Nano, *v)
		if err != nil {
			return t, usageError("--now %q: want an RFC 3339 time or wall", *v)
		}
		return t.UTC(), nil
	}
}

// seeded says what a fixture wrote.
func seeded(b *social.Batch) string {
	return fmt.Sprintf("seeded %d users, %d posts, %d follows, %d likes, %d lists, %d communities and %d spaces in one transaction",
		len(b.Users), len(b.Posts), len(b.Follows), len(b.Likes), len(b.Lists), len(b.Communities), len(b.Spaces))
}

// fixtureExamples are the demo's curl lines for a world of fixtures: its
// first public user, post, thread, list and community.
func fixtureExamples(b *social.Batch) *gen.Examples {
	ex := &gen.Examples{}
	for _, u := range b.Users {
		switch {
		case u.Protected && ex.ProtectedUserID == 0:
			ex.ProtectedUserID = u.ID
		case !u.Protected && ex.UserID == 0:
			ex.UserID, ex.Username = u.ID, u.ScreenName
		}
	}
	for _, p := range b.Posts {
		if ex.PostID == 0 && !p.IsRepost() {
			ex.PostID = p.ID
		}
		if ex.ThreadID == 0 && p.IsReply() {
			ex.ThreadID = p.ConversationID
		}
	}
	if len(b.Lists) > 0 {
		ex.ListID, ex.ListsUserID = b.Lists[0].ID, b.Lists[0].OwnerID
	}
	if len(b.Communities) > 0 {
		ex.CommunityID = b.Communities[0].ID
	}
	return ex
}

// seedUsage adds what a fixture is to the flags' usage.
func seedUsage(e *env, flags func()) func() {
	return func() {
		flags()
		fmt.Fprint(e.stdout, `
Writes fixtures, worlds written by hand in JSON (YAML for .yaml and .yml),
into the database in one transaction: all of the files or, when any
problem is found, nothing; each problem is named with its file and JSON
path. The files share their names (screen names, refs), and refer to the
database's users and posts too. Prints the ids given, by name, as JSON.
The format, with a full example: docs/testing.md.
`)
	}
}
