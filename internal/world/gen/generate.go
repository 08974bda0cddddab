package gen

import (
	"context"
	"fmt"

	"github.com/roostapi/roost/internal/social"
)

// Generate writes a synthetic network through w, in this order: users
// (some with an extended bio); communities, lists and affiliations with
// their members; follows; posts with their reposts and likes, in batches
// of cfg.BatchSize posts; then the users, communities and highlights
// again, now with final post counts, pinned posts and highlighted posts;
// and the audio spaces. progress, if not nil, is called with the
// number of posts written after each batch of posts.
//
// When w is a social.BulkLoader, the network is written through its bulk writer,
// and generating overlaps writing (a batch is generated while the one
// before it is written; progress then counts the posts handed over). When
// that writer is a social.ConcurrentWriter, batches of posts (which share
// no key) are written that many at once; every other batch is written
// alone, after everything before it.
func Generate(ctx context.Context, w social.Writer, cfg Config, progress func(posts int)) (Summary, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return Summary{}, err
	}
	bl, ok := w.(social.BulkLoader)
	if !ok {
		return generate(ctx, w, w, cfg, progress)
	}
	var sum Summary
	err = bl.Bulk(ctx, int64(cfg.Posts), func(bw social.Writer) error {
		workers := 1
		if cw, ok := bw.(social.ConcurrentWriter); ok {
			workers = cw.Concurrency()
		}
		p := social.NewPipe(ctx, bw, workers)
		var gerr error
		sum, gerr = generate(ctx, p, p.Unordered(), cfg, progress)
		if err := p.Close(); gerr == nil && err != nil {
			gerr = fmt.Errorf("gen: writing: %w", err)
		}
		return gerr
	})
	return sum, err
}

// generate is Generate on a normalized config: the stream's batches of
// posts go through posts, everything else through w.
func generate(ctx context.Context, w, posts social.Writer, cfg Config, progress func(posts int)) (Summary, error) {
	n := newNetwork(cfg)
	n.buildUsers()
	n.buildCommunities()
	n.buildLists()
	n.buildAffiliations()
	n.countFollows()
	n.buildSpaces()
	n.buildBios()
	n.sum.LikeCap = likeCap

	e := &emitter{ctx: ctx, w: w, size: cfg.BatchSize, b: &social.Batch{}, sum: &n.sum}
	if err := n.writeSetup(e, posts); err != nil {
		return n.sum, err
	}
	s := newStream(ctx, n, posts, progress)
	if err := s.run(); err != nil {
		return n.sum, err
	}
	if err := n.writeFinal(e, s, posts); err != nil {
		return n.sum, err
	}
	n.summarise(s)
	return n.sum, nil
}

// emitter gathers relation values into batches of about size values.
type emitter struct {
	ctx  context.Context
	w    social.Writer
	size int
	b    *social.Batch // a new one after every write: the writer may keep it
	sum  *Summary
}

// maybeFlush writes the batch once it is full.
func (e *emitter) maybeFlush() error {
	if e.b.Len() < e.size {
		return nil
	}
	return e.flush()
}

// flush writes what has been gathered.
func (e *emitter) flush() error {
	if e.b.Len() == 0 {
		return nil
	}
	if err := e.ctx.Err(); err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if _, err := e.w.Write(e.ctx, e.b); err != nil {
		return fmt.Errorf("gen: writing a batch of %d values: %w", e.b.Len(), err)
	}
	e.sum.Batches++
	e.b = &social.Batch{}
	return nil
}

// chunks appends vals to the batch field that field selects, writing
// batches as they fill.
func chunks[T any](e *emitter, field func(*social.Batch) *[]T, vals []T) error {
	for len(vals) > 0 {
		k := min(len(vals), max(e.size-e.b.Len(), 1))
		dst := field(e.b)
		*dst = append(*dst, vals[:k]...)
		vals = vals[k:]
		if err := e.maybeFlush(); err != nil {
			return err
		}
	}
	return nil
}

