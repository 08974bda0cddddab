package export

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/roostapi/roost/internal/jsonenc"
	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Post formats.
const (
	FormatCSV   = "csv"   // the columns of twarc-csv (csv.go)
	FormatJSONL = "jsonl" // roost's own post shape, one a line
	FormatIDs   = "ids"   // post ids, one a line (a dehydrated set)
	FormatV1    = "v1"    // API v1.1 statuses (extended mode), one a line
	FormatV2    = "v2"    // API v2 pages as twarc2 writes them, one a line
)

// Formats lists the post formats in the order they are documented.
func Formats() []string { return []string{FormatCSV, FormatJSONL, FormatIDs, FormatV1, FormatV2} }

// ContentType is the media type of a format's output.
func ContentType(format string) string {
	switch format {
	case FormatCSV:
		return "text/csv; charset=utf-8"
	case FormatIDs:
		return "text/plain; charset=utf-8"
	}
	return "application/x-ndjson; charset=utf-8"
}

// Extension is the file name extension of a format's output.
func Extension(format string) string {
	switch format {
	case FormatCSV:
		return ".csv"
	case FormatIDs:
		return ".txt"
	}
	return ".jsonl"
}

// Chunk is a run of posts to write, ready to shape: their views, and the
// other users they name (replied to, mentioned) where a format wants them.
type Chunk struct {
	Views []social.PostView
	Users map[int64]*social.User
}

// Writer writes posts in one format. Its output is complete once Close
// returns.
type Writer struct {
	format string
	w      *bufio.Writer
	enc    *json.Encoder
	csv    *csvWriter
	post   func(*social.PostView) any
	line   []byte // a post of FormatJSONL, reused
}

// NewWriter starts output in format to w. post shapes a post for FormatJSONL
// (roost's API gives its full shape); the other formats ignore it.
func NewWriter(format string, w io.Writer, post func(*social.PostView) any) (*Writer, error) {
	x := &Writer{format: format, w: bufio.NewWriterSize(w, 64<<10), post: post}
	x.enc = json.NewEncoder(x.w)
	x.enc.SetEscapeHTML(false)
	switch format {
	case FormatCSV:
		x.csv = newCSVWriter(x.w)
		if err := x.csv.header(); err != nil {
			return nil, err
		}
	case FormatJSONL:
		if post == nil {
			return nil, fmt.Errorf("export: jsonl needs a post shape: %w", social.ErrInvalid)
		}
	case FormatIDs, FormatV1, FormatV2:
	default:
		return nil, fmt.Errorf("export: format %q: must be one of csv, jsonl, ids, v1, v2: %w", format, social.ErrInvalid)
	}
	return x, nil
}

// wantsUsers reports whether the format names users beyond the authors.
func (x *Writer) wantsUsers() bool { return x.format == FormatV2 }

// Write writes a chunk of posts.
func (x *Writer) Write(c Chunk) error {
	var err error
	switch x.format {
	case FormatCSV:
		err = x.csv.write(c.Views)
	case FormatJSONL:
		for i := range c.Views {
			if x.line, err = jsonenc.Append(x.line[:0], x.post(&c.Views[i])); err != nil {
				break
			}
			x.line = append(x.line, '\n')
			if _, err = x.w.Write(x.line); err != nil {
				break
			}
		}
	case FormatIDs:
		for i := range c.Views {
			x.w.WriteString(strconv.FormatInt(c.Views[i].ID, 10)) //nolint:errcheck // the buffer keeps the error
			err = x.w.WriteByte('\n')
		}
	case FormatV1:
		for i := range c.Views {
			if err = x.enc.Encode(newV1Status(&c.Views[i])); err != nil {
				break
			}
		}
	case FormatV2:
		for start := 0; start < len(c.Views) && err == nil; start += v2PageSize {
			err = x.enc.Encode(newV2Page(c.Views[start:min(start+v2PageSize, len(c.Views))], c.Users))
		}
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", x.format, err)
	}
	return nil
}

// Flush writes what is buffered through to the underlying writer.
func (x *Writer) Flush() error {
	if x.csv != nil {
		if err := x.csv.flush(); err != nil {
			return err
		}
	}
	if err := x.w.Flush(); err != nil {
		return fmt.Errorf("export %s: %w", x.format, err)
	}
	return nil
}

