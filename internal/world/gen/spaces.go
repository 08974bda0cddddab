package gen

import (
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// usersPerSpace sizes the audio spaces: one per this many users, at least one.
const usersPerSpace = 200

// base62 are the characters of a space id.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// buildSpaces makes the audio spaces, from the spaces stream: hosts by
// popularity, each with 0–3 more admins and up to 10 speakers (none while
// scheduled), every fifth running and every fifth scheduled, the rest
// ended. The network's clock stops at windowEndMS: running spaces started
// before it, scheduled ones start after it.
func (n *network) buildSpaces() {
	g := newRNG(n.cfg.Seed, streamSpaces, 0)
	count := max(1, n.cfg.Users/usersPerSpace)
	taken := make(map[string]bool, count)
	for i := range count {
		host := n.popPick.pick(g)
		for tries := 0; n.users[host].Protected && tries < 10; tries++ {
			host = n.popPick.pick(g)
		}
		u := &n.users[host]
		sp := social.Space{ID: spaceID(g, taken), CreatorID: u.ID, Admins: []int64{u.ID}}
		sp.Title = plainSentence(g, n.v, &n.v.langs[n.people[host].lang], g.between(2, 8), 70)
		n.newDraw()
		n.take(host)
		sp.Admins = append(sp.Admins, n.distinctUsers(g, g.between(0, 3))...)
		audience := float64(1+u.FollowersCount/50) * g.pareto(1.5)
		switch i % 5 {
		case 3:
			sp.State = social.SpaceRunning
			started := windowEndMS - 5*60_000 - g.int63n(3*3_600_000)
			sp.CreatedAt, sp.StartedAt = utc(started-g.int63n(30*60_000)), utc(started)
			sp.UpdatedAt = utc(randMS(g, started, windowEndMS))
			sp.Listeners = int64(audience / 2)
		case 4:
			sp.State = social.SpaceScheduled
			created := windowEndMS - dayMS - g.int63n(20*dayMS)
			sp.CreatedAt, sp.UpdatedAt = utc(created), utc(created)
			sp.ScheduledStart = utc(windowEndMS + 3_600_000 + g.int63n(14*dayMS))
		default:
			sp.State = social.SpaceEnded
			created := windowStartMS + g.int63n(windowEndMS-windowStartMS-10*dayMS)
			started := created + 60_000 + g.int63n(10*60_000)
			if g.chance(0.5) {
				start := created + 3_600_000 + g.int63n(3*dayMS)
				sp.ScheduledStart, started = utc(start), start+g.int63n(10*60_000)
			}
			ended := started + 15*60_000 + g.int63n(4*3_600_000)
			sp.CreatedAt, sp.StartedAt, sp.EndedAt = utc(created), utc(started), utc(ended)
			sp.UpdatedAt = utc(ended + g.int63n(60_000))
			sp.Listeners = int64(audience)
			if sp.Replay = g.chance(0.6); sp.Replay {
				sp.ReplayWatched = int64(float64(sp.Listeners) * 2 * g.float())
			}
		}
		if sp.State != social.SpaceScheduled {
			sp.Speakers = n.distinctUsers(g, g.between(0, 10))
		}
		n.spaces = append(n.spaces, sp)
		if n.sum.Examples.SpaceID == "" && sp.State == social.SpaceEnded && len(sp.Speakers) > 0 {
			n.sum.Examples.SpaceID = sp.ID
		}
	}
	if n.sum.Examples.SpaceID == "" {
		n.sum.Examples.SpaceID = n.spaces[0].ID
	}
	n.sum.Spaces = int64(len(n.spaces))
}

// distinctUsers picks up to k users by activity that the current draw
// (newDraw) has not taken yet, and takes them.
func (n *network) distinctUsers(g *rng, k int) []int64 {
	var out []int64
	for tries := 0; len(out) < k && tries < 3*k; tries++ {
		if u := n.actPick.pick(g); n.take(u) {
			out = append(out, n.users[u].ID)
		}
	}
	return out
}

// spaceID draws a new 13-character base62 id that starts with "1", as the
// network's do ("1jMJgLdenVjxL").
func spaceID(g *rng, taken map[string]bool) string {
	var b strings.Builder
	for {
		b.Reset()
		b.WriteByte('1')
		for range 12 {
			b.WriteByte(base62[g.intn(len(base62))])
		}
		if id := b.String(); !taken[id] {
			taken[id] = true
			return id
		}
	}
}
