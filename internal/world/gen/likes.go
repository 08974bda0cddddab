package gen

import "github.com/roostapi/roost/internal/social"

// likeCap is how many like rows a post gets at most: every post gets
// min(FavoriteCount, likeCap, users-1) of them, from distinct users other
// than its author. The counts are long-tailed, so a cap keeps the likes
// table near the size of the reposts table: the demo network (2,000 users,
// 100,000 posts, 23,757 repost rows) gets 42,656 likes with a cap of 1,
// 71,879 with 2 and 178,776 with 10.
const likeCap = 1

// likeWindowMS is how long after a post its likes come.
const likeWindowMS = 2 * dayMS

// likes gives post p its like rows, drawn from the likes stream: likers by
// activity, each liking between one second and likeWindowMS after the
// post was created (never after the window's end, unless the post is in
// its last second).
func (s *stream) likes(grp *group, p *social.Post, a *postAux) {
	n, g := s.n, s.lg
	want := int(min(p.FavoriteCount, likeCap, int64(n.cfg.Users-1)))
	if want <= 0 {
		return
	}
	n.newDraw()
	n.take(int(a.author))
	lo := p.CreatedAt.UnixMilli() + 1000
	hi := min(p.CreatedAt.UnixMilli()+likeWindowMS, windowEndMS)
	add := func(u int) {
		grp.likes = append(grp.likes, social.Like{PostID: p.ID, UserID: n.users[u].ID, CreatedAt: utc(randMS(g, lo, hi))})
	}
	got := 0
	for tries := 0; got < want && tries < 3*want; tries++ {
		if u := n.actPick.pick(g); n.take(u) {
			add(u)
			got++
		}
	}
	// Popular posts of small networks can outrun the draws: take the next
	// free users after a random one.
	for u := g.intn(n.cfg.Users); got < want; u = (u + 1) % n.cfg.Users {
		if n.take(u) {
			add(u)
			got++
		}
	}
	n.sum.Likes += int64(got)
}
