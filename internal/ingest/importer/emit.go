package importer

import (
	"fmt"
	"sync/atomic"

	"github.com/roostapi/roost/internal/social"
)

// item is one decoded input record: the values it holds, or why it was
// left out.
type item struct {
	batch social.Batch
	err   *RecordError // malformed: skipped and reported
	skip  string       // skipped on purpose (a tombstone, say)
	note  string       // a decision to report in the summary
	// extra marks values that ride along with records (profiles from a
	// page's includes) and are not records themselves.
	extra bool
	// at locates the record (its file, and its line or JSON path when it
	// has one), for the summary's count of repaired text and --strict.
	at RecordError
	// repair is what repairText did to batch, when repaired is set (the
	// decoding workers repair in parallel); the emitter repairs the rest.
	repair   textRepair
	repaired bool
}

// relKey identifies a relation row within one batch.
type relKey struct {
	kind byte
	a, b int64
}

// emitter gathers records into batches of about size posts and hands each
// full batch to flush. A record is never split across batches, so a post,
// its author, the posts it embeds and its relations are written together.
type emitter struct {
	size  int
	sum   *Summary
	conv  *convTracker
	flush func(*social.Batch) error
	// strict refuses a record holding text that no store can hold
	// (errStrict) instead of repairing it.
	strict bool

	cur    social.Batch
	users  map[int64]int
	posts  map[int64]int
	rels   map[relKey]bool
	spaces map[string]int

	// Decoded totals, read by the progress reporter.
	nPosts, nUsers atomic.Int64
}

func newEmitter(size int, sum *Summary, flush func(*social.Batch) error) *emitter {
	e := &emitter{size: size, sum: sum, conv: newConvTracker(), flush: flush}
	e.reset()
	return e
}

func (e *emitter) reset() {
	e.cur = social.Batch{}
	n := min(e.size, 4096) // a large size is a bound, not a forecast
	e.users = make(map[int64]int, n)
	e.posts = make(map[int64]int, n)
	e.rels = make(map[relKey]bool)
	e.spaces = make(map[string]int)
}

// add takes one record.
func (e *emitter) add(it item) error {
	if it.note != "" {
		e.sum.note(it.note)
	}
	switch {
	case it.err != nil:
		e.sum.Read++
		e.sum.bad(*it.err)
		return nil
	case it.skip != "":
		e.sum.Read++
		e.sum.skip(it.skip)
		return nil
	}
	b := &it.batch
	if b.Len() == 0 {
		return nil
	}
	if !it.extra {
		e.sum.Read++
	}
	r := it.repair
	if !it.repaired {
		r = repairText(b)
	}
	if r.fields > 0 {
		if e.strict {
			at := it.at
			at.Reason = fmt.Sprintf("%s %v (without --strict each such byte is imported as U+FFFD)", r.first, r.problem)
			e.sum.bad(at)
			return errStrict
		}
		e.sum.repaired(it.at.File, r.fields)
	}
	for _, u := range b.Users {
		e.user(u)
	}
	for i := range b.Posts {
		e.post(&b.Posts[i])
	}
	for _, f := range b.Follows {
		if e.rel(relKey{'f', f.FollowerID, f.FolloweeID}) {
			e.cur.Follows = append(e.cur.Follows, f)
		}
	}
	for _, r := range b.Reposts {
		if e.rel(relKey{'r', r.PostID, r.UserID}) {
			e.cur.Reposts = append(e.cur.Reposts, r)
		}
	}
	for _, m := range b.ListMembers {
		if e.rel(relKey{'l', m.ListID, m.UserID}) {
			e.cur.ListMembers = append(e.cur.ListMembers, m)
		}
	}
	for _, c := range b.Communities {
		if e.rel(relKey{'c', c.ID, 0}) {
			e.cur.Communities = append(e.cur.Communities, c)
		}
	}
	for _, m := range b.CommunityMembers {
		if e.rel(relKey{'m', m.CommunityID, m.UserID}) {
			e.cur.CommunityMembers = append(e.cur.CommunityMembers, m)
		}
	}
	for _, l := range b.Likes {
		if e.rel(relKey{'k', l.PostID, l.UserID}) {
			e.cur.Likes = append(e.cur.Likes, l)
		}
	}
	for _, s := range b.Spaces {
		e.space(s)
	}
	e.cur.Lists = append(e.cur.Lists, b.Lists...)
	e.cur.DeletePosts = append(e.cur.DeletePosts, b.DeletePosts...)
	e.cur.DeleteUsers = append(e.cur.DeleteUsers, b.DeleteUsers...)
	if len(e.cur.Posts) >= e.size || len(e.cur.Users) >= 4*e.size || e.cur.Len() >= 8*e.size {
		return e.done()
	}
	return nil
}

