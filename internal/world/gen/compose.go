package gen

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/roostapi/roost/internal/social"
)

// compose writes the text of an original post (after whatever prefix the
// composer holds) and stores it with its entities. quoteLink, when given,
// ends the text as a link to the quoted post.
func (s *stream) compose(p *social.Post, a *postAux, quoteLink string) {
	n, g, c := s.n, s.g, &s.c
	author := &n.users[a.author]
	person := &n.people[a.author]
	if c.text(g, n.v, s.tokens, p, author.ScreenName, int(person.lang), quoteLink, s.mentionPick) {
		author.MediaCount++
		n.sum.MediaPosts++
	}
	if p.Source == "" {
		p.Source = pickSource(g, person.client)
	}
}

// pickSource is the client of a post by a user who mostly writes from
// client.
func pickSource(g *rng, client uint8) string {
	if g.chance(0.2) {
		client = uint8(g.intn(len(sources)))
	}
	return sources[client]
}

// text composes the text of post p by screenName, who writes in language
// li (mostly), and sets its language; see compose. It reports whether it
// attached media.
func (c *composer) text(g *rng, v *vocab, tokens *quantiles, p *social.Post, screenName string, li int,
	quoteLink string, mention mentionFunc) bool {
	if g.chance(pOtherLang) {
		li = v.langPick.pick(g)
	}
	l := &v.langs[li]
	p.Lang = l.code
	if g.chance(pEmojiOnly) && c.n == 0 {
		for range g.between(1, 5) {
			c.token(pick(g, v.emoji))
		}
		p.Lang = "und"
		return false
	}
	link := g.chance(pLink)
	media := g.chance(pMedia)
	reserve := 0
	for _, on := range [...]bool{link, media, quoteLink != ""} {
		if on {
			reserve += shortURLRunes + 1
		}
	}
	c.body(g, v, l, tokens.draw(g), reserve, mention)
	if g.chance(pTrailingTags) {
		for range g.between(1, 3) {
			t := l.tags[l.tagPick.pick(g)]
			if !c.fits(t.n+1, reserve) {
				break
			}
			c.hashtag(t)
		}
	}
	if link {
		c.link(g, expandedURL(g, l, screenName))
	}
	if quoteLink != "" {
		c.link(g, quoteLink)
	}
	if media {
		c.addMedia(g, p, screenName)
	}
	return media
}

// addMedia ends the text with a media link and attaches photos, a video or
// an animated GIF.
func (c *composer) addMedia(g *rng, p *social.Post, screenName string) {
	kind, count, ext := social.MediaPhoto, 1, ".jpg"
	switch r := g.intn(100); {
	case r < 75:
		count = []int{1, 1, 1, 1, 2, 2, 3, 4}[g.intn(8)]
	case r < 92:
		kind = social.MediaVideo
	default:
		kind, ext = social.MediaGIF, ".mp4"
	}
	link, start, end := c.shortURL(g)
	ms := p.CreatedAt.UnixMilli()
	kindPath := "photo"
	if kind != social.MediaPhoto {
		kindPath = "video"
	}
	base := "https://x.com/" + screenName + "/status/" + strconv.FormatInt(p.ID, 10) + "/" + kindPath + "/"
	for j := range count {
		code := randCode(g, 15)
		c.ents.Media = append(c.ents.Media, social.Media{
			ID:          snowflake(ms-1-g.int63n(60_000), int64(g.intn(maxWorker+1)), int64(j)),
			Type:        kind,
			URL:         link,
			MediaURL:    "https://img.roost.example/media/" + code + ext,
			ExpandedURL: base + strconv.Itoa(j+1),
			DisplayURL:  "pic.x.com/" + link[len("https://t.co/"):],
			Start:       start,
			End:         end,
		})
	}
}

// repost makes a native repost of post t.
func (s *stream) repost(seq int64, grp *group, pos int, t int64) {
	n, c := s.n, &s.c
	p, a := &grp.posts[pos], &grp.aux[pos]
	tg, orig, oa := s.at(t)
	by := &n.users[a.author]
	to := &n.users[oa.author]
	text := tg.text[oa.textLo:oa.textHi]
	c.retweet(to, unsafe.String(unsafe.SliceData(text), len(text)), int(oa.runes), &orig.Entities)
	p.AuthorID = by.ID
	p.RepostOfID = orig.ID
	p.Lang = orig.Lang
	p.Source = sources[n.people[a.author].client]
	a.target = t
	oa.reposters = append(oa.reposters, a.author)
	orig.RetweetCount++
	grp.reposts = append(grp.reposts, social.Repost{PostID: orig.ID, UserID: by.ID, CreatedAt: p.CreatedAt})
	n.sum.RepostPosts++
	s.commit(grp, pos)
	by.StatusesCount++
	n.sum.Posts++
}

// retweet composes the text of a native repost of a post by to with text
// (runes code points) and entities e: "RT @author: " and the text, cut
// with "…" where it would pass 280 code points, with its entities shifted
// and those cut off dropped.
func (c *composer) retweet(to *social.User, text string, runes int, e *social.Entities) {
	c.reset()
	c.raw("RT @", 4)
	c.raw(to.ScreenName, len(to.ScreenName))
	c.ents.Mentions = append(c.ents.Mentions, social.Mention{UserID: to.ID, ScreenName: to.ScreenName, Name: to.Name, Start: 3, End: c.n})
	c.raw(": ", 2)
	shift := c.n
	limit := runes
	if shift+limit > maxRunes {
		limit = maxRunes - 1 - shift
		cut := 0
		for range limit {
			_, size := utf8.DecodeRuneInString(text[cut:])
			cut += size
		}
		// Never cut an escape such as "&amp;" in two.
		if amp := strings.LastIndexByte(text[:cut], '&'); amp >= 0 && cut-amp < 5 && strings.IndexByte(text[amp:cut], ';') < 0 {
			limit -= utf8.RuneCountInString(text[amp:cut])
			cut = amp
		}
		c.buf = append(c.buf, text[:cut]...)
		c.buf = append(c.buf, "…"...)
		c.n += limit + 1
	} else {
		c.buf = append(c.buf, text...)
		c.n += limit
	}
	for _, m := range e.Mentions {
		if m.End <= limit {
			m.Start, m.End = m.Start+shift, m.End+shift
			c.ents.Mentions = append(c.ents.Mentions, m)
		}
	}
	for _, u := range e.URLs {
		if u.End <= limit {
			u.Start, u.End = u.Start+shift, u.End+shift
			c.ents.URLs = append(c.ents.URLs, u)
		}
	}
	for _, h := range e.Hashtags {
		if h.End <= limit {
			h.Start, h.End = h.Start+shift, h.End+shift
			c.ents.Hashtags = append(c.ents.Hashtags, h)
		}
	}
	for _, h := range e.Symbols {
		if h.End <= limit {
			h.Start, h.End = h.Start+shift, h.End+shift
			c.ents.Symbols = append(c.ents.Symbols, h)
		}
	}
	for _, m := range e.Media {
		if m.End <= limit {
			m.Start, m.End = m.Start+shift, m.End+shift
			c.ents.Media = append(c.ents.Media, m)
		}
	}
}
