package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/roostapi/roost/internal/ingest/importer"
)

func cmdImport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "import", "import --db DB [flags] FILE...")
	db := fs.String("db", defaultDB, "database: SQLite file path or postgres:// URL")
	tuningFlag(fs, e)
	format := fs.String("format", "", "input format instead of detecting it: "+strings.Join(importer.Formats(), ", "))
	strict := fs.Bool("strict", false, "stop at the first malformed record and write nothing (checks every file first)")
	batch := fs.Int("batch", 2000, "posts per transaction")
	followersOf := fs.Int64("followers-of", 0, "user id whose followers a GraphQL Followers capture (or a follower.js without account.js) lists")
	followingOf := fs.Int64("following-of", 0, "user id whose followings a GraphQL Following capture (or a following.js without account.js) lists")
	repostersOf := fs.Int64("reposters-of", 0, "post id whose reposters a GraphQL Retweeters capture lists")
	membersOf := fs.Int64("list-members-of", 0, "list id whose members a GraphQL ListMembers capture lists")
	likersOf := fs.Int64("likers-of", 0, "post id whose likers a GraphQL Favoriters capture lists")
	likesOf := fs.Int64("likes-of", 0, "user id whose likes a GraphQL Likes capture (or a like.js without account.js) lists")
	if err := parse(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError("no files to import")
	}
	if *format != "" && !slices.Contains(importer.Formats(), *format) {
		return usageError("unknown --format %q (one of %s)", *format, strings.Join(importer.Formats(), ", "))
	}
	if *batch <= 0 {
		return usageError("--batch must be more than 0")
	}
	s, err := openStore(ctx, e, *db)
	if err != nil {
		return err
	}
	defer s.Close()
	sum, err := importer.Import(ctx, s, fs.Args(), importer.Options{
		Format: *format, Strict: *strict, Progress: e.stderr, Terminal: isTerminal(e.stderr), Log: e.log,
		BatchSize: *batch, FollowersOf: *followersOf, FollowingOf: *followingOf, RepostersOf: *repostersOf,
		ListMembersOf: *membersOf, LikersOf: *likersOf, LikesOf: *likesOf,
	})
	fmt.Fprintln(e.stdout, sum.String())
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	return nil
}
