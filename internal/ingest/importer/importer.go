// Package importer loads tweet archives into a store through
// social.Writer: API v1.1 statuses, API v2 pages (twarc2), web GraphQL
// responses, personal data exports and roost's own API responses, plain or
// gzip-compressed. The format of each file is detected from its content
// (Detect) unless Options.Format names it.
//
// Decoders stream their input and hand records to an emitter that gathers
// them into batches of about Options.BatchSize posts; each batch is one
// Write (one transaction), and a record (a post with its author, the posts
// it embeds and its relations) is never split across batches. A crash or
// cancellation therefore leaves whole batches only, and running the import
// again completes it: writes are idempotent.
//
// Decisions where the sources are silent:
//   - v1.1 has no conversation id: a reply gets its parent's conversation
//     when the parent was imported earlier in the same run (recent replies
//     are remembered, within bounded memory), otherwise the id of the post
//     it replies to; a post that replies to nothing is its own root.
//   - Text is stored HTML-escaped, as the network serves it. Note-tweet
//     texts (GraphQL, export) arrive unescaped: they are escaped and their
//     entity indices moved accordingly. v2 texts, note texts included, are
//     taken as escaped already.
//   - A note tweet's text does not hold the media link: its media keep an
//     empty span at the end of the text.
//   - v2 sources name the client ("Twitter Web App") without the anchor;
//     the name is stored as given.
//   - Users known only by reference (a post's author without a profile,
//     mentioned users, the user replied to) are written as stubs.
//   - GraphQL user lists (followers, following, reposters, list members)
//     do not name whose list they are: Options.FollowersOf and friends say
//     it; without them the users are stored and the summary says so.
//     Relation times are unknown and left zero.
//   - Likes: no source says when a like happened, and captures of likers
//     (GraphQL Favoriters) or of a user's likes (GraphQL Likes, the
//     export's like.js) do not say whose they are: --likers-of and
//     --likes-of say it (like.js takes its owner from account.js first).
//     A like's time is the liked post's creation time, from its snowflake
//     id: the earliest it can have been, and stable across imports. A
//     like.js entry names no author, so the liked post is not stored.
//   - Audio spaces (GraphQL AudioSpaceById): the creator is stored with its
//     profile, admins and speakers as stubs, listeners not at all (their
//     number is); the creator is the first admin.
//   - No source read here carries an extended bio (GraphQL profile_bio and
//     legacy.description are the ordinary bio): imported profiles have
//     none, and a profile imported over a stored one erases it.
//   - Text that no database holds, a NUL byte (JSON's \u0000) or invalid
//     UTF-8, is repaired, not refused: each such byte is stored as U+FFFD
//     (as encoding/json reads invalid UTF-8), and Summary.Repaired counts
//     the repaired fields by file. --strict refuses such a record instead,
//     naming the file, the record and the field.
//   - --strict makes a full validating pass over every input before
//     writing anything: the first malformed record stops the command with
//     the database untouched.
//   - An export's deleted-tweets.js deletes its posts (and tombstones
//     them, stored or not); its follower.js and following.js are follows
//     with the owner at the other end, their accounts stubs, their times
//     unknown (zero). Whatever names a deleted post or user (an earlier
//     deletion's tombstone) is left out by the store and counted in
//     Summary.LeftOut.
package importer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/roostapi/roost/internal/social"
)

// Options control an import.
type Options struct {
	// Format forces a format (one of Formats) instead of detecting it.
	Format string
	// Strict stops at the first malformed record, before anything is
	// written (a validating pass precedes the writing pass); a record with
	// text no store can hold (a NUL byte) counts as malformed instead of
	// being repaired.
	Strict bool
	// Progress receives progress reports; nil for none.
	Progress io.Writer
	// Terminal draws a progress bar on Progress instead of plain lines.
	Terminal bool
	// Log receives diagnostics; nil discards them.
	Log *slog.Logger
	// BatchSize is the number of posts per write (default 2000).
	BatchSize int
	// Workers is the number of JSONL decoding goroutines (default: the
	// number of CPUs).
	Workers int

	// FollowersOf, FollowingOf, RepostersOf, ListMembersOf and LikersOf
	// name the subject of a GraphQL user-list capture (Followers,
	// Following, Retweeters, ListMembers, Favoriters), whose body does not
	// say it: the listed users follow FollowersOf, are followed by
	// FollowingOf, reposted RepostersOf, belong to ListMembersOf, liked
	// the post LikersOf. FollowersOf and FollowingOf also name the owner
	// of an export's follower.js and following.js without account.js.
	FollowersOf, FollowingOf, RepostersOf, ListMembersOf, LikersOf int64
	// LikesOf names the user whose likes a GraphQL Likes capture lists
	// (its tweet entries become likes of LikesOf), and the liking user of
	// a like.js that comes without account.js.
	LikesOf int64
}

