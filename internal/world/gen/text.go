package gen

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/social"
)

// maxRunes is the longest text, in code points.
const maxRunes = 280

// shortURLRunes is the length of a t.co-style link: "https://t.co/" + 10.
const shortURLRunes = 23

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// composer builds one post's text and entities, counting code points as it
// goes. Its buffers are reused from post to post.
type composer struct {
	buf      []byte
	n        int  // code points in buf
	wordLast bool // the last token was a plain word (CJK glue)
	ents     social.Entities
}

func (c *composer) reset() {
	c.buf, c.n, c.wordLast = c.buf[:0], 0, false
	c.ents.Mentions = c.ents.Mentions[:0]
	c.ents.URLs = c.ents.URLs[:0]
	c.ents.Hashtags = c.ents.Hashtags[:0]
	c.ents.Symbols = c.ents.Symbols[:0]
	c.ents.Media = c.ents.Media[:0]
}

// fits reports whether a token of n code points (plus a space) fits while
// keeping reserve code points free.
func (c *composer) fits(n, reserve int) bool { return c.n+1+n+reserve <= maxRunes }

func (c *composer) space() {
	if c.n > 0 {
		c.buf = append(c.buf, ' ')
		c.n++
	}
	c.wordLast = false
}

func (c *composer) raw(s string, n int) {
	c.buf = append(c.buf, s...)
	c.n += n
}

// word appends a vocabulary word; joined languages glue words together.
func (c *composer) word(w word, joined bool) {
	if !(joined && c.wordLast) {
		c.space()
	}
	c.raw(w.s, w.n)
	c.wordLast = true
}

// punct appends punctuation to the last word.
func (c *composer) punct(p word) {
	c.raw(p.s, p.n)
	c.wordLast = false
}

func (c *composer) token(w word) {
	c.space()
	c.raw(w.s, w.n)
}

func (c *composer) mention(id int64, screenName, name string) {
	c.space()
	start := c.n
	c.raw("@", 1)
	c.raw(screenName, len(screenName))
	c.ents.Mentions = append(c.ents.Mentions, social.Mention{UserID: id, ScreenName: screenName, Name: name, Start: start, End: c.n})
}

func (c *composer) hashtag(t word) {
	c.space()
	start := c.n
	c.raw("#", 1)
	c.raw(t.s, t.n)
	c.ents.Hashtags = append(c.ents.Hashtags, social.Tag{Text: t.s, Start: start, End: c.n})
}

func (c *composer) cashtag(t word) {
	c.space()
	start := c.n
	c.raw("$", 1)
	c.raw(t.s, t.n)
	c.ents.Symbols = append(c.ents.Symbols, social.Tag{Text: t.s, Start: start, End: c.n})
}

// shortURL appends a t.co-style link and returns it with its indices.
func (c *composer) shortURL(g *rng) (link string, start, end int) {
	c.space()
	start = len(c.buf)
	c.buf = append(c.buf, "https://t.co/"...)
	for range 10 {
		c.buf = append(c.buf, alnum[g.intn(len(alnum))])
	}
	link = string(c.buf[start:])
	start = c.n
	c.n += shortURLRunes
	return link, start, c.n
}

func (c *composer) link(g *rng, expanded string) {
	u, start, end := c.shortURL(g)
	c.ents.URLs = append(c.ents.URLs, social.URL{URL: u, ExpandedURL: expanded, DisplayURL: displayURL(expanded), Start: start, End: end})
}

// displayURL is the expanded link without its scheme, shortened with "…".
func displayURL(expanded string) string {
	d := strings.TrimPrefix(strings.TrimPrefix(expanded, "https://"), "http://")
	d = strings.TrimPrefix(d, "www.")
	if r := []rune(d); len(r) > 26 {
		d = string(r[:25]) + "…"
	}
	return d
}

// expandedURL makes the target of a link.
func expandedURL(g *rng, l *lang, screenName string) string {
	w := l.words[l.wordPick.pick(g)].s
	switch g.intn(6) {
	case 0:
		return "https://" + l.code + ".wikipedia.org/wiki/" + url.PathEscape(w)
	case 1:
		return "https://github.com/" + screenName + "/" + url.PathEscape(w)
	case 2:
		return "https://www.youtube.com/watch?v=" + randCode(g, 11)
	case 3:
		return "https://blog.roost.example/" + strconv.Itoa(2020+g.intn(7)) + "/" + url.PathEscape(w) + "-" + randCode(g, 6)
	case 4:
		return "https://news.example.com/article/" + strconv.Itoa(100000+g.intn(900000))
	default:
		return "https://open.spotify.example/track/" + randCode(g, 22)
	}
}

func randCode(g *rng, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alnum[g.intn(len(alnum))]
	}
	return string(b)
}

// plainSentence is n words of a language without entities, for profiles and
// list descriptions, cut to at most max code points.
func plainSentence(g *rng, v *vocab, l *lang, n, max int) string {
	var c composer
	for i := 0; i < n; i++ {
		switch {
		case g.chance(0.08):
			w := pick(g, v.emoji)
			if !c.fits(w.n, 0) || c.n+1+w.n > max {
				return string(c.buf)
			}
			c.token(w)
		default:
			w := l.words[l.wordPick.pick(g)]
			if !c.fits(w.n, 0) || c.n+1+w.n > max {
				return string(c.buf)
			}
			c.word(w, l.joined)
		}
	}
	return string(c.buf)
}

// numbered appends a thread position such as "3/".
func (c *composer) numbered(k int) {
	c.space()
	before := len(c.buf)
	c.buf = strconv.AppendInt(c.buf, int64(k), 10)
	c.buf = append(c.buf, '/')
	c.n += len(c.buf) - before
}

// mentionFunc chooses a user to mention.
type mentionFunc func(g *rng) *social.User

// body appends up to about tokens tokens of running text in language l,
// keeping reserve code points free; mention chooses whom it mentions.
func (c *composer) body(g *rng, v *vocab, l *lang, tokens, reserve int, mention mentionFunc) {
	for range tokens {
		x := g.intn(1024)
		switch {
		case x < 41:
			w := pick(g, v.emoji)
			if !c.fits(w.n, reserve) {
				return
			}
			c.token(w)
		case x < 72:
			t := l.tags[l.tagPick.pick(g)]
			if !c.fits(t.n+1, reserve) {
				return
			}
			c.hashtag(t)
		case x < 87:
			u := mention(g)
			if !c.fits(len(u.ScreenName)+1, reserve) {
				return
			}
			c.mention(u.ID, u.ScreenName, u.Name)
		case x < 94:
			t := pick(g, v.cashtags)
			if !c.fits(t.n+1, reserve) {
				return
			}
			c.cashtag(t)
		case x < 102:
			w := pick(g, v.escapes)
			if !c.fits(w.n, reserve) {
				return
			}
			c.token(w)
		default:
			w := l.words[l.wordPick.pick(g)]
			if !c.fits(w.n, reserve) {
				return
			}
			c.word(w, l.joined)
			if x >= 942 {
				if p := pick(g, l.punct); c.n+p.n+reserve <= maxRunes {
					c.punct(p)
				}
			}
		}
	}
}
