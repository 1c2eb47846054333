package supervisor

// The bounded view of a tree that the debug page shows and streams: the
// counts of the whole tree, the executor's gauges, and at most a stated
// number of nodes, each parent's children ordered oldest first and cut
// at a stated cap, with what was left out counted.

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// pageView is one bounded view of a tree: what the page renders and each
// event of its stream carries (as JSON).
type pageView struct {
	// Seq numbers the views of one handler, from 1.
	Seq int64 `json:"seq"`
	// Taken is when the snapshot was taken (RFC 3339, UTC).
	Taken string `json:"taken"`
	// Nodes is the number of nodes in the whole tree, Shown the number
	// in Root.
	Nodes int `json:"nodes"`
	Shown int `json:"shown"`
	// Counts are the nodes of the whole tree by kind.
	Counts map[Kind]int `json:"counts"`
	// Executor is the executor's attributes (its gauges), if it is in
	// the tree.
	Executor map[string]string `json:"executor,omitempty"`
	// MaxChildren and MaxNodes are the caps the view was cut at.
	MaxChildren int `json:"maxChildren"`
	MaxNodes    int `json:"maxNodes"`
	// Query is the search the view was filtered by ("" for none).
	Query string `json:"query,omitempty"`
	// Root is the bounded tree.
	Root *pageNode `json:"root"`
}

// pageNode is one node of a pageView.
type pageNode struct {
	Kind     Kind              `json:"kind"`
	ID       string            `json:"id"`
	Attrs    map[string]string `json:"attrs,omitempty"`
	Children []*pageNode       `json:"children,omitempty"`
	// Action is what the page offers to do to the node ("" for nothing,
	// and always unless the handler enables actions).
	Action string `json:"action,omitempty"`
	// Total is the number of children the node has in the tree, Omitted
	// how many of them the view leaves out, and OmittedKinds those by
	// kind.
	Total        int          `json:"total,omitempty"`
	Omitted      int          `json:"omitted,omitempty"`
	OmittedKinds map[Kind]int `json:"omittedKinds,omitempty"`
}

// summarize builds the bounded view of root: children of each parent
// ordered by age, oldest first (nodes without an age, such as writers,
// the executor and the application node, before them, in their natural
// order), at most maxChildren per parent, at most maxNodes in all,
// filled breadth first so that every level is shown before the one
// below it is. A non-empty query keeps the nodes whose kind, id or an
// attribute contains it (case-insensitively), with their ancestors.
func summarize(root *Node, taken time.Time, maxChildren, maxNodes int, query string) *pageView {
	v := &pageView{
		Taken:       taken.UTC().Format(time.RFC3339Nano),
		Counts:      map[Kind]int{},
		MaxChildren: maxChildren,
		MaxNodes:    maxNodes,
		Query:       query,
	}
	root.Walk(func(n *Node) {
		v.Nodes++
		v.Counts[n.Kind]++
		if n.Kind == kindExecutor && v.Executor == nil {
			v.Executor = n.Attrs
		}
	})
	if query != "" {
		root = filterTree(root, strings.ToLower(query))
		if root == nil {
			return v
		}
	}
	type item struct {
		src *Node
		dst *pageNode
	}
	v.Root = &pageNode{Kind: root.Kind, ID: root.ID, Attrs: root.Attrs}
	v.Shown = 1
	queue := []item{{root, v.Root}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		kids := it.src.Children
		if len(kids) == 0 {
			continue
		}
		it.dst.Total = len(kids)
		for _, c := range oldestFirst(kids) {
			if len(it.dst.Children) >= maxChildren || v.Shown >= maxNodes { // mutation: page-caps-the-view
				it.dst.Omitted++
				if it.dst.OmittedKinds == nil {
					it.dst.OmittedKinds = map[Kind]int{}
				}
				it.dst.OmittedKinds[c.Kind]++
				continue
			}
			d := &pageNode{Kind: c.Kind, ID: c.ID, Attrs: c.Attrs}
			it.dst.Children = append(it.dst.Children, d)
			v.Shown++
			queue = append(queue, item{c, d})
		}
	}
	return v
}

// oldestFirst returns nodes ordered with those without an age first,
// then by age, oldest first; equal ones keep their order.
func oldestFirst(nodes []*Node) []*Node {
	type aged struct {
		n   *Node
		age time.Duration
		ok  bool
	}
	a := make([]aged, len(nodes))
	for i, n := range nodes {
		a[i].n = n
		a[i].age, a[i].ok = nodeAge(n)
	}
	slices.SortStableFunc(a, func(x, y aged) int {
		switch {
		case !x.ok && !y.ok:
			return 0
		case !x.ok:
			return -1
		case !y.ok:
			return 1
		}
		return cmp.Compare(y.age, x.age)
	})
	out := make([]*Node, len(a))
	for i := range a {
		out[i] = a[i].n
	}
	return out
}

func nodeAge(n *Node) (time.Duration, bool) {
	s, ok := n.Attrs["age"]
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

// filterTree returns a copy of n holding the nodes that match q (already
// lower case) and their ancestors, or nil when none matches. A matching
// node keeps its whole subtree.
func filterTree(n *Node, q string) *Node {
	if nodeMatches(n, q) {
		return n
	}
	var kids []*Node
	for _, c := range n.Children {
		if f := filterTree(c, q); f != nil {
			kids = append(kids, f)
		}
	}
	if kids == nil {
		return nil
	}
	return &Node{Kind: n.Kind, ID: n.ID, Attrs: n.Attrs, Children: kids}
}

func nodeMatches(n *Node, q string) bool {
	if strings.Contains(strings.ToLower(string(n.Kind)), q) || strings.Contains(strings.ToLower(n.ID), q) {
		return true
	}
	for k, v := range n.Attrs {
		if strings.Contains(strings.ToLower(k+"="+v), q) {
			return true
		}
	}
	return false
}
