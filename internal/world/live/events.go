package live

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/roostapi/roost/internal/social"
)

// Shares of event kinds, per mille; what cannot be made (nothing to
// unfollow, a post liked already) becomes a post.
func kinds() []kindShare {
	return []kindShare{
		{KindPost, 300}, {KindReply, 200}, {KindQuote, 50}, {KindRepost, 100},
		{KindLike, 220}, {KindFollow, 80}, {KindUnfollow, 30}, {KindProfile, 20},
	}
}

// kindShare is one kind's share of the ticks.
type kindShare struct {
	kind   string
	permil int
}

// Odds of the draws within events.
const (
	pActiveActor   = 0.6 // the actor is a recent post's author (else anyone)
	pRecentTarget  = 0.7 // a target among the very newest posts (else any post of the ring)
	recentMean     = 300 // mean distance back of such a target
	pQuoteLink     = 0.6 // a quote ends with a link to the quoted post
	mentionPool    = 3   // users a new post mentions at most
	maxUnfollowing = 20  // an unfollow picks among the newest accounts followed
)

// tickRand is the random source of tick t: the seed and the tick alone.
func (lw *World) tickRand(t int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(lw.seed), uint64(t)*0x9e3779b97f4a7c15^0x5851f42d4c957f2d))
}

// maker makes one tick's batch.
type maker struct {
	ctx context.Context
	lw  *World
	r   *rand.Rand
	t   int64
	ms  int64 // the tick's time
	b   *social.Batch
	ev  Event
	err error // a read that failed inside the composer
}

// errSkip: this kind of event cannot be made now; the tick makes a post.
var errSkip = errors.New("cannot be made now")

// make builds tick t's batch.
func (lw *World) make(ctx context.Context, t int64) (*social.Batch, Event, error) {
	r := lw.tickRand(t)
	lw.texts.Reseed(lw.seed, uint64(t))
	m := &maker{ctx: ctx, lw: lw, r: r, t: t, b: &social.Batch{}}
	m.ms = lw.baseMS + (t-1)*TickMS + r.Int64N(TickMS)
	m.ev = Event{Tick: t, At: time.UnixMilli(m.ms).UTC()}
	x, kind := r.IntN(1000), KindPost
	for _, k := range kinds() {
		if x < k.permil {
			kind = k.kind
			break
		}
		x -= k.permil
	}
	actor, err := m.actor()
	if err != nil {
		return nil, m.ev, err
	}
	m.ev.Kind, m.ev.UserID = kind, actor.ID
	switch kind {
	case KindReply:
		err = m.reply(&actor)
	case KindQuote:
		err = m.quote(&actor)
	case KindRepost:
		err = m.repost(&actor)
	case KindLike:
		err = m.like(&actor)
	case KindFollow:
		err = m.follow(&actor)
	case KindUnfollow:
		err = m.unfollow(&actor)
	case KindProfile:
		err = m.profile(&actor)
	default:
		err = errSkip
	}
	if errors.Is(err, errSkip) {
		m.b = &social.Batch{}
		m.ev.Kind, m.ev.Target = KindPost, 0
		err = m.post(&actor)
	}
	return m.b, m.ev, err
}

// user reads a full profile; found is false for a stub or a missing one.
func (m *maker) user(id int64) (social.User, bool, error) {
	u, err := m.lw.db.User(m.ctx, id)
	if errors.Is(err, social.ErrNotFound) {
		return u, false, nil
	}
	if err != nil {
		return u, false, err
	}
	return u, !u.Stub, nil
}

// anyone draws a user: a recent post's author with odds p, else anyone.
func (m *maker) anyone(p float64) (social.User, error) {
	lw := m.lw
	for range 4 {
		id := lw.users[m.r.IntN(len(lw.users))]
		if len(lw.ring) > 0 && m.r.Float64() < p {
			id = lw.ring[m.r.IntN(len(lw.ring))].AuthorID
		}
		u, ok, err := m.user(id)
		if err != nil || ok {
			return u, err
		}
	}
	u, _, err := m.user(lw.users[m.r.IntN(len(lw.users))])
	return u, err
}

// actor draws who acts: mostly the recently active.
func (m *maker) actor() (social.User, error) { return m.anyone(pActiveActor) }

