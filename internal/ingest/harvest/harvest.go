// Package harvest walks an endpoint of any server that speaks roost's API
// (the hosted service or another roost) through package client and hands
// the pages to a sink: a roost database or a JSON-lines file. One goroutine
// fetches while another stores what was fetched, several pages a write; a
// checkpoint written after every durable write lets an interrupted run
// resume exactly where it stopped, with no gap and no duplicate.
package harvest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/internal/social"
)

// Kinds are the things a harvest can walk, with what each takes.
func Kinds() map[string]string {
	return map[string]string{
		"search":             "QUERY",
		"timeline":           "USER_ID",
		"replies":            "USER_ID",
		"thread":             "POST_ID",
		"followers":          "USER_ID",
		"following":          "USER_ID",
		"verified-followers": "USER_ID",
		"list-members":       "LIST_ID",
		"list-posts":         "LIST_ID",
		"community-posts":    "COMMUNITY_ID",
		"community-members":  "COMMUNITY_ID",
		"mentions":           "USERNAME",
		"reposters":          "POST_ID",
		"posts-by-ids":       "FILE",
		"users-by-ids":       "FILE",
	}
}

// KindNames are the kinds, sorted.
func KindNames() []string {
	kinds := Kinds()
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Job is one harvest.
type Job struct {
	Kind string
	// Arg is the query, the id or the username Kinds names.
	Arg string
	// IDs are the ids of posts-by-ids and users-by-ids, in order.
	IDs []int64
	// Order is the order of a search (default Latest) or community posts.
	Order client.Order
	// MaxItems stops the harvest after this many items (0: no limit); the
	// last page is cut to fit.
	MaxItems int
	// Ahead is how many fetched pages may wait while the sink stores
	// earlier ones; the sink takes every waiting page in one write. 0
	// fetches a page only after the one before is stored, one page a
	// write. A crash loses the pages fetched but not yet stored (at most
	// 2×Ahead+4, docs/harvesting.md): --resume fetches them, and pays for
	// them, again.
	Ahead int
}

// DefaultAhead is the Ahead of roost harvest unless --ahead says otherwise.
const DefaultAhead = 16

// Page is one page for a sink.
type Page struct {
	// Raw is the page as served (cut to MaxItems when it had to be).
	Raw []byte
	// Items is how many items it holds.
	Items int
	// Relation is what the page's users are to the harvested id (for
	// followers, following, members and reposters), else nil.
	Relation *Relation
	// Values is what a Preparer read from the page (nil until then).
	Values *social.Batch
}

// Relation ties the users of a page to Of; the first item of a harvest is
// the newest, so the times of the relations rows count down from Start by
// one microsecond per item and a roost serving them keeps the source's
// order.
type Relation struct {
	Kind  string // the harvest kind
	Of    int64
	Start time.Time
	// First is the index of the page's first item in the whole harvest.
	First int
}

// Sink stores pages. Write must have made every page durable when it
// returns nil; after an error any prefix of them may be stored, and the
// harvest fetches them again when resumed (a sink keeps them once).
type Sink interface {
	Write(ctx context.Context, pages []Page) error
}

// Preparer is a Sink that reads each page as soon as it is fetched, on
// a stage between fetching and storing, while earlier pages are being
// stored.
type Preparer interface {
	Prepare(p *Page) error
}

// Stats is what a harvest did so far.
type Stats struct {
	Pages, Items int
	// Spent is what the pages cost, in micro-USD, as the client counts it.
	Spent int64
	// Found and Missing list the ids of a by-ids harvest.
	Found, Missing int
	// Stopped says why the harvest ended early ("" when it ended).
	Stopped string
}

// Checkpoint is where a harvest stands: enough to resume it exactly, and
// what identifies the harvest (see NewCheckpoint and Check).
type Checkpoint struct {
	BaseURL string `json:"base_url"`
	Kind    string `json:"kind"`
	Arg     string `json:"arg"`
	// Type is the order of a search or community-posts harvest ("" for
	// the other kinds).
	Type string `json:"type,omitempty"`
	// IDsHash is the SHA-256 of the ids of a by-ids harvest, in order.
	IDsHash string `json:"ids_sha256,omitempty"`
	// Query and Cursor are the next request (a search continued by max_id:
	// has its own query).
	Query  string `json:"query,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	// Batch is the index of the next id of a by-ids harvest.
	Batch int `json:"batch,omitempty"`
	// Offset is how many bytes of an output file hold whole pages.
	Offset int64     `json:"offset,omitempty"`
	Start  time.Time `json:"start"`
	Stats  Stats     `json:"stats"`
	Done   bool      `json:"done,omitempty"`
}

// NewCheckpoint is the checkpoint of a fresh run of job from base: it
// names the harvest, so that Check can tell a resume of another one.
func NewCheckpoint(base string, job Job) *Checkpoint {
	return &Checkpoint{BaseURL: base, Kind: job.Kind, Arg: job.Arg, Type: jobType(job), IDsHash: idsHash(job.IDs)}
}

// Check says whether cp is the checkpoint of job from base: nil when it
// is, else an error naming what differs. For a by-ids harvest the ids
// count, not the file's name. A checkpoint of an earlier release, which
// recorded neither the type nor the ids, is checked on what it recorded.
func (cp *Checkpoint) Check(base string, job Job) error {
	var diffs []string
	differ := func(what, was, is string) {
		diffs = append(diffs, fmt.Sprintf("%s was %q, now %q", what, was, is))
	}
	if cp.BaseURL != base {
		differ("--base-url", cp.BaseURL, base)
	}
	if cp.Kind != job.Kind {
		differ("WHAT", cp.Kind, job.Kind)
	}
	switch h := idsHash(job.IDs); {
	case h != "" && cp.IDsHash != "":
		if cp.IDsHash != h {
			diffs = append(diffs, fmt.Sprintf("the ids of %s differ from those it was made with", job.Arg))
		}
	case cp.Arg != job.Arg:
		differ("ARG", cp.Arg, job.Arg)
	}
	if t := jobType(job); cp.Type != "" && cp.Type != t {
		differ("--type", cp.Type, t)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("it is the checkpoint of another harvest: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// Left is what a run resuming cp may spend under maxCost, in micro-USD:
// maxCost less what the runs before it spent, at least 0.
func (cp *Checkpoint) Left(maxCost int64) int64 {
	return max(maxCost-cp.Stats.Spent, 0)
}

// jobType is the order of a kind that takes one ("" for the others).
func jobType(job Job) string {
	switch job.Kind {
	case "search", "community-posts":
		if job.Order == "" {
			return string(client.Latest)
		}
		return string(job.Order)
	}
	return ""
}

// idsHash is the hex SHA-256 of ids, one decimal a line ("" for none).
func idsHash(ids []int64) string {
	if ids == nil {
		return ""
	}
	h := sha256.New()
	for _, id := range ids {
		h.Write(strconv.AppendInt(nil, id, 10))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Run walks job through c from cp (a new Checkpoint for a fresh run) and
// hands the pages to sink, calling save with the checkpoint after each
// write is durable and progress with the running stats. byID receives
// each id of a by-ids harvest in order, and whether the server returned
// it, once its page is stored and before save moves the checkpoint past it
// (a crash in between answers it again when resumed, never not at all).
// Run ends at the last page, at MaxItems, when the client's budget would
// be crossed (Stats.Stopped says so) or at the first error; the pages
// fetched before an error are stored first.
func Run(ctx context.Context, c *client.Client, job Job, cp *Checkpoint, sink Sink, save func(*Checkpoint) error,
	progress func(Stats), byID func(id int64, found bool)) (Stats, error) {
	if _, ok := Kinds()[job.Kind]; !ok {
		return cp.Stats, fmt.Errorf("harvest: unknown kind %q", job.Kind)
	}
	if cp.Start.IsZero() {
		cp.Start = time.Now().UTC()
	}
	if cp.Query == "" {
		cp.Query = job.Arg
	}
	f := &fetcher{c: c, job: job, ahead: *cp, out: make(chan fetched, max(job.Ahead, 0)), quit: make(chan struct{})}
	f.prep, _ = sink.(Preparer)
	if job.Ahead <= 0 {
		f.stored = make(chan struct{})
	}
	f.to = f.out
	if f.prep != nil && f.stored == nil {
		// Reading a page into values is a stage of its own, so that the
		// next request goes out while the last page is being read. It
		// holds a page and one more waits for it: beside the --ahead pages
		// waiting for the writer and those it writes, these two.
		f.to = make(chan fetched, 1)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if f.to == f.out {
			f.run(ctx)
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { f.prepare(f.to, f.out) })
		f.run(ctx)
		wg.Wait()
	}()
	defer func() {
		close(f.quit)
		<-done // the client is not used after Run returns
	}()
	// Pages fetched before Ctrl-C are stored (a write is bounded): else
	// --resume would pay for them again.
	wctx := context.WithoutCancel(ctx)
	for {
		batch, last := f.take()
		var pages []Page
		for _, b := range batch {
			if b.page.Items > 0 || len(b.page.Raw) > 0 {
				pages = append(pages, b.page)
			}
		}
		if len(pages) > 0 {
			if err := sink.Write(wctx, pages); err != nil {
				return cp.Stats, fmt.Errorf("harvest: store pages %d to %d: %w", cp.Stats.Pages+1, cp.Stats.Pages+len(pages), err)
			}
		}
		for _, b := range batch {
			if b.err != nil || b.stopped != "" {
				break
			}
			*cp = b.cp
		}
		if len(batch) > 0 && (last.err == nil && last.stopped == "" || len(batch) > 1) {
			// The ids are answered before the checkpoint moves past them: a
			// crash in between answers them again when resumed, rather
			// than never.
			if byID != nil {
				for _, b := range batch {
					if b.err != nil || b.stopped != "" {
						break
					}
					for _, a := range b.ids {
						byID(a.id, a.found)
					}
				}
			}
			if err := save(cp); err != nil {
				return cp.Stats, err
			}
			if progress != nil {
				progress(cp.Stats)
			}
		}
		switch {
		case len(batch) == 0:
			return cp.Stats, nil
		case last.err != nil:
			return cp.Stats, last.err
		case last.stopped != "":
			cp.Stats.Stopped = last.stopped
			return cp.Stats, nil
		}
		if f.stored != nil {
			select {
			case f.stored <- struct{}{}:
			case <-done:
			}
		}
	}
}

// fetched is one page and the checkpoint past it, or why the walk ended.
type fetched struct {
	page    Page
	cp      Checkpoint
	ids     []idAnswer // of a by-ids page, in order
	err     error
	stopped string
}

// idAnswer is whether the server returned an id of a by-ids harvest.
type idAnswer struct {
	id    int64
	found bool
}

// fetcher walks the job ahead of the sink, on its own copy of the
// checkpoint.
type fetcher struct {
	c     *client.Client
	job   Job
	prep  Preparer // nil: the sink reads pages in Write
	ahead Checkpoint
	out   chan fetched // to the writer
	// to is where run sends pages: out, or prepare's stage before it
	// (which then prepares them instead of run).
	to chan fetched
	// stored, when Ahead is 0, holds the next fetch until the writer has
	// stored the page before.
	stored chan struct{}
	// quit is closed when the writer stops taking pages.
	quit chan struct{}
}

// run fetches until the walk ends, an error (ctx ending is one) or quit,
// and closes to.
func (f *fetcher) run(ctx context.Context) {
	defer close(f.to)
	job, cp := f.job, &f.ahead
	st := step{c: f.c, job: job, cp: cp}
	before := cp.Stats.Spent // spent by the runs this one resumes
	for !cp.Done {
		var r fetched
		if job.MaxItems > 0 && cp.Stats.Items >= job.MaxItems {
			r.stopped = fmt.Sprintf("reached --max-items %d", job.MaxItems)
		} else {
			p, err := st.next(ctx, func(id int64, found bool) { r.ids = append(r.ids, idAnswer{id, found}) })
			if err == nil && f.prep != nil && f.to == f.out {
				err = f.prepareOne(&p, cp.Stats.Pages+1)
			}
			switch {
			case errors.Is(err, client.ErrBudget):
				r.stopped = "the next page could cross --max-cost"
			case err != nil:
				r.err = err
			default:
				if p.Items > 0 || len(p.Raw) > 0 {
					cp.Stats.Pages++
					cp.Stats.Items += p.Items
				}
				cp.Stats.Spent = before + f.c.Spent()
				r.page, r.cp = p, *cp
			}
		}
		select {
		case f.to <- r:
		case <-f.quit:
			return
		}
		if r.err != nil || r.stopped != "" {
			return
		}
		if f.stored != nil {
			select {
			case <-f.stored:
			case <-f.quit:
				return
			}
		}
	}
}

// prepareOne reads page n into values for the sink.
func (f *fetcher) prepareOne(p *Page, n int) error {
	if err := f.prep.Prepare(p); err != nil {
		return fmt.Errorf("harvest: page %d: %w", n, err)
	}
	return nil
}

// prepare reads the pages run fetches (from in) into values and hands them
// on to out, in order, which it closes at the end. A page that cannot be
// read ends the walk there: it is handed on as the error.
func (f *fetcher) prepare(in <-chan fetched, out chan<- fetched) {
	defer close(out)
	for r := range in {
		if r.err == nil && r.stopped == "" {
			if err := f.prepareOne(&r.page, r.cp.Stats.Pages); err != nil {
				r = fetched{err: err}
			}
		}
		select {
		case out <- r:
		case <-f.quit:
			return
		}
		if r.err != nil || r.stopped != "" {
			return
		}
	}
}

// take waits for the next fetched page and takes every other one already
// waiting; last is the final one taken. An empty batch is the end.
func (f *fetcher) take() (batch []fetched, last fetched) {
	r, ok := <-f.out
	if !ok {
		return nil, fetched{}
	}
	batch = append(batch, r)
	for r.err == nil && r.stopped == "" && f.stored == nil && len(batch) <= cap(f.out) {
		select {
		case next, ok := <-f.out:
			if !ok {
				return batch, r
			}
			r = next
			batch = append(batch, r)
			continue
		default:
		}
		break
	}
	return batch, r
}

// step fetches the pages of one job.
type step struct {
	c   *client.Client
	job Job
	cp  *Checkpoint
}

// next fetches the next page and moves the checkpoint past it; byID
// receives the answer for each id of a by-ids page.
func (s *step) next(ctx context.Context, byID func(id int64, found bool)) (Page, error) {
	cp, job := s.cp, s.job
	switch job.Kind {
	case "posts-by-ids", "users-by-ids":
		return s.byIDs(ctx, byID)
	case "search":
		order := job.Order
		if order == "" {
			order = client.Latest
		}
		p, err := s.c.Search(ctx, cp.Query, order, cp.Cursor)
		if err != nil {
			return Page{}, err
		}
		out := s.cut(p.Raw, len(p.Items), "tweets")
		q, cur, done := client.NextSearch(job.Arg, order, cp.Query, p)
		cp.Query, cp.Cursor, cp.Done = q, cur, done
		return out, nil
	}
	id, err := s.id()
	if err != nil {
		return Page{}, err
	}
	var raw []byte
	var n int
	var next string
	field := "tweets"
	tweets := func(p client.Page[client.Tweet], err error) error {
		raw, n, next = p.Raw, len(p.Items), p.NextCursor
		return err
	}
	users := func(p client.Page[client.User], err error) error {
		raw, n, next, field = p.Raw, len(p.Items), p.NextCursor, "users"
		return err
	}
	cur := cp.Cursor
	switch job.Kind {
	case "timeline":
		err = tweets(s.c.UserTweets(ctx, id, cur))
	case "replies":
		err = tweets(s.c.UserTweetsAndReplies(ctx, id, cur))
	case "thread":
		err = tweets(s.c.Thread(ctx, id, cur))
	case "list-posts":
		err = tweets(s.c.ListTweets(ctx, id, cur))
	case "community-posts":
		err = tweets(s.c.CommunityTweets(ctx, id, job.Order, cur))
	case "mentions":
		err = tweets(s.c.Mentions(ctx, job.Arg, cur))
	case "followers":
		err = users(s.c.Followers(ctx, id, cur))
	case "following":
		err = users(s.c.Following(ctx, id, cur))
	case "verified-followers":
		err = users(s.c.VerifiedFollowers(ctx, id, cur))
	case "list-members":
		err = users(s.c.ListMembers(ctx, id, cur))
	case "reposters":
		err = users(s.c.Retweeters(ctx, id, cur))
	case "community-members":
		var p client.Page[client.Member]
		p, err = s.c.CommunityMembers(ctx, id, cur)
		raw, n, next, field = p.Raw, len(p.Items), p.NextCursor, "users"
	}
	if err != nil {
		return Page{}, err
	}
	out := s.cut(raw, n, field)
	if field == "users" {
		out.Relation = &Relation{Kind: job.Kind, Of: id, Start: cp.Start, First: cp.Stats.Items}
	}
	cp.Cursor, cp.Done = next, next == "" || n == 0
	return out, nil
}

// id is the job's argument as an id (all kinds but search and mentions).
func (s *step) id() (int64, error) {
	if s.job.Kind == "mentions" {
		return 0, nil
	}
	id, err := strconv.ParseInt(strings.TrimSpace(s.job.Arg), 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("harvest: %s takes %s, not %q", s.job.Kind, Kinds()[s.job.Kind], s.job.Arg)
	}
	return id, nil
}

// cut keeps a page whole, or cuts its array (field) to what MaxItems
// still allows.
func (s *step) cut(raw []byte, n int, field string) Page {
	left := s.job.MaxItems - s.cp.Stats.Items
	if s.job.MaxItems <= 0 || n <= left {
		return Page{Raw: raw, Items: n}
	}
	var env map[string]json.RawMessage
	var items []json.RawMessage
	if json.Unmarshal(raw, &env) != nil || json.Unmarshal(env[field], &items) != nil || len(items) < left {
		return Page{Raw: raw, Items: n}
	}
	env[field], _ = json.Marshal(items[:left])
	env["next_cursor"] = json.RawMessage("null")
	cutRaw, err := json.Marshal(env)
	if err != nil {
		return Page{Raw: raw, Items: n}
	}
	s.cp.Done = true
	return Page{Raw: cutRaw, Items: left}
}

// byIDs fetches the next batch of up to 100 ids.
func (s *step) byIDs(ctx context.Context, byID func(id int64, found bool)) (Page, error) {
	cp, ids := s.cp, s.job.IDs
	if cp.Batch >= len(ids) {
		cp.Done = true
		return Page{}, nil
	}
	end := min(cp.Batch+100, len(ids))
	if s.job.MaxItems > 0 {
		end = min(end, cp.Batch+s.job.MaxItems-cp.Stats.Items)
	}
	part := ids[cp.Batch:end]
	var raw []byte
	found := map[int64]bool{}
	var err error
	if s.job.Kind == "posts-by-ids" {
		var ts []client.Tweet
		ts, err = s.c.TweetsByIDs(ctx, part)
		for _, t := range ts {
			v, _ := strconv.ParseInt(t.IDStr, 10, 64)
			found[v] = true
		}
		if len(ts) > 0 {
			raw, _ = json.Marshal(ts)
		}
	} else {
		var us []client.User
		us, err = s.c.UsersByIDs(ctx, part)
		for _, u := range us {
			found[u.ID] = true
		}
		if len(us) > 0 {
			raw, _ = json.Marshal(map[string]any{"users": us, "next_cursor": nil})
		}
	}
	var ae *client.Error
	if errors.As(err, &ae) && ae.Status == 404 { // none of them was found
		err = nil
	}
	if err != nil {
		return Page{}, err
	}
	for _, id := range part {
		if found[id] {
			cp.Stats.Found++
		} else {
			cp.Stats.Missing++
		}
		byID(id, found[id])
	}
	cp.Batch = end
	cp.Done = end >= len(ids)
	return Page{Raw: raw, Items: len(found)}, nil
}

// Edges adds to b the relation rows a page of users (raw, as served)
// implies, in the page's order.
func (r *Relation) Edges(raw []byte, b *social.Batch) error {
	var page struct {
		Users []struct {
			IDStr string `json:"id_str"`
			Role  string `json:"community_role"`
		} `json:"users"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return fmt.Errorf("harvest: users page: %w", err)
	}
	for i, u := range page.Users {
		id, err := strconv.ParseInt(u.IDStr, 10, 64)
		if err != nil {
			return fmt.Errorf("harvest: user id %q: %w", u.IDStr, err)
		}
		at := r.Start.Add(-time.Duration(r.First+i) * time.Microsecond)
		switch r.Kind {
		case "followers", "verified-followers":
			b.Follows = append(b.Follows, social.Follow{FollowerID: id, FolloweeID: r.Of, CreatedAt: at})
		case "following":
			b.Follows = append(b.Follows, social.Follow{FollowerID: r.Of, FolloweeID: id, CreatedAt: at})
		case "list-members":
			b.ListMembers = append(b.ListMembers, social.ListMember{ListID: r.Of, UserID: id, CreatedAt: at})
		case "reposters":
			b.Reposts = append(b.Reposts, social.Repost{PostID: r.Of, UserID: id, CreatedAt: at})
		case "community-members":
			role := u.Role
			if role != social.RoleAdmin && role != social.RoleModerator {
				role = social.RoleMember
			}
			b.CommunityMembers = append(b.CommunityMembers, social.CommunityMember{CommunityID: r.Of, UserID: id,
				Role: role, JoinedAt: at})
		}
	}
	return nil
}
