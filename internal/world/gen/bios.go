package gen

import "strings"

// Extended bios: about one user in bioShare writes one, of 1–4 paragraphs
// in the user's language, separated by newlines.
const (
	bioShare        = 0.10
	bioMaxParagraph = 280 // code points
)

// buildBios gives some users an extended bio, from the bios stream.
func (n *network) buildBios() {
	g := newRNG(n.cfg.Seed, streamBios, 0)
	var paras []string
	for i := range n.users {
		if !g.chance(bioShare) {
			continue
		}
		l := &n.v.langs[n.people[i].lang]
		paras = paras[:0]
		for range g.between(1, 4) {
			if p := plainSentence(g, n.v, l, g.between(12, 45), bioMaxParagraph); p != "" {
				paras = append(paras, p)
			}
		}
		u := &n.users[i]
		if u.ExtendedBio = strings.Join(paras, "\n"); u.ExtendedBio == "" {
			continue
		}
		n.sum.ExtendedBios++
		if n.sum.Examples.ExtendedBioUsername == "" && !u.Protected && !u.ShadowBanned {
			n.sum.Examples.ExtendedBioUsername = u.ScreenName
		}
	}
}
