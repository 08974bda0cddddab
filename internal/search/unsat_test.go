package search

import (
	"testing"
	"time"
)

func TestUnsatisfiable(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"the -the", true},
		{"the -THE", true},
		{"café -CAFE", true},
		{`"the to" -the`, true},
		{`"the to" -"the to"`, true},
		{`"a the to b" -"the to"`, true},
		{`"the * to" -"the to"`, false},
		{`the -"the to"`, false},
		{"#Go -#go", true},
		{"$BTC -$btc", true},
		{"from:Alice -from:alice", true},
		{"@Bob -@bob", true},
		{"filter:replies -filter:replies", true},
		{"filter:replies exclude:replies", true},
		{"min_faves:6 -min_faves:5", true}, // -min_faves:5 is at most 5
		{"min_faves:5 -min_faves:5", false},
		{"golang -go", false},
		{"the -to", false},
		{"the OR -the", false},
		{"(the -the) OR x", false},
		{"-the", false},
		{"from:alice -from:bob", false},
		{"#go -#golang", false},
		{"the", false},
	} {
		q, err := Parse(c.q, now)
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if got := q.Root != nil && Unsatisfiable(q.Root); got != c.want {
			t.Errorf("%q: Unsatisfiable %v, want %v (root %#v)", c.q, got, c.want, q.Root)
		}
	}
}
