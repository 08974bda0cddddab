package gen

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// person is the generator's working state for one user, beside the profile.
type person struct {
	lang        uint8
	client      uint8
	communities []int32
	// roots samples the user's root posts (reservoir) for pinned posts
	// and highlights.
	roots     [maxHighlights]rootRef
	nroots    int32
	seenRoots int64
	highlight bool // shows highlights
}

type rootRef struct {
	id, ms, fav int64
}

const maxHighlights = 4

// buildUsers makes every profile. Index 0 is the most popular account;
// popularity falls as a power of the index.
func (n *network) buildUsers() {
	g := newRNG(n.cfg.Seed, streamUsers, 0)
	u := n.cfg.Users
	n.users = make([]social.User, u)
	n.people = make([]person, u)
	pop := make([]float64, u)
	act := make([]float64, u)
	taken := make(map[string]bool, u)
	top := max(5, u/50)
	n.org, n.curator = min(2, u-1), min(5, u-1)
	n.protectedEx, n.bannedEx = -1, -1
	if u >= 20 {
		n.protectedEx, n.bannedEx = u/2, u/3
	}
	for i := range u {
		p := &n.people[i]
		p.lang = uint8(n.v.langPick.pick(g))
		p.client = uint8(g.intn(len(sources)))
		l := &n.v.langs[p.lang]
		pop[i] = math.Pow(float64(i+1), -1.1) + 0.3/float64(u)
		act[i] = g.logNormal(0, 1) * (1 + 5/math.Sqrt(float64(i+1)))
		created := firstUserMS + g.int63n(lastUserMS-firstUserMS)
		if i < top { // the big accounts are mostly old ones
			created = firstUserMS + int64(float64(lastUserMS-firstUserMS)*math.Pow(g.float(), 2))
		}
		usr := social.User{
			Location:        pick(g, locations),
			CanDM:           g.chance(0.4),
			FavouritesCount: int64(g.logNormal(5, 1.5)),
			CreatedAt:       utc(created),
		}
		special := i < 10 || i == n.org || i == n.curator
		usr.Protected = i == n.protectedEx || (!special && g.chance(0.04))
		usr.ShadowBanned = i == n.bannedEx || (!special && !usr.Protected && g.chance(0.01))
		if i < top {
			usr.Verified, usr.BlueVerified = g.chance(0.7), g.chance(0.5)
		} else {
			usr.Verified, usr.BlueVerified = g.chance(0.015), g.chance(0.12)
		}
		switch {
		case g.chance(0.03):
			usr.ProfessionalType = "Creator"
		case g.chance(0.01):
			usr.ProfessionalType = "Business"
		}
		if usr.Protected {
			act[i] *= 0.5
		}
		usr.ScreenName = uniqueName(g, taken, screenName(g))
		usr.Name = displayName(g, n.v, p.lang)
		usr.Description = plainSentence(g, n.v, l, g.between(0, 18), 160)
		p.highlight = usr.Verified || usr.BlueVerified || usr.ProfessionalType != "" || g.chance(0.05)
		n.users[i] = usr
	}
	n.makeOrganisation(g, n.org, 0, taken)
	if u >= 50 {
		n.org2 = u / 10
		n.makeOrganisation(g, n.org2, 1, taken)
	} else {
		n.org2 = -1
	}
	n.assignUserIDs(g)
	for i := range n.users {
		usr := &n.users[i]
		usr.ImageURL = fmt.Sprintf("https://img.roost.example/profile_images/%d/%s_normal.jpg", usr.ID, randCode(g, 8))
		if g.chance(0.9) {
			usr.BannerURL = fmt.Sprintf("https://img.roost.example/profile_banners/%d/%d", usr.ID, usr.CreatedAt.Unix())
		}
		if g.chance(0.35) {
			usr.URL = "https://t.co/" + randCode(g, 10)
		}
	}
	n.popPick = newAlias(pop)
	n.actPick = newAlias(act)
}

// makeOrganisation turns user i into the k-th organisation.
func (n *network) makeOrganisation(g *rng, i, k int, taken map[string]bool) {
	usr := &n.users[i]
	org := organisations[k%len(organisations)]
	delete(taken, strings.ToLower(usr.ScreenName))
	usr.ScreenName = uniqueName(g, taken, org[0])
	usr.Name = org[1]
	usr.ProfessionalType = "Business"
	usr.Verified, usr.BlueVerified, usr.Protected, usr.ShadowBanned = true, true, false, false
	usr.Description = "Official account of " + org[1] + ". Building tools for people who love data ✨"
	n.people[i].highlight = true
}

// assignUserIDs numbers accounts in creation order: small counter ids
// before snowflakeUsersMS, snowflakes after.
func (n *network) assignUserIDs(g *rng) {
	order := make([]int, len(n.users))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(n.users[a].CreatedAt.Compare(n.users[b].CreatedAt), cmp.Compare(a, b))
	})
	var prev int64
	for k, i := range order {
		ms := n.users[i].CreatedAt.UnixMilli()
		var id int64
		if ms < snowflakeUsersMS {
			id = max(legacyUserID(ms), prev+1+g.int63n(50))
		} else {
			id = indexSnowflake(ms, k)
		}
		n.users[i].ID = id
		prev = id
	}
}

// screenName proposes a handle: [A-Za-z0-9_], at most 15 characters.
func screenName(g *rng) string {
	first, last, topic := pick(g, handleFirst), pick(g, handleLast), pick(g, handleTopics)
	var s string
	switch g.intn(9) {
	case 0:
		s = first + last
	case 1:
		s = first + "_" + last
	case 2:
		s = title(first) + title(last)
	case 3:
		s = first + strconv.Itoa(g.between(1, 9999))
	case 4:
		s = first[:1] + last
	case 5:
		s = topic + pick(g, handleTopics)
	case 6:
		s = first + "_" + topic
	case 7:
		s = "the" + title(first)
	default:
		s = title(first) + last + strconv.Itoa(g.between(70, 99))
	}
	return s
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// uniqueName makes s a valid handle not yet taken (case-insensitively).
func uniqueName(g *rng, taken map[string]bool, s string) string {
	if len(s) > 15 {
		s = s[:15]
	}
	base := s
	for tries := 0; ; tries++ {
		if k := strings.ToLower(s); !taken[k] {
			taken[k] = true
			return s
		}
		suffix := strconv.Itoa(g.intn(10 << min(tries, 20)))
		if len(base)+len(suffix) > 15 {
			base = base[:15-len(suffix)]
		}
		s = base + suffix
	}
}

func displayName(g *rng, v *vocab, lang uint8) string {
	dn := namesFor(v.langs[lang].code)
	given, family := pick(g, dn.given), pick(g, dn.family)
	var s string
	switch {
	case g.chance(0.15):
		s = given
	case dn.familyFirst:
		s = family + dn.sep + given
	default:
		s = given + dn.sep + family
	}
	if g.chance(0.12) {
		s += " " + pick(g, v.emoji).s
	}
	return s
}