// target draws a post of the ring, mostly among the newest, and reads it:
// a native repost's original stands in for it. Its author is read too.
func (m *maker) target() (social.Post, social.User, error) {
	ring := m.lw.ring
	if len(ring) == 0 {
		return social.Post{}, social.User{}, errSkip
	}
	i := m.r.IntN(len(ring))
	if m.r.Float64() < pRecentTarget {
		i = len(ring) - 1 - min(int(m.r.ExpFloat64()*recentMean), len(ring)-1)
	}
	id := ring[i].ID
	if ring[i].RepostOfID != 0 {
		id = ring[i].RepostOfID
	}
	p, err := m.lw.db.Post(m.ctx, id)
	if errors.Is(err, social.ErrNotFound) {
		return p, social.User{}, errSkip
	}
	if err != nil {
		return p, social.User{}, err
	}
	to, ok, err := m.user(p.AuthorID)
	if err == nil && !ok {
		err = errSkip
	}
	return p, to, err
}

// newPost starts the tick's post by author: a snowflake of the tick's time
// that no stored post has (an id above every post the ring holds, the
// newest, is none's).
func (m *maker) newPost(author *social.User) (social.Post, error) {
	ring := m.lw.ring
	for {
		id := snowflake(m.ms, m.r.Int64N(1024), m.r.Int64N(8))
		taken := false
		if len(ring) > 0 && id <= ring[len(ring)-1].ID {
			_, err := m.lw.db.Post(m.ctx, id)
			if err != nil && !errors.Is(err, social.ErrNotFound) {
				return social.Post{}, err
			}
			taken = err == nil
		}
		if !taken {
			m.ev.PostID = id
			return social.Post{ID: id, AuthorID: author.ID, CreatedAt: m.ev.At, ConversationID: id, Views: new(int64)}, nil
		}
	}
}

// mentions chooses the users a new post's text mentions, as it asks:
// recent authors, each read when first needed (most texts mention no one).
// A failed read mentions the author and is kept in m.err.
func (m *maker) mentions(author *social.User) func() *social.User {
	var pool []social.User
	return func() *social.User {
		if len(pool) == mentionPool {
			return &pool[m.r.IntN(len(pool))]
		}
		u, err := m.anyone(1)
		if err != nil || u.ScreenName == "" {
			if err != nil && m.err == nil {
				m.err = err
			}
			u = *author
		}
		pool = append(pool, u)
		return &pool[len(pool)-1]
	}
}

// compose writes an original post: a reply to replyTo when not nil, a
// quote ending with quoteLink when not "".
func (m *maker) compose(p *social.Post, author, replyTo *social.User, quoteLink string) error {
	if m.lw.texts.Compose(p, author, replyTo, quoteLink, m.mentions(author)) {
		author.MediaCount++
	}
	author.StatusesCount++
	return m.err
}

// post is a new root post.
func (m *maker) post(a *social.User) error {
	p, err := m.newPost(a)
	if err != nil {
		return err
	}
	if err := m.compose(&p, a, nil, ""); err != nil {
		return err
	}
	m.b.Posts, m.b.Users = []social.Post{p}, []social.User{*a}
	return nil
}

// reply answers a recent post, in its conversation and community.
func (m *maker) reply(a *social.User) error {
	parent, to, err := m.target()
	if err != nil {
		return err
	}
	p, err := m.newPost(a)
	if err != nil {
		return err
	}
	p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName = parent.ID, to.ID, to.ScreenName
	p.ConversationID, p.CommunityID = parent.ConversationID, parent.CommunityID
	if p.ConversationID == 0 {
		p.ConversationID = parent.ID
	}
	if err := m.compose(&p, a, &to, ""); err != nil {
		return err
	}
	parent.ReplyCount++
	m.ev.Target = parent.ID
	m.b.Posts, m.b.Users = []social.Post{parent, p}, []social.User{*a}
	return nil
}

// quote comments on a recent public post.
func (m *maker) quote(a *social.User) error {
	q, to, err := m.target()
	if err != nil {
		return err
	}
	if to.Protected {
		return errSkip
	}
	p, err := m.newPost(a)
	if err != nil {
		return err
	}
	p.QuotedID = q.ID
	link := ""
	if m.r.Float64() < pQuoteLink {
		link = "https://x.com/" + to.ScreenName + "/status/" + strconv.FormatInt(q.ID, 10)
	}
	if err := m.compose(&p, a, nil, link); err != nil {
		return err
	}
	q.QuoteCount++
	m.ev.Target = q.ID
	m.b.Posts, m.b.Users = []social.Post{q, p}, []social.User{*a}
	return nil
}

