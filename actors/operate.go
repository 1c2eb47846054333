package actors

// Operators' actions (tree.System.Act): the action is sent to the actor
// at the path and performed on its own goroutine by the actor kinds that
// take it; every other actor answers that it does not.

import (
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/tree"
)

// operate asks an actor to perform an operator's action. Like inspect, it
// answers on a channel.
type operate struct {
	action string
	reply  chan<- error
}

func (*operate) IgnoreDeadLetterLogging() {}

// operable is implemented by the actors that take an operator's action.
type operable interface {
	operate(c actor.Context, action string) error
}

// answerOperate performs q on a (which may be nil or take no action).
func answerOperate(c actor.Context, a actor.Actor, q *operate) {
	if o, ok := a.(operable); ok && c != nil {
		q.reply <- o.operate(c, q.action)
		return
	}
	q.reply <- tree.ErrNoAction
}

// Act sends the action to the actor at id and waits for its answer, at
// most inspectTimeout.
func (s *system) Act(id, action string) error {
	if !strings.HasPrefix(id, s.rootID+"/") {
		return tree.ErrNoAction
	}
	if _, ok := s.sys.ProcessRegistry.GetLocal(id); !ok {
		return tree.ErrNoAction
	}
	reply := make(chan error, 1)
	s.send(actor.NewPID(s.sys.Address(), id), &operate{action: action, reply: reply})
	timer := time.NewTimer(inspectTimeout)
	defer timer.Stop()
	select {
	case err := <-reply:
		return err
	case <-timer.C:
		return tree.ErrNoAction
	}
}

// operate stops the connection (tree.ActionStop).
func (c *connActor) operate(ac actor.Context, action string) error {
	if action != tree.ActionStop {
		return tree.ErrNoAction
	}
	c.finish(ac, tree.ErrStoppedByOperator)
	return nil
}

// operate cancels the request (tree.ActionCancel) through its
// connection, as the client's notifications/cancelled does.
func (r *requestActor) operate(ac actor.Context, action string) error {
	if action != tree.ActionCancel {
		return tree.ErrNoAction
	}
	ac.Send(ac.Parent(), &cancelRequest{id: r.entry.id})
	return nil
}
