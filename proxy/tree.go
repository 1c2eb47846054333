// The backend's health in a supervision tree.

package proxy

import (
	"strconv"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/snodo-go/snodo/supervisor"
)

// Show puts the backend in sup's supervision tree: an application actor
// named "proxy-" and the backend's name, whose node shows the backend,
// the revision spoken with it and its [Health] (reconnects, streams,
// failures, held_calls, tasks). The node stays until the tree closes.
func (b *Backend) Show(sup *supervisor.Supervisor) error {
	_, err := sup.Spawn("proxy-"+b.name, actor.PropsFromProducer(func() actor.Actor { return &healthNode{b: b} }), nil)
	return err
}

// healthNode is the actor that shows a backend; it serves no messages.
type healthNode struct{ b *Backend }

func (*healthNode) Receive(actor.Context) {}

// Describe implements supervisor.Describer.
func (n *healthNode) Describe() map[string]string {
	h := n.b.Health()
	return map[string]string{
		"backend":    n.b.name,
		"protocol":   n.b.Server().ProtocolVersion,
		"reconnects": strconv.FormatInt(h.Reconnects, 10),
		"streams":    strconv.FormatInt(h.Streams, 10),
		"failures":   strconv.FormatInt(h.Failures, 10),
		"held_calls": strconv.Itoa(h.HeldCalls),
		"tasks":      strconv.Itoa(h.FollowedTasks),
	}
}
