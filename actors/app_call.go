package actors

// A call actor: one handler call in flight to an application actor.

import (
	"maps"
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// callActor stands for one call. It sends the call's message to its
// target with itself as the sender, so replies come back to it, and hands
// them to the call's owner; for a per-call target it spawns the target as
// its child first. It is a leaf on the inline dispatcher: its work is a
// few function calls on the goroutine of whoever sends it a message.
type callActor struct {
	s         *system
	spec      tree.CallSpec
	target    *actor.PID // for a per-call target, set in Started
	perCall   bool
	started   time.Time
	state     string
	over      bool // End or Cancel seen
	childGone bool // the per-call target has stopped
	reported  bool // childFinished sent
}

// Messages of a call actor. The handle's come from the handler's
// goroutine, targetGone from the application node; each may reach a call
// actor the tree has already stopped.
type (
	endCall    struct{}
	cancelCall struct{}
	targetGone struct{ reason string }
)

func (*endCall) IgnoreDeadLetterLogging()    {}
func (*cancelCall) IgnoreDeadLetterLogging() {}
func (*targetGone) IgnoreDeadLetterLogging() {}

func (a *callActor) describe() (tree.Kind, map[string]string) {
	attrs := maps.Clone(a.spec.Attrs)
	if attrs == nil {
		attrs = map[string]string{}
	}
	if a.target != nil {
		attrs["target"] = a.target.Id
	}
	attrs["age"] = time.Since(a.started).Round(time.Millisecond).String()
	attrs["state"] = "waiting"
	if a.state != "" {
		attrs["state"] = a.state
	}
	return tree.KindCall, attrs
}

func (a *callActor) Receive(ac actor.Context) {
	defer a.s.logPanic(ac)
	if a.s.leafReceive(ac, a) {
		return
	}
	switch m := ac.Message().(type) {
	case *actor.Started:
		if a.perCall {
			pid, err := ac.SpawnNamed(a.s.appProps(a.spec.Props), "handler")
			if err != nil {
				a.spec.Gone("the per-call actor did not start: " + err.Error())
				return
			}
			a.target = pid
		}
		ac.Request(a.target, a.spec.Message(ac.Self()))
	case *targetGone:
		a.spec.Gone(m.reason)
	case *actor.Terminated:
		// Only a per-call target is a child; the application node
		// watches every other target.
		a.childGone = true
		if a.over {
			a.report(ac)
		} else {
			a.spec.Gone("the per-call handler actor " + m.Who.Id + " stopped before replying")
		}
	case *endCall:
		if !a.over {
			a.over = true
			a.report(ac)
		}
	case *cancelCall:
		if a.over {
			return
		}
		a.over, a.state = true, "cancelled"
		if a.target == nil || a.childGone {
			a.report(ac)
			return
		}
		ac.Send(a.target, a.spec.Cancel(ac.Self()))
		if a.perCall {
			// A stop would overtake the cancellation: the per-call
			// actor handles it first, then stops, then the call ends.
			ac.Poison(a.target)
			return
		}
		a.report(ac)
	case *actor.Stopping:
		a.spec.Gone("the supervision tree stopped the call")
	case actor.SystemMessage, actor.AutoReceiveMessage:
	default:
		a.spec.Receive(m)
	}
}

// report asks the application node to stop this call actor (children
// report, parents stop them).
func (a *callActor) report(ac actor.Context) {
	if !a.reported {
		a.reported = true
		ac.Send(ac.Parent(), &childFinished{pid: ac.Self()})
	}
}

// callHandle is a call actor's handle, implementing tree.CallHandle.
type callHandle struct {
	s    *system
	pid  *actor.PID
	once sync.Once
}

// ID is the call actor's path in the tree.
func (h *callHandle) ID() string { return h.pid.Id }

// End reports the call answered.
func (h *callHandle) End() { h.once.Do(func() { h.s.send(h.pid, &endCall{}) }) }

// Cancel cancels the call at its target, then ends it.
func (h *callHandle) Cancel() { h.once.Do(func() { h.s.send(h.pid, &cancelCall{}) }) }
