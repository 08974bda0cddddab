package gen

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/roostapi/roost/internal/social"
)

// Posts stream through a ring of groups. A group becomes one Write once
// it leaves the ring, so replies, quotes and reposts can still raise the
// counters of the posts they point to: every post is written once, with
// final counts. Targets are chosen among the posts still in the ring.
const (
	ringWindow  = 16384 // posts a reply, quote or repost can reach back
	popularSize = 1024  // recent popular posts, favoured as targets
	maxThreads  = 4     // self-threads being written at once
)

// Shares of post kinds, and other per-post odds.
const (
	pContinueThread = 0.35
	pRepost         = 0.10
	pReply          = 0.22
	pQuote          = 0.05
	pStartThread    = 0.006
	pLongThread     = 0.15
	pCommunityPost  = 0.15
	pOtherLang      = 0.12
	pEmojiOnly      = 0.02
	pLink           = 0.12
	pMedia          = 0.10
	pQuoteLink      = 0.6
	pTrailingTags   = 0.08
	pNoViews        = 0.07
)

type group struct {
	base     int64 // sequence number of posts[0]
	live     bool  // holds posts not yet written
	posts    []social.Post
	aux      []postAux
	text     []byte
	views    []int64
	mentions []social.Mention
	urls     []social.URL
	tags     []social.Tag
	media    []social.Media
	reposts  []social.Repost
	likes    []social.Like
}

// postAux is what the stream keeps about a post beside the post itself.
type postAux struct {
	author         int32
	runes          int32 // code points of the text
	textLo, textHi int32 // the text in group.text
	commIdx        int32 // community index + 1, 0 for none
	target         int64 // sequence of the reposted post; -1 if none
	reposters      []int32
}

type thread struct {
	author   int
	rootID   int64
	last     int64 // sequence of the latest post
	posts    int
	want     int
	numbered bool
}

type stream struct {
	n        *network
	ctx      context.Context
	w        social.Writer
	progress func(int)
	g        *rng
	lg       *rng // likes: a stream of their own (see likes.go)
	c        composer

	tokens      *quantiles  // tokens per post (newTokens)
	mentionPick mentionFunc // users by popularity

	size    int // posts per group
	groups  []*group
	oldest  int64 // sequence of the oldest post not yet written
	written int
	total   int64

	lastMS, lastWorker, lastSeq int64

	popular     [popularSize]int64
	npopular    int
	threads     []thread
	longStarted bool

	bestPost  int64 // example: the most engaged root post
	bestScore int64
}

func newStream(ctx context.Context, n *network, w social.Writer, progress func(int)) *stream {
	size := n.cfg.BatchSize
	count := max(2, (ringWindow+size-1)/size+1)
	s := &stream{n: n, ctx: ctx, w: w, progress: progress, g: newRNG(n.cfg.Seed, streamPosts, 0),
		lg: newRNG(n.cfg.Seed, streamLikes, 0), c: composer{buf: make([]byte, 0, 2048)},
		size: size, groups: make([]*group, count), total: int64(n.cfg.Posts), lastMS: -1}
	s.tokens = newTokens()
	s.mentionPick = func(g *rng) *social.User { return &n.users[n.popPick.pick(g)] }
	for i := range s.groups {
		s.groups[i] = &group{}
	}
	return s
}

// newTokens tabulates the tokens per post: log-normal, median 11.
func newTokens() *quantiles {
	return newQuantiles(func(p float64) float64 {
		return min(max(math.Exp(2.4+0.6*math.Sqrt2*math.Erfinv(2*p-1)), 1), 60)
	})
}

// run writes every post.
func (s *stream) run() error {
	for seq := int64(0); seq < s.total; seq++ {
		if seq%int64(s.size) == 0 {
			if err := s.startGroup(seq); err != nil {
				return err
			}
		}
		s.post(seq)
	}
	for s.oldest < s.total {
		before := s.oldest
		if err := s.flushOldest(); err != nil {
			return err
		}
		if s.oldest == before {
			return fmt.Errorf("gen: post %d was never generated", before)
		}
	}
	return nil
}

func (s *stream) slot(seq int64) (*group, int) {
	gi := int(seq/int64(s.size)) % len(s.groups)
	return s.groups[gi], int(seq % int64(s.size))
}

// startGroup makes room for the group starting at seq, writing the group
// it replaces.
func (s *stream) startGroup(seq int64) error {
	grp, _ := s.slot(seq)
	if grp.live {
		if err := s.flushOldest(); err != nil {
			return err
		}
	}
	n := int(min(int64(s.size), s.total-seq))
	*grp = group{
		base: seq, live: true,
		posts: make([]social.Post, n), aux: make([]postAux, n), views: make([]int64, n),
		text:     make([]byte, 0, n*160),
		mentions: make([]social.Mention, 0, n), urls: make([]social.URL, 0, n/3),
		tags: make([]social.Tag, 0, n), media: make([]social.Media, 0, n/3),
	}
	return nil
}

