package search

import "time"

// Cond is one node of a lowered query (see Lower): the AST with every value
// in the form a store compares, computed once. The concrete types are the
// ones below; a compiler switches on them and rejects any it does not know.
type Cond interface{ cond() }

// CondAnd matches when every condition matches.
type CondAnd struct{ Conds []Cond }

// CondOr matches when any condition matches.
type CondOr struct{ Conds []Cond }

// CondNot matches when Cond does not.
type CondNot struct{ Cond Cond }

// CondText is a Word or a Phrase: the index tokens the post's tokens
// (IndexText) must hold in order and adjacent, "*" standing for exactly one
// arbitrary token. A wildcard is never first or last; no tokens at all
// (nothing searchable) match no post.
type CondText struct{ Tokens []string }

// TextRun is a run of adjacent tokens of a CondText and the number of
// wildcards between it and the run before (0 for the first run).
type TextRun struct {
	Tokens []string
	Gap    int
}

// Runs splits the tokens at the wildcards.
func (t CondText) Runs() []TextRun {
	var runs []TextRun
	gap, start := 0, 0
	for i := 0; i <= len(t.Tokens); i++ {
		if i < len(t.Tokens) && t.Tokens[i] != "*" {
			continue
		}
		if i > start {
			runs = append(runs, TextRun{Tokens: t.Tokens[start:i], Gap: gap})
			gap = 0
		}
		if i < len(t.Tokens) {
			gap++
		}
		start = i + 1
	}
	return runs
}

// Wild reports whether the text holds a wildcard.
func (t CondText) Wild() bool {
	for _, tok := range t.Tokens {
		if tok == "*" {
			return true
		}
	}
	return false
}

// CondURL is url:SUB: a post's expanded URL, lower-cased, holds Sub, in
// which '_' stands for '_' or '-'. Runs are the ASCII letter-and-digit runs
// of Sub in order, every one a whole token of a URL holding Sub but the
// first when HeadCut (Sub starts inside a run, which may be a longer
// token's tail) and the last when TailCut (Sub ends inside one); nil when
// Sub holds non-ASCII text, whose token boundaries are the engine's.
type CondURL struct {
	Sub              string
	Runs             []string
	HeadCut, TailCut bool
}

// CondTag is #tag or $tag: Key is the tag as stores keep it, its sign
// followed by the lower-cased tag ("#go", "$brk.a").
type CondTag struct{ Key string }

// CondMention is @user, the name lower-cased.
type CondMention struct{ Name string }

// CondAuthor is from:user, the name lower-cased. A shadow-banned author
// never matches.
type CondAuthor struct{ Name string }

// CondReplyTo is to:user, the name lower-cased: replies to that name.
type CondReplyTo struct{ Name string }

// CondLang is lang:code (lower case).
type CondLang struct{ Code string }

// CondList is list:ID, the posts of the list's members.
type CondList struct{ ID int64 }

// CondID bounds the post id: id <= ID when Max, else id > ID.
type CondID struct {
	Max bool
	ID  int64
}

// CondTime bounds the creation time: at or after T when Since, else before
// T. A store may also bound ids by it (Plan.Since, Plan.Until).
type CondTime struct {
	Since bool
	T     time.Time
}

// CondRef is a post reference of Kind equal to ID.
type CondRef struct {
	Kind RefKind
	ID   int64
}

// CondCount is a counter of Kind at least Min.
type CondCount struct {
	Kind CountKind
	Min  int64
}

// CondFilter is filter:KIND.
type CondFilter struct{ Kind FilterKind }

func (CondAnd) cond()     {}
func (CondOr) cond()      {}
func (CondNot) cond()     {}
func (CondText) cond()    {}
func (CondURL) cond()     {}
func (CondTag) cond()     {}
func (CondMention) cond() {}
func (CondAuthor) cond()  {}
func (CondReplyTo) cond() {}
func (CondLang) cond()    {}
func (CondList) cond()    {}
func (CondID) cond()      {}
func (CondTime) cond()    {}
func (CondRef) cond()     {}
func (CondCount) cond()   {}
func (CondFilter) cond()  {}
