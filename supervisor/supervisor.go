// Package supervisor is the public face of snodo's actor runtime: it
// starts one supervision tree per server, owns (or borrows) the executor
// that bounds application work, and offers a snapshot of the live tree that
// tests and applications can read from outside the actors.
//
// Transports accept a *Supervisor through an option; several transports
// given the same Supervisor share its tree and its executor. A transport
// given none makes a private one and closes it when it returns.
package supervisor

import (
	"context"
	"errors"
	"log/slog"

	"github.com/snodo-go/snodo/actors"
	"github.com/snodo-go/snodo/instrumentation"
)

// Node is one node of a tree snapshot: its Kind, its ID (the actor path),
// descriptive Attrs and its Children.
type Node = actors.Node

// Kind is the role of a node.
type Kind = actors.Kind

// Node kinds.
const (
	KindSupervisor   = actors.KindSupervisor
	KindExecutor     = actors.KindExecutor
	KindConnection   = actors.KindConnection
	KindListener     = actors.KindListener
	KindHandler      = actors.KindHandler
	KindWriter       = actors.KindWriter
	KindRequest      = actors.KindRequest
	KindSubscription = actors.KindSubscription
)

// Supervisor owns one supervision tree and an executor.
type Supervisor struct {
	sys      *actors.System
	exec     *actors.Executor
	ownsExec bool
}

type config struct {
	logger  *slog.Logger
	exec    *actors.Executor
	execCfg actors.ExecutorConfig
	sink    instrumentation.Sink
}

// Option configures a Supervisor.
type Option func(*config)

// WithLogger sets the logger for supervision events, actor panics and
// executor warnings. Default slog.Default(), which writes to standard
// error; nothing is ever written to standard output.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithExecutor makes the supervisor use a shared executor, which it does
// not close.
func WithExecutor(e *actors.Executor) Option { return func(c *config) { c.exec = e } }

// WithExecutorConfig sets the bounds of the executor the supervisor
// creates (ignored with WithExecutor).
func WithExecutorConfig(cfg actors.ExecutorConfig) Option {
	return func(c *config) { c.execCfg = cfg }
}

// WithInstrumentation sets the sink that hears about the executor the
// supervisor creates (admissions, queue depth, rejections, job ends) and
// its subscription slots. Give it the sink the Runtime has
// (dispatch.WithInstrumentation) to see everything in one place. It is
// ignored with WithExecutor: set ExecutorConfig.Sink on a shared executor.
func WithInstrumentation(s instrumentation.Sink) Option {
	return func(c *config) { c.sink = s }
}

// New starts a supervision tree.
func New(opts ...Option) (*Supervisor, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	sys, err := actors.NewSystem(actors.SystemConfig{Logger: c.logger})
	if err != nil {
		return nil, err
	}
	s := &Supervisor{sys: sys, exec: c.exec}
	if s.exec == nil {
		if c.execCfg.Logger == nil {
			c.execCfg.Logger = c.logger
		}
		if c.sink != nil {
			c.execCfg.Sink = c.sink
		}
		s.exec = actors.NewExecutor(c.execCfg)
		s.ownsExec = true
	}
	sys.AddExecutor("executor", s.exec)
	return s, nil
}

// System returns the actor system, for transports.
func (s *Supervisor) System() *actors.System { return s.sys }

// Executor returns the executor the supervisor's transports use by
// default.
func (s *Supervisor) Executor() *actors.Executor { return s.exec }

// Tree returns a snapshot of the live supervision tree. It is safe to call
// from any goroutine, including while requests run.
func (s *Supervisor) Tree() *Node { return s.sys.Tree() }

// Close stops every actor of the tree, then closes the executor if the
// supervisor created it, waiting for running handlers until ctx ends (a
// handler that ignores cancellation is reported and abandoned).
func (s *Supervisor) Close(ctx context.Context) error {
	err := s.sys.Close(ctx)
	s.sys.RemoveExecutor(s.exec)
	if s.ownsExec {
		err = errors.Join(err, s.exec.Close(ctx))
	}
	return err
}

// UnexpectedDeadLetters counts messages that reached stopped actors and
// were not expected to: lifecycle bugs that goroutine leak checks cannot
// see. Tests assert it stays zero.
func (s *Supervisor) UnexpectedDeadLetters() int64 { return s.sys.UnexpectedDeadLetters() }
