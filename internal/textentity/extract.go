package textentity

import "github.com/roostapi/roost/internal/social"

// Extract returns the entities of a post's text: user mentions, URLs,
// hashtags and cashtags ("symbols"), as twitter-text's
// extractEntitiesWithIndices finds them. Where two entities overlap (a
// hashtag or mention inside a URL), the one that starts first is kept.
// A reference to a list (@user/slug) is not a user mention, but still
// hides whatever overlaps it.
//
// Indices count Unicode code points of text exactly as given (HTML
// entities such as "&amp;" are five code points); an invalid UTF-8 byte
// counts as one.
func Extract(text string) social.Entities {
	var db decodeBuf
	var ub [8]urlSpan
	var tb, cb [16]span
	var mb [16]mentionSpan
	d := decode(text, &db)
	r := d.r
	urls := scanURLs(r, ub[:0])
	tags := scanHashtags(r, tb[:0])
	mentions := scanMentions(r, mb[:0])
	cashtags := scanCashtags(r, cb[:0])
	dropOverlaps(urls, tags, mentions, cashtags)
	return social.Entities{
		Mentions: mentionsOf(text, d.off, mentions),
		URLs:     urlsOf(text, d.off, urls),
		Hashtags: tagsOf(text, d.off, tags),
		Symbols:  tagsOf(text, d.off, cashtags),
	}
}

// Entity kinds in the order twitter-text lists them before sorting.
const (
	kindURL = iota
	kindHashtag
	kindMention
	kindCashtag
	kindNone
)

// dropOverlaps marks, by a negative end, every entity that starts before
// the previous kept one ends, taking the entities by start and, at equal
// starts, in kind order, as twitter-text's stable sort of its
// concatenated lists does. Each list is ordered by start.
func dropOverlaps(urls []urlSpan, tags []span, mentions []mentionSpan, cashtags []span) {
	var iu, it, im, ic int
	prevEnd := 0
	for {
		kind, start := kindNone, 0
		pick := func(k, s int) {
			if kind == kindNone || s < start {
				kind, start = k, s
			}
		}
		if iu < len(urls) {
			pick(kindURL, urls[iu].start)
		}
		if it < len(tags) {
			pick(kindHashtag, tags[it].start)
		}
		if im < len(mentions) {
			pick(kindMention, mentions[im].at)
		}
		if ic < len(cashtags) {
			pick(kindCashtag, cashtags[ic].start)
		}
		var end *int
		switch kind {
		case kindURL:
			end, iu = &urls[iu].end, iu+1
		case kindHashtag:
			end, it = &tags[it].end, it+1
		case kindMention:
			end, im = &mentions[im].end, im+1
		case kindCashtag:
			end, ic = &cashtags[ic].end, ic+1
		default:
			return
		}
		if start < prevEnd {
			*end = -1
		} else {
			prevEnd = *end
		}
	}
}
