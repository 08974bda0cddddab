// Package graph builds the network of who replied to, quoted, reposted
// and mentioned whom among the posts a search query matches, and writes it
// for Gephi and other graph tools (GEXF, GraphML, CSV tables of edges and
// of nodes).
package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roostapi/roost/internal/search"
	"github.com/roostapi/roost/internal/social"
)

// Kind is a kind of edge.
type Kind string

// Edge kinds: the author of a post replied to, quoted, reposted or
// mentioned the target.
const (
	Reply   Kind = "reply"
	Quote   Kind = "quote"
	Repost  Kind = "repost"
	Mention Kind = "mention"
)

// Kinds lists the edge kinds in the order they are documented.
func Kinds() []Kind { return []Kind{Reply, Quote, Repost, Mention} }

// ParseKinds reads a comma-separated list of kinds.
func ParseKinds(s string) ([]Kind, error) {
	var out []Kind
	for _, part := range strings.Split(s, ",") {
		k := Kind(strings.ToLower(strings.TrimSpace(part)))
		if !slices.Contains(Kinds(), k) {
			return nil, fmt.Errorf("edge kind %q: must be reply, quote, repost or mention: %w", part, social.ErrInvalid)
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Node is a user. Key is the user id in decimal, or "@name" for a
// mentioned name no stored user has.
type Node struct {
	Key        string
	UserID     int64
	ScreenName string
	Name       string
	Followers  int64
	// Posts is how many of the matching posts the user wrote.
	Posts int64
	// Degree is the number of edges at the node in the graph (after
	// pruning), Weight the sum of their weights.
	Degree, Weight int64
}

// Edge is every post of one kind from Source's author to Target: Weight
// is how many posts.
type Edge struct {
	Source, Target string
	Kind           Kind
	Weight         int64
}

// Graph is a directed network, nodes by key and edges by source, target
// and kind.
type Graph struct {
	Query string
	Nodes []Node
	Edges []Edge
}

// Len is the number of nodes and edges.
func (g *Graph) Len() int { return len(g.Nodes) + len(g.Edges) }

// Options choose what a network holds.
type Options struct {
	Kinds []Kind
	// MinDegree, when positive, leaves out the nodes with fewer edges in
	// the output: every node written has at least MinDegree edges among
	// the nodes written (each kind of edge counts).
	MinDegree int
	// MaxNodes, when positive, keeps at most that many nodes: those of most
	// weight (then most posts, then key) once MinDegree is applied, and the
	// edges between them.
	MaxNodes int
}

// Source is what a network is built from.
type Source interface {
	social.Reader
	social.Researcher
}

type edgeKey struct {
	source, target string
	kind           Kind
}

// builder gathers a network from interactions.
type builder struct {
	kinds   map[Kind]bool
	posts   map[string]int64
	ids     map[string]int64
	edges   map[edgeKey]int64
	unknown map[string]bool   // "@name" keys, resolved against stored users later
	names   map[string]string // screen names as mentioned, for users not stored
}

// Build gathers the network of the matches of q.
func Build(ctx context.Context, s Source, q *search.Query, text string, opt Options) (*Graph, error) {
	b := &builder{kinds: map[Kind]bool{}, posts: map[string]int64{}, ids: map[string]int64{},
		edges: map[edgeKey]int64{}, unknown: map[string]bool{}, names: map[string]string{}}
	for _, k := range opt.Kinds {
		b.kinds[k] = true
	}
	if err := s.SearchInteractions(ctx, q, func(xs []social.Interaction) error {
		for i := range xs {
			b.add(&xs[i])
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	if err := b.resolve(ctx, s); err != nil {
		return nil, err
	}
	g, err := b.graph(ctx, s)
	if err != nil {
		return nil, err
	}
	g.Query = text
	g.prune(opt)
	return g, nil
}

func userKey(id int64) string { return strconv.FormatInt(id, 10) }

func (b *builder) add(x *social.Interaction) {
	src := userKey(x.AuthorID)
	b.posts[src]++
	b.ids[src] = x.AuthorID
	edge := func(k Kind, target string, id int64) {
		if !b.kinds[k] || target == src {
			return
		}
		if id != 0 {
			b.ids[target] = id
		}
		b.edges[edgeKey{src, target, k}]++
	}
	if x.ReplyToUserID != 0 {
		edge(Reply, userKey(x.ReplyToUserID), x.ReplyToUserID)
	}
	if x.QuotedAuthorID != 0 {
		edge(Quote, userKey(x.QuotedAuthorID), x.QuotedAuthorID)
	}
	if x.RepostAuthorID != 0 {
		edge(Repost, userKey(x.RepostAuthorID), x.RepostAuthorID)
	}
	if !b.kinds[Mention] {
		return
	}
	seen := map[string]bool{}
	for _, m := range x.Mentions {
		t := "@" + strings.ToLower(m.ScreenName)
		if m.UserID != 0 {
			t = userKey(m.UserID)
		} else {
			b.unknown[t] = true
		}
		if !seen[t] {
			seen[t] = true
			edge(Mention, t, m.UserID)
			if _, ok := b.names[t]; !ok && m.ScreenName != "" {
				b.names[t] = m.ScreenName
			}
		}
	}
}

// resolve turns mentioned names without ids into the stored users of those
// names, where there are such.
func (b *builder) resolve(ctx context.Context, r social.Reader) error {
	if len(b.unknown) == 0 {
		return nil
	}
	names := make([]string, 0, len(b.unknown))
	for k := range b.unknown {
		names = append(names, strings.TrimPrefix(k, "@"))
	}
	slices.Sort(names)
	rename := map[string]string{}
	for len(names) > 0 {
		n := min(len(names), 100)
		users, err := r.UsersByScreenNames(ctx, names[:n])
		if err != nil {
			return fmt.Errorf("network: mentioned users: %w", err)
		}
		slices.SortFunc(users, func(a, c social.User) int {
			return cmp.Or(compareBool(a.Stub, c.Stub), cmp.Compare(a.ID, c.ID))
		})
		for _, u := range users {
			k := "@" + strings.ToLower(u.ScreenName)
			if _, done := rename[k]; !done {
				rename[k] = userKey(u.ID)
				b.ids[userKey(u.ID)] = u.ID
			}
		}
		names = names[n:]
	}
	for k, w := range b.edges {
		if to, ok := rename[k.target]; ok {
			delete(b.edges, k)
			if to != k.source {
				b.edges[edgeKey{k.source, to, k.kind}] += w
			}
		}
	}
	return nil
}

// graph makes the nodes (with their stored profiles) and edges.
func (b *builder) graph(ctx context.Context, r social.Reader) (*Graph, error) {
	nodes := map[string]*Node{}
	node := func(k string) *Node {
		if n := nodes[k]; n != nil {
			return n
		}
		n := &Node{Key: k, UserID: b.ids[k], Posts: b.posts[k], ScreenName: b.names[k]}
		if n.UserID == 0 {
			n.ScreenName = strings.TrimPrefix(k, "@")
		}
		nodes[k] = n
		return n
	}
	for k := range b.posts {
		node(k)
	}
	g := &Graph{Edges: make([]Edge, 0, len(b.edges))}
	for k, w := range b.edges {
		s, t := node(k.source), node(k.target)
		s.Degree++
		t.Degree++
		s.Weight += w
		t.Weight += w
		g.Edges = append(g.Edges, Edge{Source: k.source, Target: k.target, Kind: k.kind, Weight: w})
	}
	var ids []int64
	for _, n := range nodes {
		if n.UserID != 0 {
			ids = append(ids, n.UserID)
		}
	}
	slices.Sort(ids)
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		users, err := r.UsersByIDs(ctx, ids[:n])
		if err != nil {
			return nil, fmt.Errorf("network: users: %w", err)
		}
		for _, u := range users {
			if x := nodes[userKey(u.ID)]; x != nil {
				x.ScreenName, x.Name, x.Followers = cmp.Or(u.ScreenName, x.ScreenName), u.Name, u.FollowersCount
			}
		}
		ids = ids[n:]
	}
	g.Nodes = make([]Node, 0, len(nodes))
	for _, n := range nodes {
		g.Nodes = append(g.Nodes, *n)
	}
	g.sort()
	return g, nil
}

func (g *Graph) sort() {
	slices.SortFunc(g.Nodes, func(a, b Node) int { return cmpKey(a.Key, b.Key) })
	slices.SortFunc(g.Edges, func(a, b Edge) int {
		return cmp.Or(cmpKey(a.Source, b.Source), cmpKey(a.Target, b.Target), cmp.Compare(a.Kind, b.Kind))
	})
}

// cmpKey orders user ids numerically, before "@name" keys.
func cmpKey(a, b string) int {
	an, bn := !strings.HasPrefix(a, "@"), !strings.HasPrefix(b, "@")
	switch {
	case an && bn && len(a) != len(b):
		return cmp.Compare(len(a), len(b))
	case an != bn:
		if an {
			return -1
		}
		return 1
	}
	return cmp.Compare(a, b)
}

// prune applies MinDegree and MaxNodes so that the output holds what they
// say: every node kept has at least MinDegree edges among the nodes kept.
// Nodes with fewer are dropped, again and again (each drop takes edges
// from others); then, over MaxNodes, the nodes of most weight (then most
// posts, then key) are kept, and the dropping goes on. Degrees and weights
// are those of the output.
func (g *Graph) prune(opt Options) {
	for {
		g.dropLowDegree(int64(opt.MinDegree))
		if opt.MaxNodes <= 0 || len(g.Nodes) <= opt.MaxNodes {
			break
		}
		slices.SortFunc(g.Nodes, func(a, b Node) int {
			return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(b.Posts, a.Posts), cmpKey(a.Key, b.Key))
		})
		g.keep(g.Nodes[:opt.MaxNodes])
	}
	g.sort()
}

// dropLowDegree drops the nodes with fewer than min edges, and then those
// that come to have fewer by the drops, in time linear in the graph.
func (g *Graph) dropLowDegree(min int64) {
	if min <= 0 {
		return
	}
	at := make(map[string]int, len(g.Nodes))
	for i := range g.Nodes {
		at[g.Nodes[i].Key] = i
	}
	degree := make([]int64, len(g.Nodes))
	edgesAt := make([][]int, len(g.Nodes))
	for j, e := range g.Edges {
		s, t := at[e.Source], at[e.Target]
		degree[s]++
		degree[t]++
		edgesAt[s] = append(edgesAt[s], j)
		edgesAt[t] = append(edgesAt[t], j)
	}
	dropped := make([]bool, len(g.Nodes))
	var queue []int
	for i, d := range degree {
		if d < min {
			dropped[i] = true
			queue = append(queue, i)
		}
	}
	if len(queue) == 0 {
		return
	}
	gone := make([]bool, len(g.Edges))
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, j := range edgesAt[i] {
			if gone[j] {
				continue
			}
			gone[j] = true
			for _, k := range []int{at[g.Edges[j].Source], at[g.Edges[j].Target]} {
				if degree[k]--; !dropped[k] && degree[k] < min {
					dropped[k] = true
					queue = append(queue, k)
				}
			}
		}
	}
	nodes := make([]Node, 0, len(g.Nodes))
	for i, n := range g.Nodes {
		if !dropped[i] {
			nodes = append(nodes, n)
		}
	}
	g.keep(nodes)
}

// keep makes nodes the graph's nodes, drops the edges of the others and
// counts degrees and weights again.
func (g *Graph) keep(nodes []Node) {
	at := make(map[string]int, len(nodes))
	for i := range nodes {
		nodes[i].Degree, nodes[i].Weight = 0, 0
		at[nodes[i].Key] = i
	}
	edges := g.Edges[:0]
	for _, e := range g.Edges {
		s, sok := at[e.Source]
		t, tok := at[e.Target]
		if !sok || !tok {
			continue
		}
		edges = append(edges, e)
		nodes[s].Degree++
		nodes[t].Degree++
		nodes[s].Weight += e.Weight
		nodes[t].Weight += e.Weight
	}
	g.Nodes, g.Edges = nodes, edges
}

// compareBool orders false before true.
func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
