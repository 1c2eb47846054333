package tree

// A snapshot of the tree, as the actors describe themselves. Package
// supervisor copies it into its public Node.

// Kind is the role of a node in the tree.
type Kind string

// Node kinds.
const (
	KindSupervisor   Kind = "supervisor"
	KindExecutor     Kind = "executor"
	KindConnection   Kind = "connection"
	KindListener     Kind = "listener"
	KindHandler      Kind = "handler"
	KindWriter       Kind = "writer"
	KindRequest      Kind = "request"
	KindSubscription Kind = "subscription"
	// KindTaskRunner is a task runner: its counts of tasks held.
	KindTaskRunner Kind = "tasks"
	// KindTask is one task a runner holds: its tool, status, age and
	// deadline.
	KindTask Kind = "task"
	// KindApplication is the application's node: the parent of the
	// actors an application starts through the supervisor and of the
	// calls to application actors.
	KindApplication Kind = "application"
	// KindActor is an application actor, with the attributes it gives
	// itself.
	KindActor Kind = "actor"
	// KindCall is one handler call in flight to an application actor.
	KindCall Kind = "call"
	// KindUnresponsive marks an actor that did not answer inspection in
	// time: stopping, or stuck in a blocking receive.
	KindUnresponsive Kind = "unresponsive"
)

// Node is one actor (or the executor) in a snapshot.
type Node struct {
	// Kind is the node's role.
	Kind Kind
	// ID is the actor's path, such as "snodo/stdio$3/req$17".
	ID string
	// Attrs describe the node.
	Attrs map[string]string
	// Children are the nodes below, in natural order of their IDs.
	Children []*Node
}

// Walk calls fn for n and every node below it, depth first.
func (n *Node) Walk(fn func(*Node)) {
	fn(n)
	for _, c := range n.Children {
		c.Walk(fn)
	}
}

// Count returns the number of nodes of kind k in the tree rooted at n.
func (n *Node) Count(k Kind) int {
	c := 0
	n.Walk(func(x *Node) {
		if x.Kind == k {
			c++
		}
	})
	return c
}