// Close completes the output.
func (x *Writer) Close() error { return x.Flush() }

// Source is what an export reads: the matches of a query and what they
// refer to.
type Source interface {
	social.Reader
	social.Researcher
}

// ChunkSize is how many posts an export reads, hydrates and writes at once.
const ChunkSize = 1000

// Options tune Posts.
type Options struct {
	// Before, when set, is called with the posts of each chunk (in id
	// order) before they are written; an error stops the export (the HTTP
	// API charges each chunk there).
	Before func(ctx context.Context, posts []social.PostView) error
	// Progress, when set, is called with the number of posts written
	// after each chunk.
	Progress func(done int64)
	// Limit, when positive, stops the export after that many posts.
	Limit int64
}

// Posts writes the matches of q, oldest first, each once, through w (and
// flushes w after each chunk). It returns how many it wrote.
func Posts(ctx context.Context, s Source, q *search.Query, w *Writer, opt Options) (int64, error) {
	var done int64
	errLimit := fmt.Errorf("limit reached")
	users := &userCache{Reader: s, users: map[int64]social.User{}}
	err := s.SearchWalk(ctx, q, 0, ChunkSize, func(posts []social.Post) error {
		if opt.Limit > 0 && done+int64(len(posts)) > opt.Limit {
			posts = posts[:opt.Limit-done]
		}
		views, err := social.Hydrate(ctx, users, posts)
		if err != nil {
			return err
		}
		c := Chunk{Views: views}
		if w.wantsUsers() {
			if c.Users, err = namedUsers(ctx, users, views); err != nil {
				return err
			}
		}
		if opt.Before != nil {
			if err := opt.Before(ctx, views); err != nil {
				return err
			}
		}
		if err := w.Write(c); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		done += int64(len(views))
		if opt.Progress != nil {
			opt.Progress(done)
		}
		if opt.Limit > 0 && done >= opt.Limit {
			return errLimit
		}
		return nil
	})
	if err == errLimit {
		err = nil
	}
	return done, err
}

// namedUsers are the stored users the views name: their authors (and
// those of the posts they embed), the users they reply to and mention.
func namedUsers(ctx context.Context, r social.Reader, views []social.PostView) (map[int64]*social.User, error) {
	out := map[int64]*social.User{}
	var want []int64
	var walk func(v *social.PostView)
	walk = func(v *social.PostView) {
		a := v.Author
		out[a.ID] = &a
		for _, id := range append([]int64{v.InReplyToUserID}, mentionIDs(&v.Entities)...) {
			if id != 0 {
				want = append(want, id)
			}
		}
		for _, x := range []*social.PostView{v.Quoted, v.RepostOf} {
			if x != nil {
				walk(x)
			}
		}
	}
	for i := range views {
		walk(&views[i])
	}
	slices.Sort(want)
	want = slices.Compact(slices.DeleteFunc(want, func(id int64) bool { return out[id] != nil }))
	users, err := r.UsersByIDs(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("export: users named by posts: %w", err)
	}
	for i := range users {
		out[users[i].ID] = &users[i]
	}
	return out, nil
}

func mentionIDs(e *social.Entities) []int64 {
	out := make([]int64, 0, len(e.Mentions))
	for _, m := range e.Mentions {
		out = append(out, m.UserID)
	}
	return out
}

// cachedUsers is how many users an export keeps between chunks: the
// authors of a set recur, and reading them again cost a third of an
// export's time.
const cachedUsers = 50_000

// userCache is a Reader that keeps the users it read, up to cachedUsers
// (then it starts afresh).
type userCache struct {
	social.Reader
	users map[int64]social.User
}

// UsersByIDs returns the users found among ids, read once.
func (c *userCache) UsersByIDs(ctx context.Context, ids []int64) ([]social.User, error) {
	out := make([]social.User, 0, len(ids))
	var missing []int64
	for _, id := range ids {
		if u, ok := c.users[id]; ok {
			out = append(out, u)
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	got, err := c.Reader.UsersByIDs(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(c.users)+len(got) > cachedUsers {
		clear(c.users)
	}
	for _, u := range got {
		c.users[u.ID] = u
	}
	return append(out, got...), nil
}