// repost reposts a recent public post of someone else, once.
func (m *maker) repost(a *social.User) error {
	orig, to, err := m.target()
	if err != nil {
		return err
	}
	if to.Protected || to.ID == a.ID {
		return errSkip
	}
	if done, err := m.lw.db.Reposted(m.ctx, orig.ID, a.ID); err != nil || done {
		return cmpSkip(err)
	}
	p, err := m.newPost(a)
	if err != nil {
		return err
	}
	p.RepostOfID = orig.ID
	m.lw.texts.Retweet(&p, a, &orig, &to)
	orig.RetweetCount++
	a.StatusesCount++
	m.ev.Target = orig.ID
	m.b.Posts, m.b.Users = []social.Post{orig, p}, []social.User{*a}
	m.b.Reposts = []social.Repost{{PostID: orig.ID, UserID: a.ID, CreatedAt: m.ev.At}}
	return nil
}

// like likes a recent post of someone else, once; the post is seen a few
// more times too.
func (m *maker) like(a *social.User) error {
	p, _, err := m.target()
	if err != nil {
		return err
	}
	if p.AuthorID == a.ID {
		return errSkip
	}
	if done, err := m.lw.db.Liked(m.ctx, p.ID, a.ID); err != nil || done {
		return cmpSkip(err)
	}
	p.FavoriteCount++
	if p.Views != nil {
		*p.Views += 1 + m.r.Int64N(40)
	}
	a.FavouritesCount++
	m.ev.PostID = p.ID
	m.b.Posts, m.b.Users = []social.Post{p}, []social.User{*a}
	m.b.Likes = []social.Like{{PostID: p.ID, UserID: a.ID, CreatedAt: m.ev.At}}
	return nil
}

// follow follows someone not followed yet, mostly a recent author.
func (m *maker) follow(a *social.User) error {
	for range 4 {
		to, err := m.anyone(0.5)
		if err != nil {
			return err
		}
		if to.ID == a.ID {
			continue
		}
		done, err := m.lw.db.Follows(m.ctx, a.ID, to.ID)
		if err != nil {
			return err
		}
		if done {
			continue
		}
		a.FriendsCount++
		to.FollowersCount++
		m.ev.Target = to.ID
		m.b.Users = []social.User{*a, to}
		m.b.Follows = []social.Follow{{FollowerID: a.ID, FolloweeID: to.ID, CreatedAt: m.ev.At}}
		return nil
	}
	return errSkip
}

// unfollow stops following one of the accounts followed most recently.
func (m *maker) unfollow(a *social.User) error {
	pg, err := m.lw.db.Following(m.ctx, a.ID, social.PageReq{Limit: maxUnfollowing})
	if err != nil {
		return err
	}
	var cands []social.User
	for _, u := range pg.Items {
		if !u.Stub && u.ID != a.ID {
			cands = append(cands, u)
		}
	}
	if len(cands) == 0 {
		return errSkip
	}
	to := cands[m.r.IntN(len(cands))]
	a.FriendsCount = max(a.FriendsCount-1, 0)
	to.FollowersCount = max(to.FollowersCount-1, 0)
	m.ev.Target = to.ID
	m.b.Users = []social.User{*a, to}
	m.b.Unfollows = []social.Follow{{FollowerID: a.ID, FolloweeID: to.ID}}
	return nil
}

// profile edits the bio, the location or the display name.
func (m *maker) profile(a *social.User) error {
	t := m.lw.texts
	switch m.r.IntN(3) {
	case 0:
		a.Description = t.Bio(a.ID)
	case 1:
		a.Location = t.Location()
	default:
		a.Name = t.DisplayName(a.ID)
	}
	m.b.Users = []social.User{*a}
	return nil
}

// cmpSkip is err, or errSkip when there is none (the event was made
// already).
func cmpSkip(err error) error {
	if err != nil {
		return fmt.Errorf("look up: %w", err)
	}
	return errSkip
}
