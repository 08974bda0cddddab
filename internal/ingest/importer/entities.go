package importer

import (
	"strings"

	"github.com/roostapi/roost/internal/social"
	"github.com/roostapi/roost/internal/textentity"
)

// Entity categories, for marking which ones a source left without indices.
const (
	catMentions = 1 << iota
	catURLs
	catHashtags
	catSymbols
	catAll = catMentions | catURLs | catHashtags | catSymbols
)

// v1Entities is the v1.1 entities object, also used by GraphQL legacy
// objects, note tweets' entity_set and the data export (where numbers are
// strings).
type v1Entities struct {
	Hashtags     []v1Tag     `json:"hashtags"`
	Symbols      []v1Tag     `json:"symbols"`
	UserMentions []v1Mention `json:"user_mentions"`
	URLs         []v1URL     `json:"urls"`
	Media        []v1Media   `json:"media"`
}

type v1Tag struct {
	Text    string    `json:"text"`
	Indices []flexInt `json:"indices"`
}

type v1Mention struct {
	ID         flexInt   `json:"id"`
	IDStr      flexInt   `json:"id_str"`
	ScreenName string    `json:"screen_name"`
	Name       string    `json:"name"`
	Indices    []flexInt `json:"indices"`
}

type v1URL struct {
	URL         string    `json:"url"`
	ExpandedURL string    `json:"expanded_url"`
	DisplayURL  string    `json:"display_url"`
	Indices     []flexInt `json:"indices"`
}

type v1Media struct {
	ID            flexInt   `json:"id"`
	IDStr         flexInt   `json:"id_str"`
	Type          string    `json:"type"`
	URL           string    `json:"url"`
	MediaURL      string    `json:"media_url"`
	MediaURLHTTPS string    `json:"media_url_https"`
	ExpandedURL   string    `json:"expanded_url"`
	DisplayURL    string    `json:"display_url"`
	Indices       []flexInt `json:"indices"`
}

// span reads a two-element indices array, moved through pos (see
// escapeHTML); ok is false when the source gave no usable indices.
func span(ix []flexInt, pos []int) (start, end int, ok bool) {
	if len(ix) != 2 {
		return 0, 0, false
	}
	return remap(pos, int(ix[0])), remap(pos, int(ix[1])), true
}

// convert turns v1.1 entities into the domain form. media is the
// extended_entities.media list when the source has one (it carries the
// video and GIF types). missing gets the categories that lacked indices.
func (e *v1Entities) convert(media []v1Media, pos []int) (out social.Entities, missing int) {
	for _, m := range e.UserMentions {
		s, en, ok := span(m.Indices, pos)
		if !ok {
			missing |= catMentions
		}
		out.Mentions = append(out.Mentions, social.Mention{UserID: first(m.IDStr, m.ID),
			ScreenName: m.ScreenName, Name: m.Name, Start: s, End: en})
	}
	for _, u := range e.URLs {
		s, en, ok := span(u.Indices, pos)
		if !ok {
			missing |= catURLs
		}
		out.URLs = append(out.URLs, social.URL{URL: u.URL, ExpandedURL: u.ExpandedURL,
			DisplayURL: u.DisplayURL, Start: s, End: en})
	}
	for _, t := range e.Hashtags {
		s, en, ok := span(t.Indices, pos)
		if !ok {
			missing |= catHashtags
		}
		out.Hashtags = append(out.Hashtags, social.Tag{Text: t.Text, Start: s, End: en})
	}
	for _, t := range e.Symbols {
		s, en, ok := span(t.Indices, pos)
		if !ok {
			missing |= catSymbols
		}
		out.Symbols = append(out.Symbols, social.Tag{Text: t.Text, Start: s, End: en})
	}
	if len(media) == 0 {
		media = e.Media
	}
	for _, m := range media {
		s, en, _ := span(m.Indices, pos)
		typ := m.Type
		if typ == "" {
			typ = social.MediaPhoto
		}
		out.Media = append(out.Media, social.Media{ID: first(m.IDStr, m.ID), Type: typ, URL: m.URL,
			MediaURL: firstString(m.MediaURLHTTPS, m.MediaURL), ExpandedURL: m.ExpandedURL,
			DisplayURL: m.DisplayURL, Start: s, End: en})
	}
	return out, missing
}

// complete fills the categories marked missing with what the extractor
// finds in text, keeping what the source knew about each item (a
// mention's user id, a link's target) where the extracted item matches it.
func complete(text string, have social.Entities, missing int) social.Entities {
	if missing == 0 {
		return have
	}
	ext := textentity.Extract(text)
	if missing&catMentions != 0 {
		known := map[string]social.Mention{}
		for _, m := range have.Mentions {
			known[strings.ToLower(m.ScreenName)] = m
		}
		for i, m := range ext.Mentions {
			if k, ok := known[strings.ToLower(m.ScreenName)]; ok {
				ext.Mentions[i].UserID, ext.Mentions[i].Name = k.UserID, k.Name
			}
		}
		have.Mentions = ext.Mentions
	}
	if missing&catURLs != 0 {
		known := map[string]social.URL{}
		for _, u := range have.URLs {
			known[u.URL] = u
		}
		for i, u := range ext.URLs {
			if k, ok := known[u.URL]; ok {
				ext.URLs[i].ExpandedURL, ext.URLs[i].DisplayURL = k.ExpandedURL, k.DisplayURL
			}
		}
		have.URLs = ext.URLs
	}
	if missing&catHashtags != 0 {
		have.Hashtags = ext.Hashtags
	}
	if missing&catSymbols != 0 {
		have.Symbols = ext.Symbols
	}
	return have
}

// mediaOutside gives media whose indices point into a text that was
// replaced (a note tweet's full text does not hold the media link) an
// empty span at the end of the new text: the attachment is kept, with no
// position in the text.
func mediaOutside(media []social.Media, text string) []social.Media {
	n := len([]rune(text))
	for i := range media {
		media[i].Start, media[i].End = n, n
	}
	return media
}

func firstString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