// writeSetup writes users and every relation that posts do not need. The
// relations go through unordered: no value is written twice, so no two of
// their batches share a key.
func (n *network) writeSetup(e *emitter, unordered social.Writer) error {
	ordered := e.w
	defer func() { e.w = ordered }()
	steps := []func() error{
		func() error { return chunks(e, fieldUsers, n.users) },
		e.flush, // users stand alone before anything refers to them
		func() error { e.w = unordered; return nil },
		func() error { return chunks(e, fieldCommunities, n.comms) },
		func() error { return chunks(e, fieldCommunityMembers, n.commMembers) },
		func() error { return chunks(e, fieldLists, n.lists) },
		func() error { return chunks(e, fieldListMembers, n.listMembers) },
		func() error { return chunks(e, fieldListSubscribers, n.listSubs) },
		func() error { return chunks(e, fieldAffiliations, n.affs) },
		n.writeFollows(e),
		e.flush,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	n.sum.Users = int64(len(n.users))
	n.sum.Communities, n.sum.CommunityMembers = int64(len(n.comms)), int64(len(n.commMembers))
	n.sum.Lists, n.sum.ListMembers, n.sum.ListSubscribers = int64(len(n.lists)), int64(len(n.listMembers)), int64(len(n.listSubs))
	n.sum.Affiliations = int64(len(n.affs))
	n.commMembers, n.listMembers, n.listSubs = nil, nil, nil
	return nil
}

// writeFollows walks the follow graph again, writing it.
func (n *network) writeFollows(e *emitter) func() error {
	return func() error {
		g := newRNG(0, 0, 0)
		var err error
		for u := range n.users {
			follower := n.users[u].ID
			n.follows(g, u, func(v int, ms int64) {
				if err != nil {
					return
				}
				e.b.Follows = append(e.b.Follows, social.Follow{FollowerID: follower, FolloweeID: n.users[v].ID, CreatedAt: utc(ms)})
				err = e.maybeFlush()
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// writeFinal writes users with their final counts and pinned posts,
// communities with pinned posts, highlights and audio spaces.
//
// The users go through unordered, beside the last batches of posts: their
// first copies were written alone, before everything else. The
// communities, whose first copies went through unordered, wait for every
// batch before them.
func (n *network) writeFinal(e *emitter, s *stream, unordered social.Writer) error {
	g := newRNG(n.cfg.Seed, streamFinal, 0)
	var highlights []social.Highlight
	for i := range n.users {
		u, p := &n.users[i], &n.people[i]
		if p.nroots > 0 && (i < 10 || i == n.org || g.chance(0.25)) {
			best := p.roots[0]
			for _, r := range p.roots[1:p.nroots] {
				if r.fav > best.fav {
					best = r
				}
			}
			u.PinnedPostID = best.id
			n.sum.PinnedPosts++
		}
		if p.highlight {
			for _, r := range p.roots[:p.nroots] {
				ms := randMS(g, r.ms+60_000, min(r.ms+2*dayMS, windowEndMS))
				highlights = append(highlights, social.Highlight{UserID: u.ID, PostID: r.id, CreatedAt: utc(ms)})
			}
		}
	}
	for c := range n.comms {
		n.comms[c].PinnedPostID = n.commBest[c].id
	}
	n.sum.Highlights = int64(len(highlights))
	ordered := e.w
	e.w = unordered
	if err := chunks(e, fieldUsers, n.users); err != nil {
		return err
	}
	if err := e.flush(); err != nil {
		return err
	}
	e.w = ordered
	if err := chunks(e, fieldCommunities, n.comms); err != nil {
		return err
	}
	if err := chunks(e, fieldHighlights, highlights); err != nil {
		return err
	}
	if err := chunks(e, fieldSpaces, n.spaces); err != nil {
		return err
	}
	return e.flush()
}

// summarise counts accounts and picks the example ids.
func (n *network) summarise(s *stream) {
	ex := &n.sum.Examples
	for i := range n.users {
		u := &n.users[i]
		switch {
		case u.Protected:
			n.sum.ProtectedUsers++
		case u.ShadowBanned:
			n.sum.ShadowBanned++
		}
		if u.Verified {
			n.sum.VerifiedUsers++
		}
		if u.BlueVerified {
			n.sum.BlueVerified++
		}
	}
	ex.UserID, ex.Username = n.users[0].ID, n.users[0].ScreenName
	if n.protectedEx >= 0 {
		ex.ProtectedUserID = n.users[n.protectedEx].ID
	}
	if n.bannedEx >= 0 {
		ex.ShadowBannedUsername = n.users[n.bannedEx].ScreenName
	}
	ex.OrganizationUserID = n.users[n.org].ID
	ex.ListsUserID = n.users[n.curator].ID
	if len(n.comms) > 0 {
		ex.CommunityID = n.comms[0].ID
	}
	if len(n.lists) > 0 {
		ex.ListID = n.lists[0].ID
	}
	ex.PostID = s.bestPost
}

// Batch field selectors for chunks.
func fieldUsers(b *social.Batch) *[]social.User                       { return &b.Users }
func fieldCommunities(b *social.Batch) *[]social.Community            { return &b.Communities }
func fieldCommunityMembers(b *social.Batch) *[]social.CommunityMember { return &b.CommunityMembers }
func fieldLists(b *social.Batch) *[]social.List                       { return &b.Lists }
func fieldListMembers(b *social.Batch) *[]social.ListMember           { return &b.ListMembers }
func fieldListSubscribers(b *social.Batch) *[]social.ListSubscriber   { return &b.ListSubscribers }
func fieldAffiliations(b *social.Batch) *[]social.Affiliation         { return &b.Affiliations }
func fieldHighlights(b *social.Batch) *[]social.Highlight             { return &b.Highlights }
func fieldSpaces(b *social.Batch) *[]social.Space                     { return &b.Spaces }
