package supervisor

// The snapshot of the tree that applications and tests read.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/internal/tree"
)

// Kind is the role of a node in the tree, one of these values:
//
//   - "supervisor" is the root: it starts every connection and host and
//     stops one once it reports that it has finished.
//   - "executor" is the tree's executor, with its counts (running,
//     queued, waiting: running requests that gave their slot back while
//     a component's concurrency limit keeps them waiting; subscriptions)
//     and its totals since it started (submitted, rejected, timed_out,
//     cancelled).
//   - "connection" is a byte-stream connection (stdio), with its
//     transport, requests, subscriptions and negotiated version.
//   - "listener" is the native Streamable HTTP listener, with its
//     address and connections.
//   - "handler" is a Streamable HTTP handler mounted in an application's
//     server.
//   - "writer" is a connection's writer, the sole owner of its output.
//   - "request" is one request in flight: its method, id, age, deadline
//     and state (queued, running, or waiting for a place under a
//     component's concurrency limit, its slot given back), and its peer
//     over HTTP.
//   - "subscription" is one open subscriptions/listen stream (or an
//     initialize-era GET stream), with its filter and the events sent.
//   - "tasks" is the task runner, with its counts of tasks held.
//   - "task" is one task the runner holds: its tool, status, age and
//     deadline.
//   - "application" is the application node: the parent of the actors
//     started with [Supervisor.Spawn] and of the calls to actor
//     handlers, with its counts (actors, calls in flight, total calls).
//   - "actor" is one of the application's actors, with the attributes
//     its [Describer] gives.
//   - "call" is one call to an actor handler in flight: its method,
//     tool, resource or prompt, request id, target, age and state
//     (waiting, cancelled).
//   - "unresponsive" marks an actor that did not answer in time while
//     the snapshot was taken: stopping, or stuck.
//   - "policies" holds the Runtime's component policies, one "policy"
//     child per component with a timeout, a concurrency limit or a rate
//     limit (dispatch.WithCallTimeout, WithConcurrencyLimit,
//     WithRateLimit). It is not an actor: the policies run in the
//     callers' goroutines.
//   - "policy" is one component's policies and their use: its kind, name
//     and method; the timeout; the concurrency limit's max_concurrent,
//     running, max_waiting and waiting; the rate limit's rate, burst,
//     keys and max_keys; totals admitted, waited and refused; and the
//     number of middleware.
//
// A constant string compares with a Kind directly: n.Kind == "request".
type Kind string

// The kinds the package itself names.
const (
	kindSupervisor   Kind = "supervisor"
	kindExecutor     Kind = "executor"
	kindConnection   Kind = "connection"
	kindListener     Kind = "listener"
	kindHandler      Kind = "handler"
	kindWriter       Kind = "writer"
	kindRequest      Kind = "request"
	kindSubscription Kind = "subscription"
	kindTaskRunner   Kind = "tasks"
	kindTask         Kind = "task"
	kindUnresponsive Kind = "unresponsive"
	kindPolicies     Kind = "policies"
	kindPolicy       Kind = "policy"
)

// Node is one node of a tree snapshot. Its JSON form, as the
// [Supervisor.Handler] serves it, has the members kind, id, attrs and
// children.
type Node struct {
	// Kind is the node's role.
	Kind Kind `json:"kind"`
	// ID is the actor's path, such as "snodo/stdio$3/req$17".
	ID string `json:"id"`
	// Attrs describe the node: a request's method and id, its age and
	// deadline; a connection's transport; the executor's counts.
	Attrs map[string]string `json:"attrs,omitempty"`
	// Children are the nodes under this one, in the natural order of
	// their IDs (req$9 before req$10).
	Children []*Node `json:"children,omitempty"`
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

// String renders the tree rooted at n as indented text, one node per
// line, its attributes sorted by name:
//
//	supervisor snodo
//	├── connection snodo/stdio$1 requests=2 transport=stdio …
//	│   ├── request snodo/stdio$1/req$4 age=1.2s deadline=… id=7 method=tools/call state=running
//	│   └── writer snodo/stdio$1/writer inflight=0 pending=0 written=12
//	└── executor snodo/executor queued=0 running=2 …
func (n *Node) String() string {
	var b strings.Builder
	writeNode(&b, n, "", "")
	return b.String()
}

func writeNode(b *strings.Builder, n *Node, first, rest string) {
	b.WriteString(first)
	b.WriteString(string(n.Kind))
	b.WriteByte(' ')
	b.WriteString(n.ID)
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, " %s=%s", k, quoteIfNeeded(n.Attrs[k]))
	}
	b.WriteByte('\n')
	for i, c := range n.Children {
		if i == len(n.Children)-1 {
			writeNode(b, c, rest+"└── ", rest+"    ")
		} else {
			writeNode(b, c, rest+"├── ", rest+"│   ")
		}
	}
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// fromTree copies the actors' snapshot into the public shape.
func fromTree(t *tree.Node) *Node {
	n := &Node{Kind: Kind(t.Kind), ID: t.ID, Attrs: t.Attrs}
	if len(t.Children) > 0 {
		n.Children = make([]*Node, len(t.Children))
		for i, c := range t.Children {
			n.Children[i] = fromTree(c)
		}
	}
	return n
}
