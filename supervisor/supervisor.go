// Package supervisor is the public face of snodo's running server: one
// supervision tree per server, the limits of the executor that bounds
// application work, and a snapshot of the live tree that operators and
// tests can read from outside the actors.
//
// A Supervisor is built from the Runtime it serves and inherits the
// Runtime's logger (dispatch.WithLogger) and instrumentation sink
// (dispatch.WithInstrumentation), so each is given once. Transports accept
// a *Supervisor through their WithSupervisor option; several transports
// given the same Supervisor share its tree and its executor limits. A
// transport given none makes a private one and closes it when it ends.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/tree"
)

// Supervisor owns one supervision tree and the executor its transports
// run requests on.
type Supervisor struct {
	sys    tree.System
	exec   *executor.Executor
	events *events
	rt     *dispatch.Runtime // for its component policies
}

// Transports reach the tree through tree.SystemOf, so that applications
// see none of what they use.
func init() {
	tree.SystemOf = func(sup any) tree.System {
		s, _ := sup.(*Supervisor)
		if s == nil {
			return nil
		}
		return s.sys
	}
}

// Limits bound the application work of a tree, across every transport
// that runs under it. A zero field takes its default.
type Limits struct {
	// MaxConcurrency is the number of requests whose handlers run at
	// once. Default 32.
	MaxConcurrency int
	// MaxQueue is the number of admitted requests waiting for a free
	// slot, served in arrival order; a request that finds the queue full
	// is refused (-32603 on stdio, 503 over HTTP). Default 256; a
	// negative value means no queue.
	MaxQueue int
	// RequestTimeout is a request's deadline, counted from admission
	// (queue wait plus execution); a transport's own request timeout
	// overrides it. Default 30 s.
	RequestTimeout time.Duration
	// MaxSubscriptions bounds the subscriptions/listen streams (and
	// initialize-era GET streams) open at once. Default 256.
	MaxSubscriptions int
}

type config struct {
	logger *slog.Logger
	sink   instrumentation.Sink
	limits Limits
	host   *actor.ActorSystem
	parent *actor.PID
}

// Option configures [New]. An invalid option makes New fail, naming the
// option, before anything starts.
type Option interface {
	applySupervisor(*config) error
}

type option struct {
	name  string
	apply func(*config) error
}

func (o option) applySupervisor(c *config) error {
	if err := o.apply(c); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// WithLogger sets the logger for supervision events, actor panics and
// executor warnings in place of the Runtime's. Nothing is ever written to
// standard output.
func WithLogger(l *slog.Logger) Option {
	return option{"WithLogger", func(c *config) error {
		if l == nil {
			return errors.New("nil logger")
		}
		c.logger = l
		return nil
	}}
}

// WithInstrumentation sets the sink that hears about the tree's executor
// (admissions, queue depth, rejections, job ends) and subscription slots
// in place of the Runtime's; nil turns those events off.
func WithInstrumentation(s instrumentation.Sink) Option {
	return option{"WithInstrumentation", func(c *config) error {
		c.sink = s
		return nil
	}}
}

// WithLimits sets the tree's executor limits; see [Limits] for each
// bound and its default.
func WithLimits(l Limits) Option {
	return option{"WithLimits", func(c *config) error {
		switch {
		case l.MaxConcurrency < 0:
			return errors.New("MaxConcurrency must not be negative")
		case l.RequestTimeout < 0:
			return errors.New("RequestTimeout must not be negative")
		case l.MaxSubscriptions < 0:
			return errors.New("MaxSubscriptions must not be negative")
		}
		c.limits = l
		return nil
	}}
}

// New starts a supervision tree for the transports serving rt.
func New(rt *dispatch.Runtime, opts ...Option) (*Supervisor, error) {
	if rt == nil {
		return nil, errors.New("supervisor: nil Runtime")
	}
	c := config{logger: rt.Logger(), sink: rt.Instrumentation()}
	for _, o := range opts {
		if err := o.applySupervisor(&c); err != nil {
			return nil, fmt.Errorf("supervisor: %w", err)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	exec := executor.New(executor.Config{
		MaxConcurrency:   c.limits.MaxConcurrency,
		MaxQueue:         c.limits.MaxQueue,
		Timeout:          c.limits.RequestTimeout,
		MaxSubscriptions: c.limits.MaxSubscriptions,
		Logger:           c.logger,
		Sink:             c.sink,
	})
	ev := &events{}
	ev.hub, _ = rt.SubscriptionSource().(publisher)
	ev.ctx, ev.cancel = context.WithCancel(context.Background())
	sys, err := actors.NewSystem(tree.SystemConfig{
		Logger: c.logger, Executor: exec, Host: c.host, Parent: c.parent,
		App: tree.AppHooks{Guard: newGuard, Receive: ev.receive, Late: lateMessages},
	})
	if err != nil {
		ev.cancel()
		_ = exec.Close(context.Background())
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	ev.named = sys.Named
	return &Supervisor{sys: sys, exec: exec, events: ev, rt: rt}, nil
}

// Tree returns a snapshot of the live supervision tree: the root, the
// executor, and every connection and host with the actors under them.
// It is safe to call from any goroutine, including while requests run;
// each actor describes itself on its own goroutine, so the snapshot is
// consistent per node, and an actor stopping meanwhile may or may not
// appear. The component policies of the Runtime (timeouts, concurrency
// and rate limits) are a policies node beside the executor, one policy
// node per limited component with its current use. After Close it is the
// root alone.
func (s *Supervisor) Tree() *Node {
	n := fromTree(s.sys.Tree())
	if len(n.Children) > 0 { // not closed
		if p := policiesNode(n.ID, s.rt); p != nil {
			n.Children = append(n.Children, p)
		}
	}
	return n
}

// Close stops every actor of the tree, then closes the executor, waiting
// for running handlers until ctx ends (a handler that ignores
// cancellation is reported and abandoned). A second Close returns nil.
func (s *Supervisor) Close(ctx context.Context) error {
	s.events.close()
	return errors.Join(s.sys.Close(ctx), s.exec.Close(ctx))
}

// UnexpectedDeadLetters counts messages that reached stopped actors and
// were not expected to: lifecycle bugs that goroutine leak checks cannot
// see. Tests assert it stays zero.
func (s *Supervisor) UnexpectedDeadLetters() int64 { return s.sys.UnexpectedDeadLetters() }
