// Package searchtest checks a store's search against a brute-force
// reference: Eval decides whether one post matches a parsed query, written
// directly from the operator semantics (docs/search.md, search/ast.go) and
// sharing no code with any store's compiler; Run generates a fixed network
// into an empty store and checks the store's Search against Eval on the
// vector file search/testdata/search_vectors.txt and on random queries.
package searchtest

import (
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// World answers what a post and its author alone do not say.
type World interface {
	// InList reports whether userID is a member of list listID.
	InList(listID, userID int64) bool
	// AuthorOf returns the author of a stored post.
	AuthorOf(postID int64) (int64, bool)
}

// Eval reports whether post p, written by author (nil when unknown), matches
// q. It is the reference the stores are tested against.
func Eval(q *search.Query, p *social.Post, author *social.User, w World) bool {
	if q.Reposts == search.RepostsExcluded && p.RepostOfID != 0 {
		return false
	}
	if q.Root == nil {
		return true
	}
	e := evaluator{p: p, author: author, w: w, tokens: strings.Fields(search.IndexText(p.Text))}
	return e.eval(q.Root)
}

type evaluator struct {
	p      *social.Post
	author *social.User
	w      World
	tokens []string
}

func (e *evaluator) eval(n search.Node) bool {
	p := e.p
	switch n := n.(type) {
	case search.And:
		for _, c := range n.Children {
			if !e.eval(c) {
				return false
			}
		}
		return true
	case search.Or:
		for _, c := range n.Children {
			if e.eval(c) {
				return true
			}
		}
		return false
	case search.Not:
		return !e.eval(n.Child)
	case search.Word:
		return e.hasSequence(search.QueryTokens(n.Text))
	case search.Phrase:
		var seq []string
		for _, w := range n.Words {
			if w == "*" {
				seq = append(seq, "*")
			} else {
				seq = append(seq, search.QueryTokens(w)...)
			}
		}
		return e.hasSequence(seq)
	case search.URL:
		for _, u := range p.Entities.URLs {
			if containsUnderscoreDash(strings.ToLower(u.ExpandedURL), strings.ToLower(n.Sub)) {
				return true
			}
		}
		return false
	case search.Hashtag:
		return hasTag(p.Entities.Hashtags, n.Tag)
	case search.Cashtag:
		return hasTag(p.Entities.Symbols, n.Tag)
	case search.Mention:
		for _, m := range p.Entities.Mentions {
			if m.ScreenName != "" && strings.ToLower(m.ScreenName) == strings.ToLower(n.User) {
				return true
			}
		}
		return false
	case search.From:
		return e.author != nil && !e.author.ShadowBanned && strings.EqualFold(e.author.ScreenName, n.User)
	case search.To:
		return p.InReplyToID != 0 && strings.EqualFold(p.InReplyToScreenName, n.User)
	case search.Lang:
		return strings.ToLower(p.Lang) == n.Code
	case search.ListMembers:
		return e.w.InList(n.ListID, p.AuthorID)
	case search.IDBound:
		if n.Max {
			return p.ID <= n.ID
		}
		return p.ID > n.ID
	case search.TimeBound:
		if n.Since {
			return !p.CreatedAt.Before(n.T)
		}
		return p.CreatedAt.Before(n.T)
	case search.Ref:
		return e.ref(n)
	case search.MinCount:
		switch n.Kind {
		case search.Faves:
			return p.FavoriteCount >= n.N
		case search.Retweets:
			return p.RetweetCount >= n.N
		case search.Replies:
			return p.ReplyCount >= n.N
		}
	case search.Filter:
		return e.filter(n.Kind)
	}
	return false
}

// hasSequence reports whether the post's tokens hold seq contiguously,
// "*" matching any one token.
func (e *evaluator) hasSequence(seq []string) bool {
	if len(seq) == 0 {
		return false
	}
outer:
	for i := 0; i+len(seq) <= len(e.tokens); i++ {
		for j, w := range seq {
			if w != "*" && e.tokens[i+j] != w {
				continue outer
			}
		}
		return true
	}
	return false
}

func (e *evaluator) ref(n search.Ref) bool {
	p := e.p
	switch n.Kind {
	case search.RefConversation:
		conv := p.ConversationID
		if conv == 0 {
			conv = p.ID
		}
		return conv == n.ID
	case search.RefQuotedTweet:
		return p.QuotedID != 0 && p.QuotedID == n.ID
	case search.RefQuotedUser:
		if p.QuotedID == 0 {
			return false
		}
		a, ok := e.w.AuthorOf(p.QuotedID)
		return ok && a == n.ID
	case search.RefInReplyTo:
		return p.InReplyToID != 0 && p.InReplyToID == n.ID
	}
	return false
}

func (e *evaluator) filter(k search.FilterKind) bool {
	p := e.p
	switch k {
	case search.FilterReplies:
		return p.InReplyToID != 0
	case search.FilterSelfThreads:
		return p.InReplyToID != 0 && p.InReplyToUserID == p.AuthorID
	case search.FilterQuote:
		return p.QuotedID != 0
	case search.FilterNativeReposts:
		return p.RepostOfID != 0
	case search.FilterRetweets:
		return p.RepostOfID != 0 || strings.HasPrefix(p.Text, "RT @")
	case search.FilterMedia:
		return len(p.Entities.Media) > 0
	case search.FilterImages, search.FilterVideos:
		for _, m := range p.Entities.Media {
			if k == search.FilterImages && m.Type == social.MediaPhoto ||
				k == search.FilterVideos && (m.Type == social.MediaVideo || m.Type == social.MediaGIF) {
				return true
			}
		}
		return false
	case search.FilterLinks:
		return len(p.Entities.URLs) > 0
	case search.FilterMentions:
		return len(p.Entities.Mentions) > 0
	case search.FilterHashtags:
		return len(p.Entities.Hashtags) > 0
	case search.FilterHasEngagement:
		return p.FavoriteCount > 0 || p.RetweetCount > 0 || p.ReplyCount > 0 || p.QuoteCount > 0
	case search.FilterVerified:
		return e.author != nil && e.author.Verified
	case search.FilterBlueVerified:
		return e.author != nil && e.author.BlueVerified
	}
	return false
}

func hasTag(tags []social.Tag, want string) bool {
	for _, t := range tags {
		if strings.ToLower(t.Text) == strings.ToLower(want) {
			return true
		}
	}
	return false
}

// containsUnderscoreDash reports whether s contains sub, where '_' in sub
// matches '_' or '-'.
func containsUnderscoreDash(s, sub string) bool {
	alt := strings.ReplaceAll(sub, "_", "-")
	if sub == alt {
		return strings.Contains(s, sub)
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		ok := true
		for j := 0; j < len(sub); j++ {
			if s[i+j] != sub[j] && s[i+j] != alt[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
