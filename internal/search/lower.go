package search

import (
	"math"
	"strings"
	"time"
)

// Plan is a query lowered for the stores (Lower): the condition tree with
// every term resolved once, and the facts of its top level that a store
// plans with.
type Plan struct {
	// Root is the lowered condition tree; nil matches every post.
	Root Cond
	// Kids are the top-level conditions: Root's when it is a CondAnd, else
	// Root alone (none when Root is nil).
	Kids []Cond
	// Reposts says whether native reposts can match (Query.Reposts).
	Reposts RepostMode
	// Never is set when a top-level condition contradicts another
	// (Unsatisfiable): no post can match.
	Never bool
	// Lo and Hi are the ids the top-level since_id: and max_id: allow:
	// Lo < id <= Hi.
	Lo, Hi int64
	// Since and Until are the top-level time bounds (TimeRange): created at
	// or after Since, before Until; zero where there is none.
	Since, Until time.Time
}

// Lower lowers a parsed query: words and phrases become their index
// tokens, url: its lower-cased pattern and token runs, tags their stored
// keys, user names lower case. Each term is tokenized here once; stores
// compile the Plan and never call back into the tokenizer. A nil q is the
// empty query.
func Lower(q *Query) *Plan {
	p := &Plan{Hi: math.MaxInt64}
	if q == nil {
		return p
	}
	p.Reposts = q.Reposts
	if q.Root == nil {
		return p
	}
	p.Root = lower(q.Root)
	p.Kids = []Cond{p.Root}
	if a, ok := p.Root.(CondAnd); ok {
		p.Kids = a.Conds
	}
	p.Never = contradicts(p.Kids)
	for _, k := range p.Kids {
		switch k := k.(type) {
		case CondID:
			if k.Max {
				p.Hi = min(p.Hi, k.ID)
			} else {
				p.Lo = max(p.Lo, k.ID)
			}
		case CondTime:
			if k.Since && (p.Since.IsZero() || k.T.After(p.Since)) {
				p.Since = k.T
			} else if !k.Since && (p.Until.IsZero() || k.T.Before(p.Until)) {
				p.Until = k.T
			}
		}
	}
	return p
}

// lower lowers one node; a node of a type Lower does not know stays out of
// the tree as a nil Cond, which compilers reject.
func lower(n Node) Cond {
	switch n := n.(type) {
	case And:
		return CondAnd{Conds: lowerAll(n.Children)}
	case Or:
		return CondOr{Conds: lowerAll(n.Children)}
	case Not:
		return CondNot{Cond: lower(n.Child)}
	case Word:
		return CondText{Tokens: QueryTokens(n.Text)}
	case Phrase:
		return CondText{Tokens: trimWild(phraseTokens(n.Words))}
	case URL:
		return LowerURL(n.Sub)
	case Hashtag:
		return CondTag{Key: "#" + strings.ToLower(n.Tag)}
	case Cashtag:
		return CondTag{Key: "$" + strings.ToLower(n.Tag)}
	case Mention:
		return CondMention{Name: strings.ToLower(n.User)}
	case From:
		return CondAuthor{Name: strings.ToLower(n.User)}
	case To:
		return CondReplyTo{Name: strings.ToLower(n.User)}
	case Lang:
		return CondLang{Code: n.Code}
	case ListMembers:
		return CondList{ID: n.ListID}
	case IDBound:
		return CondID{Max: n.Max, ID: n.ID}
	case TimeBound:
		return CondTime{Since: n.Since, T: n.T}
	case Ref:
		return CondRef{Kind: n.Kind, ID: n.ID}
	case MinCount:
		return CondCount{Kind: n.Kind, Min: n.N}
	case Filter:
		return CondFilter{Kind: n.Kind}
	}
	return nil
}

func lowerAll(ns []Node) []Cond {
	out := make([]Cond, len(ns))
	for i, n := range ns {
		out[i] = lower(n)
	}
	return out
}

// phraseTokens is the token sequence of a Phrase's words: QueryTokens of
// each, "*" kept for a wildcard.
func phraseTokens(words []string) []string {
	var toks []string
	for _, w := range words {
		if w == "*" {
			toks = append(toks, "*")
			continue
		}
		toks = append(toks, QueryTokens(w)...)
	}
	return toks
}

// trimWild drops the wildcards at either end of a token sequence: they
// constrain nothing, as a phrase matches in the middle of any text.
func trimWild(toks []string) []string {
	for len(toks) > 0 && toks[0] == "*" {
		toks = toks[1:]
	}
	for len(toks) > 0 && toks[len(toks)-1] == "*" {
		toks = toks[:len(toks)-1]
	}
	return toks
}

// LowerURL is the lowered condition of url:SUB (see CondURL).
func LowerURL(sub string) CondURL {
	u := CondURL{Sub: strings.ToLower(sub)}
	s := u.Sub
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] >= 0x80 {
			u.Runs = nil
			return u
		}
		alnum := i < len(s) && isAlnumLower(s[i])
		switch {
		case alnum && start < 0:
			start = i
		case !alnum && start >= 0:
			u.Runs = append(u.Runs, s[start:i])
			start = -1
		}
	}
	if s != "" {
		u.HeadCut, u.TailCut = isAlnumLower(s[0]), isAlnumLower(s[len(s)-1])
	}
	return u
}

func isAlnumLower(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