// space adds s to the batch; a later copy of a space replaces an earlier
// one, as the store would.
func (e *emitter) space(s social.Space) {
	if i, ok := e.spaces[s.ID]; ok {
		e.cur.Spaces[i] = s
		return
	}
	e.spaces[s.ID] = len(e.cur.Spaces)
	e.cur.Spaces = append(e.cur.Spaces, s)
}

func (e *emitter) rel(k relKey) bool {
	if e.rels[k] {
		return false
	}
	e.rels[k] = true
	return true
}

// user merges u into the batch: a stub never replaces a profile, and a
// later profile replaces an earlier one.
func (e *emitter) user(u social.User) {
	if u.ID <= 0 {
		return
	}
	i, ok := e.users[u.ID]
	if !ok {
		e.users[u.ID] = len(e.cur.Users)
		e.cur.Users = append(e.cur.Users, u)
		e.nUsers.Add(1)
		return
	}
	old := &e.cur.Users[i]
	switch {
	case u.Stub && !old.Stub:
	case u.Stub && old.Stub:
		if old.ScreenName == "" {
			old.ScreenName = u.ScreenName
		}
		if old.Name == "" {
			old.Name = u.Name
		}
	default:
		*old = u
	}
}

// post merges p into the batch (a later copy replaces an earlier one but
// keeps known views), completes its conversation id and makes sure its
// author and mentioned users exist at least as stubs.
func (e *emitter) post(p *social.Post) {
	if p.ConversationID == 0 {
		switch {
		case p.InReplyToID == 0:
			p.ConversationID = p.ID
		default:
			if root, ok := e.conv.get(p.InReplyToID); ok {
				p.ConversationID = root
			} else {
				p.ConversationID = p.InReplyToID
			}
		}
	}
	if p.InReplyToID != 0 {
		e.conv.put(p.ID, p.ConversationID)
	}
	if _, ok := e.users[p.AuthorID]; !ok {
		e.user(social.User{ID: p.AuthorID, Stub: true})
	}
	if p.InReplyToUserID != 0 && p.InReplyToScreenName != "" {
		e.user(social.User{ID: p.InReplyToUserID, ScreenName: p.InReplyToScreenName, Stub: true})
	}
	for _, m := range p.Entities.Mentions {
		if m.UserID > 0 {
			e.user(social.User{ID: m.UserID, ScreenName: m.ScreenName, Name: m.Name, Stub: true})
		}
	}
	if i, ok := e.posts[p.ID]; ok {
		old := &e.cur.Posts[i]
		if p.Views == nil {
			p.Views = old.Views
		}
		*old = *p
		return
	}
	e.posts[p.ID] = len(e.cur.Posts)
	e.cur.Posts = append(e.cur.Posts, *p)
	e.nPosts.Add(1)
}

// done flushes the current batch, if it holds anything.
func (e *emitter) done() error {
	if e.cur.Len() == 0 {
		return nil
	}
	b := e.cur
	e.reset()
	return e.flush(&b)
}

// convTracker remembers the conversation root of recent replies so that a
// reply whose parent was imported earlier gets the parent's root. It keeps
// two generations of at most convGen entries each, so memory stays bounded
// on any input; an older reply falls back to its parent's id.
type convTracker struct {
	cur, old map[int64]int64
}

const convGen = 1 << 19

func newConvTracker() *convTracker {
	return &convTracker{cur: make(map[int64]int64), old: map[int64]int64{}}
}

func (c *convTracker) get(id int64) (int64, bool) {
	if r, ok := c.cur[id]; ok {
		return r, true
	}
	r, ok := c.old[id]
	return r, ok
}

func (c *convTracker) put(id, root int64) {
	if len(c.cur) >= convGen {
		c.old = c.cur
		c.cur = make(map[int64]int64)
	}
	c.cur[id] = root
}