// Import loads files into w and reports what it did. Records that cannot
// be read are skipped and reported in the summary (or, with Strict, stop
// the import before any write). The error is non-nil when a file cannot be
// read, a write fails, the context ends, or Strict meets a bad record; the
// summary then tells what was done.
func Import(ctx context.Context, w social.Writer, files []string, opt Options) (Summary, error) {
	if err := validFormat(opt.Format); err != nil {
		return Summary{}, err
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 2000
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return Summary{}, fmt.Errorf("input: %w", err)
		}
		total += st.Size()
	}
	if opt.Strict {
		r := newRun(opt, total, "checking")
		sum, err := r.pass(ctx, files, func(*social.Batch) error { return nil })
		if err != nil {
			return sum, err
		}
	}
	r := newRun(opt, total, "importing")
	var (
		mu    sync.Mutex
		stats social.WriteStats
		sum   Summary
	)
	write := func(w social.Writer) error {
		var err error
		sum, err = r.pass(ctx, files, func(b *social.Batch) error {
			st, err := w.Write(ctx, b)
			if err != nil {
				return fmt.Errorf("write batch of %d posts, %d users: %w", len(b.Posts), len(b.Users), err)
			}
			mu.Lock()
			stats.Add(st)
			mu.Unlock()
			return nil
		})
		return err
	}
	var err error
	if bl, ok := w.(social.BulkLoader); ok {
		err = bl.Bulk(ctx, total/bytesPerPost, write)
	} else {
		err = write(w)
	}
	sum.PostsInserted, sum.PostsUpdated = stats.PostsInserted, stats.PostsUpdated
	sum.UsersInserted, sum.UsersUpdated = stats.UsersInserted, stats.UsersUpdated
	sum.PostsDeleted, sum.PostsDeletedWith = stats.PostsDeleted, stats.PostsDeletedWith
	sum.LeftOut = stats.PostsSkipped + stats.UsersSkipped + stats.RelationsSkipped
	return sum, err
}

// bytesPerPost is about the smallest size of one post in the formats read
// (a v1.1 status with its user is 2–5 KB): the input's size over it errs
// on the side of more posts, which is what a bulk load is told.
const bytesPerPost = 1500

// errStrict stops a strict pass at the first malformed record.
var errStrict = errors.New("malformed record (strict mode: nothing was written)")

// run is one pass over the inputs.
type run struct {
	opt   Options
	bytes atomic.Int64
	total int64
	label string
	rel   gqlRelations
}

func newRun(opt Options, total int64, label string) *run {
	return &run{opt: opt, total: total, label: label, rel: gqlRelations{
		FollowersOf: opt.FollowersOf, FollowingOf: opt.FollowingOf,
		RepostersOf: opt.RepostersOf, ListMembersOf: opt.ListMembersOf,
		LikersOf: opt.LikersOf, LikesOf: opt.LikesOf}}
}

