package supervisor

// The guard every application actor in the tree carries: a call it holds
// when it panics, restarts or stops ends with -32603.

import (
	"github.com/asynkron/protoactor-go/actor"
)

// carriesCall is implemented by the call messages (through Call).
type carriesCall interface {
	callState() *callState
}

// heldCalls are the calls one actor has received and not seen end: on
// its goroutine only, so it needs no lock.
type heldCalls struct {
	calls map[*callState]*actor.PID // → where the call's replies go
	sweep int                       // prune ended calls at this size
}

// newGuard returns the receiver middleware of one application actor. A
// call message it receives is held until the call ends; if the actor
// panics while handling one, that call fails at once, and if it restarts
// or stops, every call it still holds fails (a restarted actor has lost
// the state that would have answered them). A failure is sent to the
// call's actor, behind any reply sent before it, so a call answered just
// before the failure keeps its answer.
func newGuard() actor.ReceiverMiddleware {
	h := &heldCalls{calls: map[*callState]*actor.PID{}, sweep: 64}
	return func(next actor.ReceiverFunc) actor.ReceiverFunc {
		return func(c actor.ReceiverContext, env *actor.MessageEnvelope) {
			switch m := env.Message.(type) {
			case carriesCall:
				h.hold(m.callState(), replyTo(m))
			case *actor.Restarting:
				h.failAll(c, "the handler actor "+c.Self().Id+" restarted before replying")
			case *actor.Stopping:
				h.failAll(c, "the handler actor "+c.Self().Id+" stopped before replying")
			}
			defer func() {
				if r := recover(); r != nil {
					if m, ok := env.Message.(carriesCall); ok {
						h.fail(c, m.callState(), "the handler actor "+c.Self().Id+" panicked handling the call")
					}
					panic(r)
				}
			}()
			next(c, env)
		}
	}
}

func replyTo(m carriesCall) *actor.PID {
	switch m := m.(type) {
	case *ToolCall:
		return m.ReplyTo
	case *ResourceRead:
		return m.ReplyTo
	case *PromptGet:
		return m.ReplyTo
	}
	return nil
}

func (h *heldCalls) hold(st *callState, to *actor.PID) {
	if st == nil || to == nil {
		return
	}
	if len(h.calls) >= h.sweep {
		for s := range h.calls {
			if s.isEnded() {
				delete(h.calls, s)
			}
		}
		h.sweep = max(64, 2*len(h.calls))
	}
	h.calls[st] = to
}

func (h *heldCalls) fail(c actor.ReceiverContext, st *callState, reason string) {
	to, ok := h.calls[st]
	if !ok {
		return
	}
	delete(h.calls, st)
	if !st.isEnded() {
		c.ActorSystem().Root.Send(to, &callFailure{reason: reason})
	}
}

func (h *heldCalls) failAll(c actor.ReceiverContext, reason string) {
	for st := range h.calls {
		h.fail(c, st, reason)
	}
}
