package supervisor

// The application's part of the tree: hosting in an application's actor
// system, the application's actors, and the events they send.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/internal/tree"
)

// WithActorSystem starts the tree in an actor system the application
// already runs, instead of a system of its own, with its root named
// under parent ("<parent>/snodo"; nil parent: "snodo" at the top). The
// root watches parent: when the application stops parent, the tree stops
// with it. Close stops only what the tree started (its connections,
// requests, the application node and the actors started with Spawn),
// never parent, the system or any other actor of the application; the
// system is not shut down.
//
// protoactor-go's own log lines go wherever the application configured
// the system to send them (actor.WithLoggerFactory); the tree's own go to
// the tree's logger.
func WithActorSystem(sys *actor.ActorSystem, parent *actor.PID) Option {
	return option{"WithActorSystem", func(c *config) error {
		switch {
		case sys == nil:
			return errors.New("nil actor system")
		case parent != nil:
			if _, ok := sys.ProcessRegistry.GetLocal(parent.Id); !ok {
				return fmt.Errorf("the parent %s is not a live actor of the system", parent.Id)
			}
		}
		c.host, c.parent = sys, parent
		return nil
	}}
}

// Describer is implemented by an application actor that describes
// itself in the tree: Describe returns its node's attributes. It is
// called on the actor's own goroutine, between two messages, so it may
// read the actor's state.
type Describer interface {
	// Describe returns the actor's attributes.
	Describe() map[string]string
}

// Errors of the application node's events.
var (
	// ErrNoHub: a Publish reached a tree whose Runtime has no
	// subscription source that publishes (dispatch.WithSubscriptions
	// with a hub).
	ErrNoHub = errors.New("supervisor: the Runtime has no hub to publish on (dispatch.WithSubscriptions)")
	// ErrNoConnection: no stdio connection of the tree has the name a
	// Notify gave.
	ErrNoConnection = errors.New("supervisor: no connection of the tree has that name")
	// ErrNotifyBacklog: 64 notifications from the application's actors
	// are already waiting to be written.
	ErrNotifyBacklog = errors.New("supervisor: too many notifications waiting to be written")
)

// maxNotifying bounds the Notify messages being written at once.
const maxNotifying = 64

// Spawn starts props as one of the application's actors, a child of the
// application node named name ("<root>/app/<name>"), and returns its PID.
// restart is the strategy that decides, when the actor fails, whether it
// resumes, restarts or stops (nil: it stops); it acts on this actor
// alone, and escalating stops it. The actor, and every actor it spawns,
// appears in [Supervisor.Tree] (with its [Describer] attributes), has
// its panics logged with their stacks, and serves calls under the rules
// of [Named]. It stops when the tree closes.
func (s *Supervisor) Spawn(name string, props *actor.Props, restart actor.SupervisorStrategy) (*actor.PID, error) {
	app, err := s.sys.Application()
	if err != nil {
		return nil, fmt.Errorf("supervisor: Spawn: %w", err)
	}
	pid, err := app.Spawn(name, props, restart)
	if err != nil {
		return nil, fmt.Errorf("supervisor: Spawn: %w", err)
	}
	return pid, nil
}

// ApplicationPID returns the application node: the parent of the actors
// started with Spawn and of the calls to actor handlers. It accepts
// [Publish] and [Notify] from any actor. It fails once the tree is
// closed.
func (s *Supervisor) ApplicationPID() (*actor.PID, error) {
	app, err := s.sys.Application()
	if err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	return app.PID(), nil
}

// ActorSystem returns the actor system the tree runs in: the one given
// with [WithActorSystem], or the tree's own.
func (s *Supervisor) ActorSystem() *actor.ActorSystem { return s.sys.ActorSystem() }

// publisher is a subscription source that publishes: the hub.
type publisher interface {
	Publish(ev dispatch.Event) (dispatch.PublishResult, error)
}

// events handles the application node's messages.
type events struct {
	hub    publisher
	named  func(string) (any, bool)
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	busy   atomic.Int32
}

// notifier is what a stdio connection of the tree is.
type notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

func (e *events) receive(msg any, reply func(any)) bool {
	switch m := msg.(type) {
	case *Publish:
		if e.hub == nil {
			reply(&Published{Err: ErrNoHub})
			return true
		}
		res, err := e.hub.Publish(m.Event)
		reply(&Published{Result: res, Err: err})
	case *Notify:
		v, ok := e.named(tree.ConnNameKey(m.Conn))
		n, isConn := v.(notifier)
		if !ok || !isConn {
			reply(&Notified{Err: fmt.Errorf("%w: %q", ErrNoConnection, m.Conn)})
			return true
		}
		if e.busy.Add(1) > maxNotifying {
			e.busy.Add(-1)
			reply(&Notified{Err: ErrNotifyBacklog})
			return true
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			defer e.busy.Add(-1)
			reply(&Notified{Err: n.Notify(e.ctx, m.Method, m.Params)})
		}()
	default:
		return false
	}
	return true
}

// close ends the notifications being written and waits for them.
func (e *events) close() {
	e.cancel()
	e.wg.Wait()
}

// lateMessages lists the application part's message types that may reach
// a stopped actor, with the reason; their dead letters are expected.
var lateMessages = map[reflect.Type]string{
	reflect.TypeFor[*ToolCall]():       "sent to a target the application started itself, which may have stopped: the tree's watch ends the call",
	reflect.TypeFor[*ResourceRead]():   "sent to a target the application started itself, which may have stopped: the tree's watch ends the call",
	reflect.TypeFor[*PromptGet]():      "sent to a target the application started itself, which may have stopped: the tree's watch ends the call",
	reflect.TypeFor[*Cancelled]():      "sent to the call's target, which may have stopped since it received the call",
	reflect.TypeFor[*ToolResult]():     "a reply to a call already cancelled reaches a call actor that has stopped: it is dropped",
	reflect.TypeFor[*ResourceResult](): "a reply to a call already cancelled reaches a call actor that has stopped: it is dropped",
	reflect.TypeFor[*PromptResult]():   "a reply to a call already cancelled reaches a call actor that has stopped: it is dropped",
	reflect.TypeFor[*CallError]():      "a reply to a call already cancelled reaches a call actor that has stopped: it is dropped",
	reflect.TypeFor[*callFailure]():    "a failing actor fails the calls it holds, whose call actors may have stopped meanwhile",
	reflect.TypeFor[*Publish]():        "an application actor may publish while the tree is closing",
	reflect.TypeFor[*Notify]():         "an application actor may notify while the tree is closing",
	reflect.TypeFor[*Published]():      "the outcome goes to the actor that asked, which may have stopped",
	reflect.TypeFor[*Notified]():       "the outcome goes to the actor that asked, which may have stopped while the notification was written",
}
