package search

import (
	"strconv"
	"strings"
)

// String prints the query canonically, in the operator language: Parse of
// the result gives the same Query (when it stays within MaxQueryBytes).
// Operator names are lower case, an Or inside an And is parenthesised,
// times are printed as since:/until: dates in UTC, and include:nativeretweets
// is added at the end when Reposts says so and Root does not already.
func (q *Query) String() string {
	var b strings.Builder
	if q.Root != nil {
		writeNode(&b, q.Root)
	}
	if q.Reposts == RepostsIncluded && !impliesReposts(q.Root) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("include:nativeretweets")
	}
	return b.String()
}

// Format prints one node canonically (see Query.String).
func Format(n Node) string {
	var b strings.Builder
	writeNode(&b, n)
	return b.String()
}

func writeNode(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case And:
		for i, c := range n.Children {
			if i > 0 {
				b.WriteByte(' ')
			}
			_, or := c.(Or)
			writeGrouped(b, c, or)
		}
	case Or:
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString(" OR ")
			}
			_, and := c.(And)
			writeGrouped(b, c, and)
		}
	case Not:
		writeNot(b, n.Child)
	case Word:
		if n.Plus {
			b.WriteByte('+')
		}
		b.WriteString(n.Text)
	case Phrase:
		b.WriteByte('"')
		b.WriteString(strings.Join(n.Words, " "))
		b.WriteByte('"')
	case Hashtag:
		b.WriteString("#" + n.Tag)
	case Cashtag:
		b.WriteString("$" + n.Tag)
	case Mention:
		b.WriteString("@" + n.User)
	case From:
		b.WriteString("from:" + n.User)
	case To:
		b.WriteString("to:" + n.User)
	case URL:
		b.WriteString("url:")
		if strings.ContainsAny(n.Sub, `()"`) {
			b.WriteString(`"` + n.Sub + `"`)
		} else {
			b.WriteString(n.Sub)
		}
	case Lang:
		b.WriteString("lang:" + n.Code)
	case ListMembers:
		b.WriteString("list:" + strconv.FormatInt(n.ListID, 10))
	case IDBound:
		if n.Max {
			b.WriteString("max_id:")
		} else {
			b.WriteString("since_id:")
		}
		b.WriteString(strconv.FormatInt(n.ID, 10))
	case TimeBound:
		if n.Since {
			b.WriteString("since:")
		} else {
			b.WriteString("until:")
		}
		t := n.T.UTC()
		if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
			b.WriteString(t.Format(dayLayout))
		} else {
			b.WriteString(t.Format(timeLayout))
		}
	case Ref:
		b.WriteString(kindName(refNames[:], int(n.Kind)) + ":" + strconv.FormatInt(n.ID, 10))
	case MinCount:
		b.WriteString(kindName(countNames[:], int(n.Kind)) + ":" + strconv.FormatInt(n.N, 10))
	case Filter:
		b.WriteString("filter:" + kindName(filterNames[:], int(n.Kind)))
	case nil:
		b.WriteString("()")
	default:
		b.WriteString("?")
	}
}

// writeNot prints a negation: -min_faves:N-1 for Not(MinCount{N}) (the
// website's "at most"), -(...) around a group, '-' before anything else.
func writeNot(b *strings.Builder, c Node) {
	if m, ok := c.(MinCount); ok && m.N >= 1 {
		b.WriteString("-" + kindName(countNames[:], int(m.Kind)) + ":" + strconv.FormatInt(m.N-1, 10))
		return
	}
	b.WriteByte('-')
	switch c.(type) {
	case And, Or, MinCount:
		writeGrouped(b, c, true)
	default:
		writeNode(b, c)
	}
}

func writeGrouped(b *strings.Builder, n Node, group bool) {
	if group {
		b.WriteByte('(')
	}
	writeNode(b, n)
	if group {
		b.WriteByte(')')
	}
}

func kindName(names []string, k int) string {
	if k < 0 || k >= len(names) {
		return "?"
	}
	return names[k]
}
