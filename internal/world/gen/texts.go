package gen

import (
	"unicode/utf8"

	"github.com/roostapi/roost/internal/social"
)

// streamLive is the stream of the texts made after a run (Texts); it
// follows the generator's own streams so that none of theirs moves.
const streamLive = streamBios + 1

// Texts composes posts and profile fields the way Generate does, from the
// same vocabulary, for values made after a run (package live). Its draws
// come from a stream of their own, restarted by Reseed. A Texts is not safe
// for concurrent use.
type Texts struct {
	v      *vocab
	g      *rng
	c      composer
	tokens *quantiles
}

// NewTexts builds the vocabulary (tens of milliseconds).
func NewTexts() *Texts {
	return &Texts{v: newVocab(), g: newRNG(0, streamLive, 0), c: composer{buf: make([]byte, 0, 2048)}, tokens: newTokens()}
}

// Reseed restarts the draws on the sequence named by (seed, idx).
func (t *Texts) Reseed(seed int64, idx uint64) { t.g.reseed(seed, streamLive, idx) }

// habits are a user's language and usual client, drawn from the user's id
// alone, so that they stay the same from one use to the next.
func (t *Texts) habits(userID int64) (lang int, client uint8) {
	g := newRNG(userID, streamLive, 1)
	return t.v.langPick.pick(g), uint8(g.intn(len(sources)))
}

// Compose writes the text of a new original post p by author (its ID and
// CreatedAt set): a reply opening with a mention of replyTo when that is
// not nil, ending with a link to the quoted post when quoteLink is not "".
// It sets Text, Entities, Lang and Source, and reports whether it attached
// media. mention chooses the other users the text mentions.
func (t *Texts) Compose(p *social.Post, author, replyTo *social.User, quoteLink string, mention func() *social.User) bool {
	c := &t.c
	c.reset()
	if replyTo != nil {
		c.mention(replyTo.ID, replyTo.ScreenName, replyTo.Name)
	}
	li, client := t.habits(author.ID)
	media := c.text(t.g, t.v, t.tokens, p, author.ScreenName, li, quoteLink, func(*rng) *social.User { return mention() })
	p.Source = pickSource(t.g, client)
	t.take(p)
	return media
}

// Retweet writes the text of p, by author, a native repost of orig by to:
// "RT @to: " and orig's text, cut to 280 code points, with its entities.
// It sets Text, Entities, Lang and Source.
func (t *Texts) Retweet(p *social.Post, author *social.User, orig *social.Post, to *social.User) {
	t.c.retweet(to, orig.Text, utf8.RuneCountInString(orig.Text), &orig.Entities)
	_, client := t.habits(author.ID)
	p.Lang, p.Source = orig.Lang, sources[client]
	t.take(p)
}

// take copies the composed text and entities into p: the composer's
// buffers are reused.
func (t *Texts) take(p *social.Post) {
	c := &t.c
	p.Text = string(c.buf)
	p.Entities = social.Entities{
		Mentions: carve(new([]social.Mention), c.ents.Mentions),
		URLs:     carve(new([]social.URL), c.ents.URLs),
		Hashtags: carve(new([]social.Tag), c.ents.Hashtags),
		Symbols:  carve(new([]social.Tag), c.ents.Symbols),
		Media:    carve(new([]social.Media), c.ents.Media),
	}
}

// Bio is a new profile description for the user.
func (t *Texts) Bio(userID int64) string {
	li, _ := t.habits(userID)
	return plainSentence(t.g, t.v, &t.v.langs[li], t.g.between(0, 18), 160)
}

// DisplayName is a new display name for the user.
func (t *Texts) DisplayName(userID int64) string {
	li, _ := t.habits(userID)
	return displayName(t.g, t.v, uint8(li))
}

// Location is a new profile location.
func (t *Texts) Location() string { return pick(t.g, locations) }
