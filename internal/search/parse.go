package search

import (
	"fmt"
	"time"

	"github.com/roostapi/roost/internal/storable"
)

// Limits of a query.
const (
	// MaxQueryBytes is the longest query accepted, in bytes.
	MaxQueryBytes = 512
	// MaxOperators is the most operators a query may hold. Every name:value
	// operator counts (filter:, from:, since: …, and include:), and so does
	// every #hashtag, $cashtag, @mention and pasted http(s) link; words,
	// phrases, OR, '-' and parentheses do not.
	MaxOperators = 25
)

// Parse parses a search query in the website's operator language. now is
// the time within_time: counts back from.
//
// Grammar, loosest binding first:
//
//	query   = and EOF
//	and     = { or }            juxtaposition is AND
//	or      = unary { "OR" unary }
//	unary   = "-" unary | primary
//	primary = "(" and ")" | '"' phrase '"' | operator | word
//
// OR binds tighter than AND, as on the website: "a b OR c" is a AND (b OR
// c). '-' binds tightest. The tree is simplified: nested And and Or are
// flattened, a one-child And or Or is its child, Not(Not(x)) is x, and terms
// with nothing searchable (a lone "-", "&", "()") are dropped, so that a
// query left with nothing is the error "empty query".
//
// A word "name:value" whose name is not an operator is a plain word ("12:30",
// "re:invent"); operator names are case-insensitive, OR is upper case only.
// -min_faves:N (and the other min_*) means "at most N": Not(MinCount{N+1}).
// include:nativeretweets adds no node, so it may stand alone (Root nil:
// every post, reposts included). A problem (syntax, bad value, a limit, an
// operator roost does not support such as geo search) is a *Error with its
// byte position; so is a NUL byte or invalid UTF-8 anywhere, which no store
// can search for (social.CheckText).
func Parse(query string, now time.Time) (*Query, error) {
	if len(query) > MaxQueryBytes {
		return nil, errAt(MaxQueryBytes, "query longer than %d bytes", MaxQueryBytes)
	}
	if pos, nul := storable.Find(query); nul {
		return nil, errAt(pos, "NUL byte")
	} else if pos >= 0 {
		return nil, errAt(pos, "invalid UTF-8")
	}
	toks, err := lex(query)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, now: now}
	root, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind == tkRParen {
		return nil, errAt(t.pos, "unmatched ')'")
	}
	if root == nil && !p.include {
		return nil, errAt(0, "empty query")
	}
	q := &Query{Root: root}
	if p.include || impliesReposts(root) {
		q.Reposts = RepostsIncluded
	}
	return q, nil
}

// parser is the recursive-descent parser over the tokens of one query.
type parser struct {
	toks    []token
	i       int
	now     time.Time
	ops     int  // operators seen, bounded by MaxOperators
	include bool // include:nativeretweets was given
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tkEOF {
		p.i++
	}
	return t
}

// parseAnd parses terms up to ')' or the end.
func (p *parser) parseAnd() (Node, error) {
	var kids []Node
	for {
		t := p.peek()
		switch t.kind {
		case tkEOF, tkRParen:
			return mkAnd(kids), nil
		case tkOr:
			return nil, errAt(t.pos, "OR needs a term before it")
		}
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if n != nil {
			kids = append(kids, n)
		}
	}
}

func (p *parser) parseOr() (Node, error) {
	n, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	kids := []Node{n}
	for p.peek().kind == tkOr {
		p.next()
		if t := p.peek(); t.kind == tkEOF || t.kind == tkRParen || t.kind == tkOr {
			return nil, errAt(t.pos, "expected a term after OR")
		}
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		kids = append(kids, n)
	}
	return mkOr(kids), nil
}

func (p *parser) parseUnary() (Node, error) {
	if p.peek().kind != tkNeg {
		return p.parsePrimary()
	}
	p.next()
	if t := p.peek(); t.kind == tkOp {
		if spec := operators[t.name]; spec.negate != nil && spec.unsupported == "" {
			p.next()
			return p.operator(t, spec.negate)
		}
	}
	n, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	return mkNot(n), nil
}

func (p *parser) parsePrimary() (Node, error) {
	t := p.next()
	switch t.kind {
	case tkLParen:
		n, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		if p.next().kind != tkRParen {
			return nil, errAt(t.pos, "unclosed '(': expected ')'")
		}
		return n, nil
	case tkPhrase:
		return phrase(t.text, t.pos)
	case tkWord:
		return p.word(t)
	case tkOp:
		return p.operator(t, operators[t.name].parse)
	}
	return nil, errAt(t.pos, "expected a term")
}

// operator builds the node of a name:value operator with build.
func (p *parser) operator(t token, build func(*parser, opValue) (Node, error)) (Node, error) {
	spec := operators[t.name]
	if spec.unsupported != "" {
		return nil, errAt(t.pos, "%s: %s", t.name, spec.unsupported)
	}
	if err := p.count(t.pos); err != nil {
		return nil, err
	}
	v := opValue{name: t.name, text: t.text, pos: t.valPos}
	if v.text == "" {
		return nil, errAt(v.pos, "%s: needs a value", v.name)
	}
	return build(p, v)
}

// count counts one operator starting at pos against MaxOperators.
func (p *parser) count(pos int) error {
	p.ops++
	if p.ops > MaxOperators {
		return errAt(pos, "too many operators: at most %d", MaxOperators)
	}
	return nil
}

func mkAnd(kids []Node) Node {
	var flat []Node
	for _, k := range kids {
		if a, ok := k.(And); ok {
			flat = append(flat, a.Children...)
		} else if k != nil {
			flat = append(flat, k)
		}
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	return And{Children: flat}
}

func mkOr(kids []Node) Node {
	var flat []Node
	for _, k := range kids {
		if o, ok := k.(Or); ok {
			flat = append(flat, o.Children...)
		} else if k != nil {
			flat = append(flat, k)
		}
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	return Or{Children: flat}
}

func mkNot(n Node) Node {
	switch n := n.(type) {
	case nil:
		return nil
	case Not:
		return n.Child
	}
	return Not{Child: n}
}

// impliesReposts reports whether n asks for native reposts: it holds
// filter:nativeretweets or filter:retweets outside any negation (or under
// an even number of them).
func impliesReposts(n Node) bool {
	var walk func(n Node, neg bool) bool
	walk = func(n Node, neg bool) bool {
		switch n := n.(type) {
		case Filter:
			return !neg && (n.Kind == FilterNativeReposts || n.Kind == FilterRetweets)
		case Not:
			return walk(n.Child, !neg)
		case And:
			for _, c := range n.Children {
				if walk(c, neg) {
					return true
				}
			}
		case Or:
			for _, c := range n.Children {
				if walk(c, neg) {
					return true
				}
			}
		}
		return false
	}
	return walk(n, false)
}

func errAt(pos int, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
