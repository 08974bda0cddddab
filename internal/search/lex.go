package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token of a query.
type tokKind int

const (
	tkEOF    tokKind = iota
	tkLParen         // (
	tkRParen         // )
	tkOr             // OR, upper case, standing alone
	tkNeg            // '-' directly before a term, group or phrase
	tkWord           // any other run of characters up to a delimiter
	tkPhrase         // "..."; text is what lies between the quotes
	tkOp             // name:value with name a known operator
)

// token is one lexical token.
type token struct {
	kind   tokKind
	pos    int    // byte offset where the token starts
	text   string // word, phrase contents or operator value
	name   string // operator name, lower case (tkOp)
	valPos int    // byte offset of the operator value (tkOp)
	plus   bool   // the word was written +word (tkWord)
}

// lex splits a valid UTF-8 query into tokens, ending with tkEOF.
//
// Delimiters are white space, '(', ')' and '"'; everything else runs
// together into words. '-' (and '+') directly followed by something other
// than white space or ')' is a prefix of what follows; alone, it is a word
// with nothing searchable in it. A word "OR" right after a prefix is the
// word "or", not the connective.
func lex(q string) ([]token, error) {
	var toks []token
	var neg, plus bool // a '-' or '+' prefix was just read
	i := 0
	for {
		if !neg && !plus {
			i = skipSpace(q, i)
		}
		if i >= len(q) {
			return append(toks, token{kind: tkEOF, pos: len(q)}), nil
		}
		c := q[i]
		switch {
		case c == '(':
			toks = append(toks, token{kind: tkLParen, pos: i})
			i++
		case c == ')':
			toks = append(toks, token{kind: tkRParen, pos: i})
			i++
		case c == '"':
			end := strings.IndexByte(q[i+1:], '"')
			if end < 0 {
				return nil, errAt(i, "unclosed quote: expected a closing '\"'")
			}
			toks = append(toks, token{kind: tkPhrase, pos: i, text: q[i+1 : i+1+end]})
			i += end + 2
		case (c == '-' || c == '+') && startsTerm(q, i+1):
			if c == '-' {
				toks = append(toks, token{kind: tkNeg, pos: i})
				neg = true
			} else {
				plus = true
			}
			i++
			continue
		default:
			j := i
			for j < len(q) && !isDelim(q, j) {
				_, n := utf8.DecodeRuneInString(q[j:])
				j += n
			}
			t, next, err := lexRun(q, i, j, neg, plus)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = next
		}
		neg, plus = false, false
	}
}

// lexRun makes the token for the run q[i:j]; next is where lexing goes on.
func lexRun(q string, i, j int, neg, plus bool) (t token, next int, err error) {
	run := q[i:j]
	if run == "OR" {
		switch {
		case plus:
			return token{kind: tkWord, pos: i, text: run, plus: true}, j, nil
		case neg:
			return token{kind: tkWord, pos: i, text: "or"}, j, nil
		}
		return token{kind: tkOr, pos: i}, j, nil
	}
	name, ok := opName(run)
	if !ok {
		return token{kind: tkWord, pos: i, text: run, plus: plus}, j, nil
	}
	t = token{kind: tkOp, pos: i, name: name, text: run[len(name)+1:], valPos: i + len(name) + 1}
	if t.text == "" && j < len(q) && q[j] == '"' { // name:"quoted value"
		end := strings.IndexByte(q[j+1:], '"')
		if end < 0 {
			return token{}, 0, errAt(j, "unclosed quote: expected a closing '\"'")
		}
		t.text, t.valPos = q[j+1:j+1+end], j+1
		return t, j + end + 2, nil
	}
	return t, j, nil
}

// opName returns the lower-case operator name of a run "name:value" when
// name is a known operator.
func opName(run string) (string, bool) {
	k := strings.IndexByte(run, ':')
	if k <= 0 {
		return "", false
	}
	for i := 0; i < k; i++ {
		if c := run[i]; !isASCIILetter(c) && c != '_' {
			return "", false
		}
	}
	name := strings.ToLower(run[:k])
	if _, ok := operators[name]; !ok {
		return "", false
	}
	return name, true
}

// startsTerm reports whether a prefix '-' or '+' ending before q[i] applies
// to what follows: there is something at i, and it is neither white space
// nor ')'.
func startsTerm(q string, i int) bool {
	if i >= len(q) || q[i] == ')' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(q[i:])
	return !unicode.IsSpace(r)
}

// isDelim reports whether the character at q[i] ends a word.
func isDelim(q string, i int) bool {
	switch c := q[i]; {
	case c == '(' || c == ')' || c == '"':
		return true
	case c < utf8.RuneSelf:
		return c == ' ' || c >= '\t' && c <= '\r'
	}
	r, _ := utf8.DecodeRuneInString(q[i:])
	return unicode.IsSpace(r)
}

func skipSpace(q string, i int) int {
	for i < len(q) {
		r, n := utf8.DecodeRuneInString(q[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return i
}
