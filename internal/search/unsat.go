package search

import (
	"reflect"
	"slices"
)

// Unsatisfiable reports whether a query's condition can never hold because
// a top-level condition implies another that the query negates at the top
// level: `the -the`, `"the cat" -cat`, `#Go -#go`, `from:a -from:A`. Stores
// answer such a query with an empty page at once (Plan.Never), instead of
// reading every post of the positive condition only to reject it.
func Unsatisfiable(root Node) bool {
	return root != nil && Lower(&Query{Root: root}).Never
}

// contradicts reports whether one of the top-level conditions kids negates
// what another implies.
func contradicts(kids []Cond) bool {
	for _, k := range kids {
		n, ok := k.(CondNot)
		if !ok {
			continue
		}
		for _, p := range kids {
			if _, neg := p.(CondNot); !neg && implies(p, n.Cond) {
				return true
			}
		}
	}
	return false
}

// implies reports whether every post matching p matches n, as far as a
// comparison of the two lowered conditions shows (lowering folds the case
// differences that never change a match).
func implies(p, n Cond) bool {
	if reflect.DeepEqual(p, n) {
		return true
	}
	pt, ok1 := p.(CondText)
	nt, ok2 := n.(CondText)
	if !ok1 || !ok2 || len(nt.Tokens) == 0 || nt.Wild() {
		return false
	}
	// n's tokens must stand in p's, in order and adjacent, with no
	// wildcard among them.
	have, want := pt.Tokens, nt.Tokens
	for i := 0; i+len(want) <= len(have); i++ {
		if slices.Equal(have[i:i+len(want)], want) {
			return true
		}
	}
	return false
}
