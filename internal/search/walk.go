package search

// Walk calls fn on n and then, when fn returns true, walks n's children
// (of And, Or and Not) in order, depth first. A nil n is not visited.
func Walk(n Node, fn func(Node) bool) {
	if n == nil || !fn(n) {
		return
	}
	switch n := n.(type) {
	case And:
		for _, c := range n.Children {
			Walk(c, fn)
		}
	case Or:
		for _, c := range n.Children {
			Walk(c, fn)
		}
	case Not:
		Walk(n.Child, fn)
	}
}
