package main

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

func cmdRedact(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "redact", "redact --db DB (--ids FILE | --users FILE)")
	db := fs.String("db", "", "database: SQLite file path or postgres:// URL (required)")
	tuningFlag(fs, e)
	ids := fs.String("ids", "", "file of post ids to delete, one a line (- for standard input)")
	users := fs.String("users", "", "file of user ids to delete, one a line (- for standard input)")
	flags := fs.Usage
	fs.Usage = func() {
		flags()
		fmt.Fprint(e.stdout, redactNote)
	}
	if err := parse(fs, args, false); err != nil {
		return err
	}
	if *db == "" {
		return usageError("--db is required")
	}
	file, kind := *ids, "posts"
	switch {
	case *ids != "" && *users != "":
		return usageError("--ids and --users are two runs: give one")
	case *users != "":
		file, kind = *users, "users"
	case *ids == "":
		return usageError("--ids FILE or --users FILE is required")
	}
	list, err := redactIDs(e, file)
	if err != nil {
		return err
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	var total social.WriteStats
	missing := 0
	for lo := 0; lo < len(list); lo += redactChunk {
		part := list[lo:min(lo+redactChunk, len(list))]
		stored, err := storedIDs(ctx, s, kind, part)
		if err != nil {
			return err
		}
		b := &social.Batch{DeletePosts: part}
		if kind == "users" {
			b = &social.Batch{DeleteUsers: part}
		}
		st, err := s.Write(ctx, b)
		if err != nil {
			return fmt.Errorf("redact: %w", err)
		}
		total.Add(st)
		for _, id := range part {
			state := "deleted"
			if !stored[id] {
				state, missing = "missing", missing+1
			}
			fmt.Fprintf(e.stdout, "%s\t%d\n", state, id)
		}
	}
	deleted, with := total.PostsDeleted, total.PostsDeletedWith
	if kind == "users" {
		deleted = total.UsersDeleted
	}
	fmt.Fprintf(e.stderr, "redact: %d %s deleted (and %d posts that went with them), %d missing; all %d tombstoned\n",
		deleted, kind, with, missing, len(list))
	return nil
}

// redactChunk is how many ids one transaction deletes.
const redactChunk = 500

// redactNote ends roost redact --help.
const redactNote = `
Deletes posts (--ids) or accounts (--users) as the network deletes them, so
that a database honours the deletions its data's terms require: every
reader, search, export and research endpoint leaves them out from then on.
A post goes with its native reposts, likes and highlights (and as a pinned
post); an account with all its posts, follows both ways, likes, reposts,
lists, memberships and spaces. The counts of the posts a deleted
post replied to, quoted or reposted (and an account liked) move.

Each id is printed with what was done: "deleted<TAB>ID" when it was stored,
"missing<TAB>ID" when not; a summary goes to standard error. Every id is
tombstoned, missing ones too: no later import, harvest, gateway fetch or
living world stores it again. Ids are read whole first (one a line, blank
lines and lines starting with # skipped, each id once; a line that is no
id stops the command before anything is deleted), then deleted 500 to a
transaction.
`

// redactIDs reads the ids of file (- for standard input; see readIDs),
// each once, in their order.
func redactIDs(e *env, file string) ([]int64, error) {
	var ids []int64
	var err error
	if file == "-" {
		ids, err = scanIDs(e.stdin, "standard input")
	} else {
		ids, err = readIDs(file)
	}
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(ids))
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// storedIDs are which of ids are stored posts or users.
func storedIDs(ctx context.Context, s social.Reader, kind string, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if kind == "users" {
		us, err := s.UsersByIDs(ctx, ids)
		for _, u := range us {
			out[u.ID] = true
		}
		return out, err
	}
	ps, err := s.Posts(ctx, ids)
	for _, p := range ps {
		out[p.ID] = true
	}
	return out, err
}
