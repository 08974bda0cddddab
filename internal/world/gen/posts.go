package gen

import (
	"strconv"

	"github.com/roostapi/roost/internal/social"
)

// pickTarget chooses a post to reply to, quote or repost: a recent one or
// a recent popular one, never a native repost (its original instead).
// For a repost or quote it skips protected authors; for a repost also the
// reposter's own posts and posts the reposter already reposted.
func (s *stream) pickTarget(seq int64, by int, share, repost bool) (int64, bool) {
	g := s.g
	for range 4 {
		var t int64
		if s.npopular > 0 && g.chance(0.5) {
			t = s.popular[g.intn(min(s.npopular, popularSize))]
		} else {
			t = seq - 1 - int64(g.exp()*300)
		}
		if t < s.oldest || t >= seq {
			continue
		}
		_, _, a := s.at(t)
		if a.target >= 0 {
			if t = a.target; t < s.oldest {
				continue
			}
			_, _, a = s.at(t)
		}
		if share && s.n.users[a.author].Protected {
			continue
		}
		if repost && (int(a.author) == by || reposted(a, by)) {
			continue
		}
		return t, true
	}
	return 0, false
}

func reposted(a *postAux, by int) bool {
	for _, r := range a.reposters {
		if int(r) == by {
			return true
		}
	}
	return false
}

// stamp gives post seq its time and snowflake id: times rise through the
// window and ids rise with them.
func (s *stream) stamp(seq int64) (int64, int64) {
	g := s.g
	span := float64(windowEndMS - windowStartMS)
	ms := windowStartMS + int64((float64(seq)+g.float())*span/float64(s.total))
	ms = max(ms, s.lastMS)
	if ms == s.lastMS && s.lastSeq < maxSeq {
		s.lastSeq++
	} else {
		if ms == s.lastMS {
			ms++
		}
		s.lastWorker, s.lastSeq = int64(g.intn(maxWorker+1)), int64(g.intn(8))
	}
	s.lastMS = ms
	return ms, snowflake(ms, s.lastWorker, s.lastSeq)
}

// post generates the post with sequence number seq.
func (s *stream) post(seq int64) {
	n, g := s.n, s.g
	grp, pos := s.slot(seq)
	p, a := &grp.posts[pos], &grp.aux[pos]
	ms, id := s.stamp(seq)
	// The slot is zero: set fields one by one rather than copying a whole
	// Post into it.
	p.ID, p.CreatedAt, p.ConversationID = id, utc(ms), id
	a.target = -1
	if len(s.threads) > 0 && g.chance(pContinueThread) && s.continueThread(seq, p, a) {
		s.finish(seq, grp, pos, 0.4)
		return
	}
	author := n.actPick.pick(g)
	a.author = int32(author)
	switch r := g.float(); {
	case r < pRepost:
		if t, ok := s.pickTarget(seq, author, true, true); ok {
			s.repost(seq, grp, pos, t)
			return
		}
	case r < pRepost+pReply:
		if t, ok := s.pickTarget(seq, author, false, false); ok {
			s.reply(seq, grp, pos, t)
			return
		}
	case r < pRepost+pReply+pQuote:
		if t, ok := s.pickTarget(seq, author, true, false); ok {
			s.quote(seq, grp, pos, t)
			return
		}
	}
	s.root(seq, grp, pos)
}

// continueThread makes p the next post of a running self-thread.
func (s *stream) continueThread(seq int64, p *social.Post, a *postAux) bool {
	n, g := s.n, s.g
	ti := g.intn(len(s.threads))
	th := &s.threads[ti]
	if th.last < s.oldest {
		s.endThread(ti)
		return false
	}
	_, prev, prevAux := s.at(th.last)
	author := &n.users[th.author]
	a.author = int32(th.author)
	p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName = prev.ID, author.ID, author.ScreenName
	p.ConversationID, p.CommunityID, a.commIdx = th.rootID, prev.CommunityID, prevAux.commIdx
	prev.ReplyCount++
	th.posts++
	th.last = seq
	s.c.reset()
	if th.numbered {
		s.c.numbered(th.posts)
	}
	s.compose(p, a, "")
	if th.posts >= th.want {
		s.endThread(ti)
	}
	n.sum.Replies++
	n.sum.SelfReplies++
	return true
}

func (s *stream) endThread(i int) {
	th := s.threads[i]
	if th.posts > 30 {
		s.n.sum.LongThreads++
		if s.n.sum.Examples.ThreadID == 0 && !s.n.users[th.author].Protected {
			s.n.sum.Examples.ThreadID = th.rootID
		}
	}
	s.threads[i] = s.threads[len(s.threads)-1]
	s.threads = s.threads[:len(s.threads)-1]
}

