// Package search parses the network's search operator language into an AST
// and lowers it (Lower) into the Plan the stores compile: every term
// tokenized and resolved once. Raw query text never reaches SQL or a
// full-text MATCH expression.
package search

import "time"

// Query is a parsed search query.
type Query struct {
	// Root is the boolean tree of conditions; nil matches every post.
	Root Node
	// Reposts says how native reposts take part: left out by default,
	// included by include:nativeretweets, the only ones by
	// filter:nativeretweets (which then appears as a Filter in Root too).
	// A Filter of FilterNativeReposts or FilterRetweets outside any Not (or
	// under an even number of them) sets RepostsIncluded; so does
	// include:nativeretweets, which adds no node.
	Reposts RepostMode
}

// RepostMode says whether native reposts can match.
type RepostMode int

// Repost modes.
const (
	RepostsExcluded RepostMode = iota // default: native reposts never match
	RepostsIncluded                   // include:nativeretweets or filter:nativeretweets
)

// Node is one node of the condition tree. The concrete types are the ones
// below; Lower switches on them.
type Node interface{ node() }

// And matches when every child matches.
type And struct{ Children []Node }

// Or matches when any child matches.
type Or struct{ Children []Node }

// Not matches when Child does not.
type Not struct{ Child Node }

// Word is one whole token, matched case- and accent-insensitively. Text is
// as the user wrote it (Lower normalises it with QueryTokens, which
// gives exactly one token for every Word Parse builds: text of several
// tokens becomes a Phrase); Plus records `+word` (match exactly, no
// stemming; the index holds folded tokens only, so it matches like Word).
type Word struct {
	Text string
	Plus bool
}

// Phrase is a quoted phrase: Words in order, adjacent. A Word "*" stands
// for exactly one arbitrary token; Parse never puts one first or last. Every
// other Word is one index token as written (QueryTokens gives one token).
// A word of several tokens ("e-mail") and a run of CJK characters are
// Phrases too.
type Phrase struct{ Words []string }

// Hashtag matches posts whose hashtag entities include Tag (no '#', any case).
type Hashtag struct{ Tag string }

// Cashtag matches posts whose symbol entities include Tag (no '$', any case).
type Cashtag struct{ Tag string }

// From matches posts authored by the user with this screen name (no '@').
// A shadow-banned author never matches.
type From struct{ User string }

// To matches replies to the user with this screen name.
type To struct{ User string }

// Mention matches posts that mention the user (`@user`).
type Mention struct{ User string }

// URL matches posts with a link whose expanded URL contains Sub; in Sub,
// '_' stands for '-' as on the website.
type URL struct{ Sub string }

// Lang matches the post language code ("und" for undetermined).
type Lang struct{ Code string }

// ListMembers matches posts by the members of list ID (`list:ID`).
type ListMembers struct{ ListID int64 }

// IDBound bounds the post id: since_id: is exclusive (id > ID), max_id: is
// inclusive (id <= ID).
type IDBound struct {
	Max bool // true for max_id:, false for since_id:
	ID  int64
}

// TimeBound bounds the creation time: Since is inclusive (>=), until is
// exclusive (<). since:, since_time: and within_time: give Since bounds;
// until: and until_time: give until bounds.
type TimeBound struct {
	Since bool
	T     time.Time
}

// RefKind names the post reference a Ref tests.
type RefKind int

// Reference kinds.
const (
	RefConversation RefKind = iota // conversation_id:
	RefQuotedTweet                 // quoted_tweet_id:
	RefQuotedUser                  // quoted_user_id:
	RefInReplyTo                   // in_reply_to_tweet_id:
)

// Ref matches posts whose reference of Kind equals ID.
type Ref struct {
	Kind RefKind
	ID   int64
}

// CountKind names an engagement counter.
type CountKind int

// Counters of min_*:.
const (
	Faves    CountKind = iota // min_faves: (favorite_count)
	Retweets                  // min_retweets: (retweet_count)
	Replies                   // min_replies: (reply_count)
)

// MinCount matches posts whose counter is at least N. The website's
// `-min_faves:N` ("at most") is a Not around a MinCount with N+1.
type MinCount struct {
	Kind CountKind
	N    int64
}

// FilterKind names a filter:/include:/exclude: value.
type FilterKind int

// Filters. exclude:X and -filter:X are a Not around Filter X.
const (
	FilterReplies       FilterKind = iota // the post is a reply
	FilterSelfThreads                     // a reply to the author's own post
	FilterQuote                           // quotes another post
	FilterNativeReposts                   // is a native repost
	FilterRetweets                        // native repost, or old-style "RT @" text
	FilterMedia                           // has any media
	FilterImages                          // has a photo
	FilterVideos                          // has a video or animated GIF
	FilterLinks                           // has a URL entity (media links do not count)
	FilterMentions                        // mentions a user
	FilterHashtags                        // has a hashtag
	FilterHasEngagement                   // any favourite, repost, reply or quote
	FilterVerified                        // author is verified (legacy)
	FilterBlueVerified                    // author is blue-verified
)

// Filter matches posts of a kind.
type Filter struct{ Kind FilterKind }

func (And) node()         {}
func (Or) node()          {}
func (Not) node()         {}
func (Word) node()        {}
func (Phrase) node()      {}
func (Hashtag) node()     {}
func (Cashtag) node()     {}
func (From) node()        {}
func (To) node()          {}
func (Mention) node()     {}
func (URL) node()         {}
func (Lang) node()        {}
func (ListMembers) node() {}
func (IDBound) node()     {}
func (TimeBound) node()   {}
func (Ref) node()         {}
func (MinCount) node()    {}
func (Filter) node()      {}
