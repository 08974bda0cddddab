package gen

import (
	"fmt"
	"math"

	"github.com/roostapi/roost/internal/social"
)

// randMS returns a time in [lo, hi) in ms, or lo when the range is empty.
func randMS(g *rng, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.int63n(hi-lo)
}

func (n *network) createdMS(u int) int64 { return n.users[u].CreatedAt.UnixMilli() }

// follows calls fn for every account u follows, with the time. It is
// deterministic per u, so the graph can be walked twice (counting, then
// writing) without being kept in memory.
func (n *network) follows(g *rng, u int, fn func(v int, ms int64)) {
	users := n.cfg.Users
	if users < 2 {
		return
	}
	g.reseed(n.cfg.Seed, streamFollows, uint64(u))
	median := min(35, max(users/20, 2))
	want := min(int(g.logNormal(math.Log(float64(median)), 1)), users-1, 5000)
	n.newDraw()
	n.take(u)
	for tries, got := 0, 0; got < want && tries < 3*want+10; tries++ {
		v := n.popPick.pick(g)
		if !n.take(v) {
			continue
		}
		got++
		lo := max(n.createdMS(u), n.createdMS(v)) + dayMS
		fn(v, randMS(g, lo, windowEndMS))
	}
}

// countFollows sets FollowersCount and FriendsCount from the graph.
func (n *network) countFollows() {
	g := newRNG(0, 0, 0)
	for u := range n.users {
		n.follows(g, u, func(v int, _ int64) {
			n.users[u].FriendsCount++
			n.users[v].FollowersCount++
			n.sum.Follows++
		})
	}
}

// buildLists makes lists with members and subscribers. The curator owns
// the first lists and subscribes to many others: more than 100 in all.
func (n *network) buildLists() {
	g := newRNG(n.cfg.Seed, streamLists, 0)
	users := n.cfg.Users
	count := min(max(users/2, 130), 50_000)
	const curatorOwns, curatorSubs = 25, 90
	subscribed := make([]bool, count) // lists the curator subscribes to
	for _, k := range g.r.Perm(count - curatorOwns)[:min(curatorSubs, count-curatorOwns)] {
		subscribed[curatorOwns+k] = true
	}
	for k := range count {
		owner := n.curator
		if k >= curatorOwns {
			owner = n.actPick.pick(g)
		}
		// Lists began in late 2009, but their ids are snowflakes only from the
		// snowflake epoch (2010-11-04) on: keep them positive.
		lo := max(n.createdMS(owner), snowflakeEpochMS+dayMS)
		created := randMS(g, lo, windowEndMS-60*dayMS)
		l := social.List{
			ID:          indexSnowflake(created, k),
			OwnerID:     n.users[owner].ID,
			Name:        pick(g, listNames),
			Description: plainSentence(g, n.v, &n.v.langs[n.people[owner].lang], g.between(0, 12), 100),
			Mode:        "Public",
			CreatedAt:   utc(created),
		}
		if g.chance(0.08) {
			l.Mode = "Private"
		}
		l.BannerURL = fmt.Sprintf("https://img.roost.example/list_banner_img/%d.jpg", l.ID)
		members := min(max(int(g.logNormal(math.Log(12), 1.1)), 1), users, 2000)
		subs := min(int(g.pareto(1.1))-1, users-1, 1000)
		if k == 0 {
			members, subs = min(users, 80), min(users-1, 30)
		}
		n.newDraw()
		for tries := 0; l.MemberCount < int64(members) && tries < 3*members+10; tries++ {
			v := n.popPick.pick(g)
			if !n.take(v) {
				continue
			}
			ms := randMS(g, max(created, n.createdMS(v)), windowEndMS)
			n.listMembers = append(n.listMembers, social.ListMember{ListID: l.ID, UserID: n.users[v].ID, CreatedAt: utc(ms)})
			n.users[v].ListedCount++
			l.MemberCount++
		}
		n.newDraw()
		n.take(owner)
		subscribe := func(v int) {
			ms := randMS(g, max(created, n.createdMS(v)), windowEndMS)
			n.listSubs = append(n.listSubs, social.ListSubscriber{ListID: l.ID, UserID: n.users[v].ID, CreatedAt: utc(ms)})
			l.SubscriberCount++
		}
		if subscribed[k] && n.take(n.curator) {
			subscribe(n.curator)
		}
		for tries := 0; l.SubscriberCount < int64(subs) && tries < 3*subs+10; tries++ {
			if v := n.actPick.pick(g); n.take(v) {
				subscribe(v)
			}
		}
		n.lists = append(n.lists, l)
	}
}

// buildCommunities makes communities with an admin (the creator, sometimes
// two), moderators and members. Everyone joins before the posts begin.
func (n *network) buildCommunities() {
	g := newRNG(n.cfg.Seed, streamCommunities, 0)
	users := n.cfg.Users
	count := min(max(users/100, 3), 1000, users)
	n.commBest = make([]rootRef, count)
	for c := range count {
		creator := n.popPick.pick(g)
		created := randMS(g, max(communitiesMS, n.createdMS(creator)), windowStartMS-7*dayMS)
		cm := social.Community{
			ID:          indexSnowflake(created, c),
			Name:        pick(g, communityNames),
			Description: plainSentence(g, n.v, &n.v.langs[n.people[creator].lang], g.between(4, 20), 160),
			CreatorID:   n.users[creator].ID,
			CreatedAt:   utc(created),
		}
		size := min(max(int(float64(users)*0.4/math.Pow(float64(c+1), 0.8)), 5), users, 5000)
		admins := 1
		if g.chance(0.3) {
			admins = 2
		}
		mods := g.between(1, 4)
		n.newDraw()
		join := func(u int, role string) {
			ms := created
			if u != creator {
				ms = randMS(g, max(created, n.createdMS(u)), windowStartMS)
			}
			n.commMembers = append(n.commMembers, social.CommunityMember{CommunityID: cm.ID, UserID: n.users[u].ID, Role: role, JoinedAt: utc(ms)})
			n.people[u].communities = append(n.people[u].communities, int32(c))
			cm.MemberCount++
		}
		n.take(creator)
		join(creator, social.RoleAdmin)
		for tries := 0; cm.MemberCount < int64(size) && tries < 3*size+10; tries++ {
			u := g.intn(users)
			if g.chance(0.3) {
				u = n.popPick.pick(g)
			}
			if !n.take(u) {
				continue
			}
			role := social.RoleMember
			switch k := cm.MemberCount; {
			case k < int64(admins):
				role = social.RoleAdmin
			case k < int64(admins+mods):
				role = social.RoleModerator
			}
			join(u, role)
		}
		n.comms = append(n.comms, cm)
	}
}

// buildAffiliations links affiliated accounts to the organisations.
func (n *network) buildAffiliations() {
	g := newRNG(n.cfg.Seed, streamCommunities, 1)
	users := n.cfg.Users
	add := func(org, count int) {
		if org < 0 {
			return
		}
		n.newDraw()
		n.take(org)
		for tries := 0; count > 0 && tries < 3*count+10; tries++ {
			u := g.intn(users)
			if !n.take(u) {
				continue
			}
			count--
			ms := randMS(g, max(n.createdMS(org), n.createdMS(u)), windowEndMS)
			n.affs = append(n.affs, social.Affiliation{OrgID: n.users[org].ID, UserID: n.users[u].ID, CreatedAt: utc(ms)})
		}
	}
	add(n.org, min(max(users/40, 5), 200, users-1))
	add(n.org2, min(max(users/200, 2), 50, users-1))
}
