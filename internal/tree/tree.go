// Package tree is the contract between the parts of a supervision tree:
// package actors implements it with protoactor-go, package supervisor
// owns one System per server and publishes its snapshot, and the
// transports start their connections and hosts in it. Nothing here is an
// actor (the application's part names protoactor's PID, props and system
// types, which applications hand in), and nothing here is visible to
// applications.
package tree

import (
	"context"
	"errors"
	"log/slog"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/internal/executor"
)

// System is one running supervision tree: its root supervisor, the
// executor its requests run on, and the connections and hosts under the
// root.
type System interface {
	// StartConn starts a byte-stream connection under the root.
	StartConn(cfg ConnConfig) (Conn, error)
	// StartHost starts a host (one request per exchange) under the root.
	StartHost(cfg HostConfig) (Host, error)
	// StartTaskRunner starts a task runner under the root.
	StartTaskRunner(cfg TaskRunnerConfig) (TaskRunner, error)
	// Application returns the application's node, starting it on first
	// use; it fails with ErrSystemClosed once the tree is closed.
	Application() (Application, error)
	// ActorSystem is the actor system the tree runs in: its own, or the
	// application's (SystemConfig.Host).
	ActorSystem() *actor.ActorSystem
	// Executor is the executor the tree's requests run on.
	Executor() *executor.Executor
	// Logger is the tree's logger.
	Logger() *slog.Logger
	// Claim reserves name in the tree for v, until release is called: a
	// second claim of the same name fails.
	Claim(name string, v any) (release func(), err error)
	// Named returns what holds name in the tree.
	Named(name string) (any, bool)
	// Tree returns a snapshot of the live tree; after Close, the root
	// alone.
	Tree() *Node
	// Act performs an operator's action (ActionCancel, ActionStop) on
	// the node at path id, on that node's own goroutine. It fails with
	// ErrNoAction when no live node there takes it.
	Act(id, action string) error
	// Close stops every actor of the tree, waiting until none is left or
	// ctx ends. It does not close the executor.
	Close(ctx context.Context) error
	// UnexpectedDeadLetters counts messages that reached a stopped actor
	// and were not of a kind that may legitimately arrive late.
	UnexpectedDeadLetters() int64
}

// SystemConfig configures a System.
type SystemConfig struct {
	// Logger receives the runtime's own logs (supervision, dead letters,
	// panics with stacks); the actor library's informational chatter is
	// logged at Debug. Required.
	Logger *slog.Logger
	// Executor runs the tree's requests and is shown in the tree.
	// Required.
	Executor *executor.Executor
	// Host, when set, is an actor system the application already runs:
	// the tree starts in it instead of a system of its own, and closing
	// the tree stops only the tree's actors.
	Host *actor.ActorSystem
	// Parent, when set (with Host), is an actor of the application's the
	// tree's root is named under (<parent>/snodo); the root watches it
	// and stops the tree when it stops.
	Parent *actor.PID
	// App is what package supervisor adds to the application's part of
	// the tree.
	App AppHooks
}

// ErrSystemClosed is returned when starting children on a closed System.
var ErrSystemClosed = errors.New("supervision tree closed")

// SystemOf returns the System of a *supervisor.Supervisor. Package
// supervisor sets it when it is initialized; transports call it with the
// supervisor an application gave them. It lives here, rather than as a
// method of the supervisor, so that applications never see it.
var SystemOf func(sup any) System
