package gen

import "github.com/roostapi/roost/internal/social"

// network is one generation run: the users and relations kept in memory
// (all small beside the posts, which stream through the ring in posts.go).
type network struct {
	cfg    Config
	v      *vocab
	users  []social.User
	people []person

	popPick alias // users by popularity (who gets followed, mentioned, listed)
	actPick alias // users by activity (who posts, reposts, subscribes)

	// Special accounts, by index (-1 when the network is too small).
	org, org2, curator, protectedEx, bannedEx int

	lists       []social.List
	listMembers []social.ListMember
	listSubs    []social.ListSubscriber
	comms       []social.Community
	commMembers []social.CommunityMember
	commBest    []rootRef // per community: its most liked root post
	affs        []social.Affiliation
	spaces      []social.Space

	// mark and stamp pick distinct users without a set: mark[u] == stamp
	// means u is taken in the current draw.
	mark  []uint32
	stamp uint32

	sum Summary
}

func newNetwork(cfg Config) *network {
	return &network{cfg: cfg, v: newVocab(), mark: make([]uint32, cfg.Users)}
}

// newDraw starts a new set of distinct picks.
func (n *network) newDraw() {
	n.stamp++
	if n.stamp == 0 {
		clear(n.mark)
		n.stamp = 1
	}
}

// take marks u as picked and reports whether it was free.
func (n *network) take(u int) bool {
	if n.mark[u] == n.stamp {
		return false
	}
	n.mark[u] = n.stamp
	return true
}
