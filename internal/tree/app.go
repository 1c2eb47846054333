package tree

// What package supervisor gives and gets for the application's part of a
// tree: the application node, the actors an application starts under it,
// and the calls a handler makes to application actors.

import (
	"context"
	"reflect"

	"github.com/asynkron/protoactor-go/actor"
)

// Application is the application's node in a tree, a child of the root:
// the parent of the actors the application starts through the supervisor
// and of one call actor per handler call in flight to an application
// actor. It is started on first use and stops with the tree.
type Application interface {
	// PID is the application node's actor. It accepts the messages
	// AppHooks.Receive handles.
	PID() *actor.PID
	// Spawn starts props as a child of the application node named name.
	// restart decides what happens when the actor fails (nil: it is
	// stopped); the actor, and every actor it spawns, answers
	// inspection, logs its panics and carries AppHooks.Guard.
	Spawn(name string, props *actor.Props, restart actor.SupervisorStrategy) (*actor.PID, error)
	// Call starts a call actor for spec and returns its handle.
	Call(spec CallSpec) (CallHandle, error)
}

// CallSpec describes one call to an application actor. Exactly one of
// Target, Named and Props is set.
type CallSpec struct {
	// Target is an actor the application started itself, in the same
	// actor system. The application node watches it.
	Target *actor.PID
	// Named is the name of a child of the application node started with
	// Spawn.
	Named string
	// Props is spawned once for this call, as the call actor's child,
	// and stopped when the call ends.
	Props *actor.Props
	// Attrs are shown on the call's node.
	Attrs map[string]string
	// Message builds the message sent to the target once the call actor
	// is running, given the call actor's PID (the sender of the message,
	// where replies go).
	Message func(replyTo *actor.PID) any
	// Cancel builds the message sent to the target when the call is
	// cancelled.
	Cancel func(replyTo *actor.PID) any
	// Receive is given every message the call actor receives that is not
	// its own: the replies. It runs on the call actor's goroutine and
	// must not block.
	Receive func(msg any)
	// Gone reports that the call cannot be answered any more: its target
	// stopped or never existed, or the tree stopped the call. It runs on
	// an actor's goroutine and must not block; it is called after every
	// reply the target sent before it stopped has been given to Receive.
	Gone func(reason string)
}

// CallHandle is a call actor's handle. Its methods are safe for
// concurrent use; only the first of Cancel and End counts.
type CallHandle interface {
	// ID is the call actor's path in the tree.
	ID() string
	// End reports the call answered: its actor (and its per-call target)
	// stop.
	End()
	// Cancel sends the spec's Cancel message to the target, then ends
	// the call; a per-call target is stopped once it has handled the
	// message.
	Cancel()
}

// AppHooks are what package supervisor adds to the application's part
// of a tree.
type AppHooks struct {
	// Guard, when set, returns a receiver middleware for one application
	// actor; it is called for each actor started under the application
	// node, at any depth.
	Guard func() actor.ReceiverMiddleware
	// Receive, when set, handles a message sent to the application node
	// that is not its own; reply sends to the message's sender, if it
	// has one. It runs on the application node's goroutine and must not
	// block. It reports whether it knew the message.
	Receive func(msg any, reply func(any)) bool
	// Late lists the message types of the application's part that may
	// reach a stopped actor, each with the reason: their dead letters
	// are expected and not counted.
	Late map[reflect.Type]string
}

type systemKey struct{}

// ContextWithSystem returns ctx carrying s. The work a tree runs (its
// executor jobs) gets a context that carries the tree, so a handler can
// reach the tree serving it.
func ContextWithSystem(ctx context.Context, s System) context.Context {
	return context.WithValue(ctx, systemKey{}, s)
}

// SystemFromContext returns the tree carried by ctx, or nil.
func SystemFromContext(ctx context.Context) System {
	s, _ := ctx.Value(systemKey{}).(System)
	return s
}

// ConnNameKey is the key under which a stdio connection given a name
// holds it among the tree's names (Claim, Named).
func ConnNameKey(name string) string { return "stdio/" + name }