// root makes an original post, sometimes in a community, sometimes the
// start of a self-thread.
func (s *stream) root(seq int64, grp *group, pos int) {
	n, g := s.n, s.g
	p, a := &grp.posts[pos], &grp.aux[pos]
	author := int(a.author)
	if cs := n.people[author].communities; len(cs) > 0 && g.chance(pCommunityPost) {
		c := cs[g.intn(len(cs))]
		p.CommunityID, a.commIdx = n.comms[c].ID, c+1
	}
	s.c.reset()
	if len(s.threads) < maxThreads && !n.users[author].Protected && (!s.longStarted || g.chance(pStartThread)) {
		th := thread{author: author, rootID: p.ID, last: seq, posts: 1, want: g.between(2, 8), numbered: g.chance(0.5)}
		if !s.longStarted || g.chance(pLongThread) {
			th.want = g.between(31, 60)
			s.longStarted = true
		}
		if th.numbered {
			s.c.numbered(1)
		}
		s.threads = append(s.threads, th)
	}
	s.compose(p, a, "")
	s.finish(seq, grp, pos, 1)
}

// reply answers post t, opening with a mention of its author.
func (s *stream) reply(seq int64, grp *group, pos int, t int64) {
	n := s.n
	p, a := &grp.posts[pos], &grp.aux[pos]
	_, parent, pa := s.at(t)
	to := &n.users[pa.author]
	p.InReplyToID, p.InReplyToUserID, p.InReplyToScreenName = parent.ID, to.ID, to.ScreenName
	p.ConversationID, p.CommunityID, a.commIdx = parent.ConversationID, parent.CommunityID, pa.commIdx
	parent.ReplyCount++
	n.sum.Replies++
	if pa.author == a.author {
		n.sum.SelfReplies++
	}
	s.c.reset()
	s.c.mention(to.ID, to.ScreenName, to.Name)
	s.compose(p, a, "")
	s.finish(seq, grp, pos, 0.15)
}

// quote comments on post t, usually with a link to it.
func (s *stream) quote(seq int64, grp *group, pos int, t int64) {
	n, g := s.n, s.g
	p, a := &grp.posts[pos], &grp.aux[pos]
	_, q, qa := s.at(t)
	p.QuotedID = q.ID
	q.QuoteCount++
	n.sum.Quotes++
	s.c.reset()
	link := ""
	if g.chance(pQuoteLink) {
		link = "https://x.com/" + n.users[qa.author].ScreenName + "/status/" + strconv.FormatInt(q.ID, 10)
	}
	s.compose(p, a, link)
	s.finish(seq, grp, pos, 0.7)
}

// finish commits an original post (root, reply, self-reply or quote) and
// gives it counters: likes follow a power law scaled by the author's
// audience and by factor (replies draw fewer); views are usually known.
func (s *stream) finish(seq int64, grp *group, pos int, factor float64) {
	n, g := s.n, s.g
	p, a := &grp.posts[pos], &grp.aux[pos]
	s.commit(grp, pos)
	author := &n.users[a.author]
	p.AuthorID = author.ID
	followers := float64(author.FollowersCount)
	p.FavoriteCount = int64((1 + followers*0.03) * (g.pareto(1.4) - 1) * factor)
	p.BookmarkCount = p.FavoriteCount / int64(25+g.intn(75))
	if !g.chance(pNoViews) {
		v := &grp.views[pos]
		*v = p.FavoriteCount*int64(20+g.intn(180)) + int64(followers*(0.05+0.5*g.float())) + int64(1+g.intn(40))
		p.Views = v
	}
	author.StatusesCount++
	n.sum.Posts++
	if p.CommunityID != 0 {
		n.sum.CommunityPosts++
	}
	if p.InReplyToID != 0 {
		return
	}
	if p.FavoriteCount >= 30 || a.author < 10 {
		s.popular[s.npopular%popularSize] = seq
		s.npopular++
	}
	ref := rootRef{id: p.ID, ms: p.CreatedAt.UnixMilli(), fav: p.FavoriteCount}
	person := &n.people[a.author]
	person.seenRoots++
	if person.nroots < maxHighlights {
		person.roots[person.nroots] = ref
		person.nroots++
	} else if j := g.int63n(person.seenRoots); j < maxHighlights {
		person.roots[j] = ref
	}
	if a.commIdx > 0 && p.QuotedID == 0 {
		if best := &n.commBest[a.commIdx-1]; best.id == 0 || ref.fav > best.fav {
			*best = ref
		}
	}
}
