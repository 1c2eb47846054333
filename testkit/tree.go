// This file waits on and searches the supervision tree.

package testkit

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/snodo-go/snodo/supervisor"
)

// WaitTree polls the supervisor's tree until cond holds, and fails t if it
// does not within DefaultTimeout. It returns the snapshot that satisfied
// cond.
func WaitTree(t testing.TB, sup *supervisor.Supervisor, cond func(*supervisor.Node) bool) *supervisor.Node {
	t.Helper()
	deadline := time.Now().Add(DefaultTimeout)
	delay := time.Millisecond
	for {
		tree := sup.Tree()
		if cond(tree) {
			return tree
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(tree, "", "  ")
			t.Fatalf("testkit: supervision tree never met the condition; last snapshot:\n%s", b)
		}
		time.Sleep(delay)
		if delay < 20*time.Millisecond {
			delay *= 2
		}
	}
}

// WaitNoRequests waits until no request actor remains anywhere in the tree.
func WaitNoRequests(t testing.TB, sup *supervisor.Supervisor) *supervisor.Node {
	t.Helper()
	return WaitTree(t, sup, func(n *supervisor.Node) bool { return n.Count("request") == 0 })
}

// Find returns the first node of kind k in tree, or nil.
func Find(tree *supervisor.Node, k supervisor.Kind) *supervisor.Node {
	var found *supervisor.Node
	tree.Walk(func(n *supervisor.Node) {
		if found == nil && n.Kind == k {
			found = n
		}
	})
	return found
}