// pass decodes every file, handing batches to write on a separate
// goroutine so that decoding and writing overlap.
func (r *run) pass(ctx context.Context, files []string, write func(*social.Batch) error) (Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sum Summary
	batches := make(chan *social.Batch, 1)
	var writeErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range batches {
			if writeErr != nil {
				continue
			}
			if err := ctx.Err(); err != nil {
				writeErr = err
				continue
			}
			if err := write(b); err != nil {
				writeErr = err
				cancel()
			}
		}
	}()
	em := newEmitter(r.opt.BatchSize, &sum, func(b *social.Batch) error {
		select {
		case batches <- b:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	em.strict = r.opt.Strict
	prog := startProgress(r, em)
	err := r.files(ctx, files, em, &sum)
	if err == nil {
		err = em.done()
	}
	close(batches)
	<-done
	prog.stop()
	if writeErr != nil {
		err = writeErr
	}
	if err != nil {
		if errors.Is(err, errStrict) && len(sum.Errors) > 0 {
			return sum, fmt.Errorf("%w: %s", errStrict, sum.Errors[0].Error())
		}
		return sum, err
	}
	return sum, nil
}

func (r *run) files(ctx context.Context, files []string, em *emitter, sum *Summary) error {
	emit := func(it item) error {
		if err := em.add(it); err != nil {
			return err
		}
		if r.opt.Strict && it.err != nil {
			return errStrict
		}
		return nil
	}
	for _, f := range files {
		sum.Files++
		if err := r.file(ctx, f, emit); err != nil {
			return err
		}
		r.opt.Log.Debug("imported file", "file", f, "read", sum.Read, "skipped", sum.Skipped)
	}
	return nil
}

// file imports one path: a zip export, or a (possibly gzipped) file whose
// format is detected or forced.
func (r *run) file(ctx context.Context, p string, emit func(item) error) error {
	z, err := isZip(p)
	if err != nil {
		return err
	}
	if z {
		x, closer, err := zipExport(p, &r.bytes)
		if err != nil {
			return err
		}
		defer closer.Close()
		return r.export(ctx, x, emit)
	}
	return r.source(ctx, fileSource(p, &r.bytes), emit)
}

// source imports one stream.
func (r *run) source(ctx context.Context, src *source, emit func(item) error) error {
	rc, err := src.open()
	if err != nil {
		return err
	}
	defer rc.Close()
	br := bufioReader(rc)
	format := r.opt.Format
	if format == "" {
		peek, _ := br.Peek(peekSize)
		format, err = Detect(peek)
		if err != nil {
			return fmt.Errorf("%s: %w (name it with --format)", src.name, err)
		}
	}
	st := &streamer{name: src.name, workers: r.opt.Workers}
	switch format {
	case FormatV1:
		st.streamKeys = map[string]bool{"statuses": true}
		return st.run(ctx, br, decodeV1, emit)
	case FormatV2:
		return st.run(ctx, br, decodeV2, emit)
	case FormatGraphQL:
		st.workers = 1
		return st.run(ctx, br, decodeGraphQL(r.rel), emit)
	case FormatAPI:
		st.streamKeys = map[string]bool{"tweets": true, "users": true, "lists": true}
		return st.run(ctx, br, decodeAPI, emit)
	case FormatArchive:
		kind, err := ytdKind(br)
		if err != nil {
			return fmt.Errorf("read %s: %w", src.name, err)
		}
		x := neighbours(src, &r.bytes)
		switch kind {
		case "account", "profile":
			if x.account == nil {
				return emit(item{note: src.name + ": profile.js without account.js names no user; skipped"})
			}
			u, err := x.owner()
			if err != nil {
				return err
			}
			return emit(item{batch: social.Batch{Users: []social.User{u}}, at: RecordError{File: src.name}})
		case "note_tweet":
			return emit(item{note: src.name + ": note-tweet.js is used together with tweets.js (beside it or in the zip)"})
		}
		// The file is the export's one file of its kind; tweets by default.
		into := map[string]*[]*source{"like": &x.likes, "deleted_tweets": &x.deleted, "follower": &x.followers,
			"following": &x.following}[kind]
		if into == nil {
			into = &x.tweets
		}
		*into = []*source{src}
		return r.export(ctx, x, emit)
	}
	return fmt.Errorf("unknown format %q", format)
}

// export imports a data export: the owner's profile, then every tweets
// file.
func (r *run) export(ctx context.Context, x *exportSet, emit func(item) error) error {
	owner, err := x.owner()
	if err != nil {
		return err
	}
	notes, err := x.loadNotes()
	if err != nil {
		return err
	}
	if owner.ID == 0 && len(x.tweets) > 0 {
		owner, err = x.inferOwner(ctx)
		if err != nil {
			return err
		}
		if owner.ID != 0 {
			if err := emit(item{note: fmt.Sprintf("%s: no account.js; the author was recognised from the export as @%s (%d) and stored as a stub",
				x.name, owner.ScreenName, owner.ID)}); err != nil {
				return err
			}
		}
	}
	if owner.ID != 0 {
		if err := emit(item{extra: true, batch: social.Batch{Users: []social.User{owner}}, at: RecordError{File: x.name}}); err != nil {
			return err
		}
	}
	if err := exportFiles(ctx, x.tweets, decodeExportTweet(owner, notes), emit); err != nil {
		return err
	}
	liker := owner.ID
	if liker == 0 {
		liker = r.opt.LikesOf
	}
	if liker == 0 && len(x.likes) > 0 {
		if err := emit(item{note: x.name + ": like.js does not say whose likes it lists and no account.js names the owner: " +
			"its likes were skipped; name the user with --likes-of"}); err != nil {
			return err
		}
	}
	if err := exportFiles(ctx, x.likes, decodeExportLike(liker), emit); err != nil {
		return err
	}
	if err := exportFiles(ctx, x.deleted, decodeExportDeleted, emit); err != nil {
		return err
	}
	for _, f := range []struct {
		srcs      []*source
		following bool
		flag      string
		of        int64
	}{{x.followers, false, "--followers-of", r.opt.FollowersOf}, {x.following, true, "--following-of", r.opt.FollowingOf}} {
		owner := cmp.Or(owner.ID, f.of)
		if owner == 0 && len(f.srcs) > 0 {
			if err := emit(item{note: x.name + ": follower.js and following.js do not say whose follows they list and no " +
				"account.js names the owner: their follows were skipped; name the user with " + f.flag}); err != nil {
				return err
			}
		}
		if err := exportFiles(ctx, f.srcs, decodeExportFollow(f.following, owner), emit); err != nil {
			return err
		}
	}
	return nil
}

// exportFiles streams the elements of export files through dec.
func exportFiles(ctx context.Context, srcs []*source, dec valueFunc, emit func(item) error) error {
	for _, src := range srcs {
		if err := func() error {
			rc, err := src.open()
			if err != nil {
				return err
			}
			defer rc.Close()
			br := bufioReader(rc)
			if _, err := ytdKind(br); err != nil {
				return fmt.Errorf("read %s: %w", src.name, err)
			}
			st := &streamer{name: src.name}
			return st.docs(ctx, br, dec, emit)
		}(); err != nil {
			return err
		}
	}
	return nil
}