// flushOldest writes the oldest live group, if any.
func (s *stream) flushOldest() error {
	if s.oldest >= s.total {
		return nil
	}
	grp, _ := s.slot(s.oldest)
	if !grp.live || grp.base != s.oldest {
		return nil
	}
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("gen: generating posts: %w", err)
	}
	// The group's buffer is never written again, so the texts share it.
	text := unsafe.String(unsafe.SliceData(grp.text), len(grp.text))
	for i := range grp.posts {
		p, a := &grp.posts[i], &grp.aux[i]
		p.Text = text[a.textLo:a.textHi]
		s.phantomReposts(grp, p, a)
		s.likes(grp, p, a)
		s.considerExample(p, a)
	}
	s.n.sum.Reposts += int64(len(grp.reposts))
	b := &social.Batch{Posts: grp.posts, Reposts: grp.reposts, Likes: grp.likes}
	if _, err := s.w.Write(s.ctx, b); err != nil {
		return fmt.Errorf("gen: writing posts %d to %d: %w", grp.base, grp.base+int64(len(grp.posts))-1, err)
	}
	s.n.sum.Batches++
	s.written += len(grp.posts)
	s.oldest = grp.base + int64(len(grp.posts))
	*grp = group{}
	if s.progress != nil {
		s.progress(s.written)
	}
	return nil
}

// phantomReposts adds reposts that left no post behind, so that popular
// posts are reposted by more accounts than post natively; RetweetCount
// counts all of them.
func (s *stream) phantomReposts(grp *group, p *social.Post, a *postAux) {
	n, g := s.n, s.g
	if p.FavoriteCount < 5 || p.RepostOfID != 0 || n.users[a.author].Protected {
		return
	}
	start := p.CreatedAt.UnixMilli() + 1000
	if start >= windowEndMS {
		return
	}
	want := min(int(float64(p.FavoriteCount)*0.08*g.float()), n.cfg.Users/3, 300)
	if want == 0 {
		return
	}
	n.newDraw()
	n.take(int(a.author))
	for _, r := range a.reposters {
		n.take(int(r))
	}
	for tries, got := 0, 0; got < want && tries < 3*want; tries++ {
		u := n.actPick.pick(g)
		if !n.take(u) {
			continue
		}
		got++
		ms := randMS(g, start, min(start+7*dayMS, windowEndMS))
		grp.reposts = append(grp.reposts, social.Repost{PostID: p.ID, UserID: n.users[u].ID, CreatedAt: utc(ms)})
		p.RetweetCount++
	}
}

// considerExample keeps the public root post with the most engagement,
// preferring one that has replies, quotes and reposts.
func (s *stream) considerExample(p *social.Post, a *postAux) {
	if p.InReplyToID != 0 || p.RepostOfID != 0 || p.QuotedID != 0 {
		return
	}
	if u := &s.n.users[a.author]; u.Protected || u.ShadowBanned {
		return
	}
	score := p.ReplyCount + p.QuoteCount + p.RetweetCount
	if p.ReplyCount > 0 && p.QuoteCount > 0 && p.RetweetCount > 0 {
		score += 1 << 40
	}
	if score > s.bestScore {
		s.bestScore, s.bestPost = score, p.ID
	}
}

// at returns the post with sequence number seq, which must be in the ring.
func (s *stream) at(seq int64) (*group, *social.Post, *postAux) {
	grp, i := s.slot(seq)
	return grp, &grp.posts[i], &grp.aux[i]
}

// commit moves the composed text and entities into the group.
func (s *stream) commit(grp *group, pos int) {
	c, p, a := &s.c, &grp.posts[pos], &grp.aux[pos]
	a.textLo = int32(len(grp.text))
	grp.text = append(grp.text, c.buf...)
	a.textHi = int32(len(grp.text))
	a.runes = int32(c.n)
	// The slot is zero: assign only what exists (each store is a pointer
	// write the garbage collector has to see).
	e := &c.ents
	if len(e.Mentions) > 0 {
		p.Entities.Mentions = carve(&grp.mentions, e.Mentions)
	}
	if len(e.URLs) > 0 {
		p.Entities.URLs = carve(&grp.urls, e.URLs)
	}
	if len(e.Hashtags) > 0 {
		p.Entities.Hashtags = carve(&grp.tags, e.Hashtags)
	}
	if len(e.Symbols) > 0 {
		p.Entities.Symbols = carve(&grp.tags, e.Symbols)
	}
	if len(e.Media) > 0 {
		p.Entities.Media = carve(&grp.media, e.Media)
	}
}

// carve copies src into the arena and returns the copy, nil when empty.
func carve[T any](arena *[]T, src []T) []T {
	if len(src) == 0 {
		return nil
	}
	lo := len(*arena)
	*arena = append(*arena, src...)
	return (*arena)[lo:len(*arena):len(*arena)]
}
